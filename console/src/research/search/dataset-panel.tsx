import { useMutation, useQuery } from '@tanstack/react-query';
import { Fragment, useState } from 'react';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { ErrorView } from '../../app/error-view';
import { Badges, BadgesError, badgeKey, useBadges, type BadgedItem } from './badges';
import { Findings } from './findings';
import {
  describeState,
  hasMore,
  type DatasetView,
  type Facets,
  type ResultItem,
  type StreamPhase,
} from './search-state';
import type { SearchRequestBody } from './stream';

type MorePage = components['schemas']['SearchMorePage'] & {
  service_credits?: components['schemas']['ServiceCredits'];
};

const credits = (amount: number) => `${amount} credit${amount === 1 ? '' : 's'}`;

function stateClass(status: DatasetView['status']) {
  if (status === 'ok') return 'state-ok';
  if (status === 'waiting') return 'muted';
  return 'state-problem';
}

/** The columns a person reads first, per dataset; the whole record stays one click away. */
function summary(item: ResultItem): Array<[string, string]> {
  const raw = item.raw as Record<string, unknown>;
  const text = (value: unknown) => (value === undefined || value === null ? '' : String(value));
  const nested = (value: unknown, key: string) =>
    value && typeof value === 'object' ? text((value as Record<string, unknown>)[key]) : '';
  switch (item.dataset) {
    case 'hosts':
      return [
        ['Service', [raw.vendor, raw.product, raw.version].filter(Boolean).join(' ') || text(raw.protocol)],
        ['Country', text(raw.country)],
        ['Last seen', text(raw.last_seen).slice(0, 10)],
      ];
    case 'dns':
      return [
        ['Type', text(raw.type).toUpperCase()],
        ['Value', text(raw.value)],
        ['Last seen', text(raw.last_seen).slice(0, 10)],
      ];
    case 'vhosts':
      return [
        ['Subject', nested(raw.subject, 'cn')],
        ['Issuer', nested(raw.issuer, 'cn') || nested(raw.issuer, 'organization')],
        ['Expires', text(raw.not_after).slice(0, 10)],
      ];
    case 'whois':
      return [
        ['Registrar', text(raw.registrar)],
        ['Expires', text(raw.expires).slice(0, 10)],
        ['Last seen', text(raw.last_seen).slice(0, 10)],
      ];
  }
}

function FacetList({ facets }: { facets: Facets }) {
  return (
    <div className="facets">
      {Object.entries(facets).map(([field, counts]) => (
        <div key={field} className="facet">
          <h3>{field}</h3>
          <ul>
            {counts.map((count) => (
              <li key={String(count.value)}>
                <span>{String(count.value)}</span> <span className="muted">{count.count}</span>
              </li>
            ))}
          </ul>
        </div>
      ))}
    </div>
  );
}

function ResultsTable({
  items,
  badges,
  badgesPending,
  onRelatedSearch,
}: {
  items: readonly ResultItem[];
  badges: Map<string, BadgedItem> | undefined;
  badgesPending: boolean;
  onRelatedSearch: (query: string) => void;
}) {
  const [open, setOpen] = useState<string | null>(null);
  const first = items[0];
  if (!first) return null;
  const columns = summary(first).map(([name]) => name);
  const hosts = first.dataset === 'hosts';
  return (
    <div className="table-scroll">
      <table className="results">
        <thead>
          <tr>
            <th scope="col">Record</th>
            {columns.map((name) => (
              <th scope="col" key={name}>
                {name}
              </th>
            ))}
            <th scope="col">Badges</th>
            {hosts ? <th scope="col">Advisories</th> : null}
          </tr>
        </thead>
        <tbody>
          {items.map((item) => {
            const reference = (item.raw as { vulnerability_ref?: unknown }).vulnerability_ref;
            const key = badgeKey(item);
            return (
              <Fragment key={key}>
                <tr>
                  <th scope="row" className="record-id">
                    {item.id}
                  </th>
                  {summary(item).map(([name, value]) => (
                    <td key={name}>{value}</td>
                  ))}
                  <td>
                    <Badges
                      badged={badges?.get(key)}
                      pending={badgesPending}
                      onRelatedSearch={onRelatedSearch}
                    />
                  </td>
                  {hosts ? (
                    <td>
                      {typeof reference === 'string' ? (
                        <button
                          type="button"
                          className="secondary"
                          aria-expanded={open === key}
                          aria-label={`Advisories for ${item.id}`}
                          onClick={() => setOpen(open === key ? null : key)}
                        >
                          Advisories
                        </button>
                      ) : (
                        <span className="unavailable">no software reference</span>
                      )}
                    </td>
                  ) : null}
                </tr>
                {open === key && typeof reference === 'string' ? (
                  <tr className="findings-row">
                    <td colSpan={columns.length + 3}>
                      <Findings reference={reference} label={item.id} />
                    </td>
                  </tr>
                ) : null}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** Page 2 and later of one dataset: the price comes from the service's free quote, shown before paying. */
function NextPage({
  entry,
  request,
  shown,
  onPage,
}: {
  entry: DatasetView;
  request: SearchRequestBody;
  shown: number;
  onPage: (page: MorePage) => void;
}) {
  const page = Math.floor(shown / request.per_type_limit) + 1;
  const body = {
    raw_query: request.raw_query,
    dataset: entry.dataset,
    page,
    time_frame: request.time_frame,
    per_type_limit: request.per_type_limit,
    broad: request.broad,
  };
  const quote = useQuery({
    queryKey: ['more-quote', body],
    queryFn: () => unwrap(api.POST('/api/v2/data/search/more/quote', { body })),
    staleTime: Infinity,
  });
  const pay = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v2/data/search/more', { body })),
    onSuccess: (answer) => onPage(answer as MorePage),
  });
  return (
    <div className="next-page">
      {quote.isPending ? <p role="status">Asking the price of page {page}…</p> : null}
      <ErrorView error={quote.error} title={`The price of page ${page} is not known`} />
      {quote.data ? (
        <p className="quote">
          Page {page} of {entry.dataset} costs <strong>{credits(quote.data.credits)}</strong> (price{' '}
          {quote.data.base_price} × depth {quote.data.depth_multiplier} from record{' '}
          {quote.data.first_record + 1}
          ), charged {quote.data.charged_when}.
        </p>
      ) : null}
      <button
        type="button"
        disabled={!quote.data || pay.isPending}
        aria-disabled={!quote.data || pay.isPending}
        onClick={() => pay.mutate()}
      >
        {quote.data
          ? `Load page ${page} of ${entry.dataset} for ${credits(quote.data.credits)}`
          : `Load page ${page} of ${entry.dataset}`}
      </button>
      {!quote.data && !quote.isPending ? (
        <span className="unavailable"> unavailable until the service tells its price</span>
      ) : null}
      <ErrorView error={pay.error} title={`Page ${page} was not loaded`} />
    </div>
  );
}

/** One dataset of a unified search: its state (never a failure shown as zero), results, facets, further pages. */
export function DatasetPanel({
  entry,
  phase,
  request,
  badges,
  onRelatedSearch,
}: {
  entry: DatasetView;
  phase: StreamPhase;
  request: SearchRequestBody | null;
  badges: ReturnType<typeof useBadges>;
  onRelatedSearch: (query: string) => void;
}) {
  const [pages, setPages] = useState<MorePage[]>([]);
  const lastPage = pages.at(-1);
  const pageItems = pages.flatMap((page) => page.results);
  const pageBadges = useBadges(lastPage?.results ?? [], lastPage !== undefined);
  const allBadges = new Map([...(badges.data ?? []), ...(pageBadges.data ?? [])]);
  const shown = entry.items.length + pageItems.length;
  // A further page that did not answer stops the paging there, with its own state shown.
  const more =
    phase === 'complete' &&
    request !== null &&
    (lastPage === undefined
      ? hasMore(entry, shown)
      : lastPage.status === 'ok' &&
        hasMore({ ...entry, total: lastPage.total, lowerBound: lastPage.lower_bound }, shown));
  const headingId = `dataset-${entry.dataset}`;
  return (
    <section
      className="dataset"
      aria-labelledby={headingId}
      data-dataset={entry.dataset}
      data-state={entry.status}
    >
      <h2 id={headingId}>
        {entry.dataset}{' '}
        <span className={`status ${stateClass(entry.status)}`} data-testid={`state-${entry.dataset}`}>
          {entry.status === 'waiting' ? (phase === 'running' ? 'waiting' : 'no answer') : entry.status}
        </span>
      </h2>
      <p className={stateClass(entry.status)} role={entry.status === 'waiting' ? undefined : 'status'}>
        {describeState({ ...entry, items: [...entry.items, ...pageItems] }, phase)}
        {entry.capped ? ' (capped at the per-type limit)' : ''}
      </p>
      {entry.facets ? <FacetList facets={entry.facets} /> : null}
      <ResultsTable
        items={[...entry.items, ...pageItems]}
        badges={allBadges}
        badgesPending={badges.isPending && badges.fetchStatus !== 'idle'}
        onRelatedSearch={onRelatedSearch}
      />
      {badges.error ? <BadgesError error={badges.error} /> : null}
      {pages.map((page) => (
        <p key={page.page} className={page.status === 'ok' ? 'muted' : 'state-problem'}>
          Page {page.page}:{' '}
          {page.status === 'ok'
            ? `${page.results.length} records, charged ${credits(page.credits_charged)}`
            : `${page.status}: no answer — not a zero-match result (charged ${credits(page.credits_charged)})`}
          {typeof page.service_credits?.available === 'number'
            ? `; ${credits(page.service_credits.available)} available`
            : ''}
        </p>
      ))}
      {more && request ? (
        <NextPage
          key={shown}
          entry={entry}
          request={request}
          shown={shown}
          onPage={(page) => setPages((known) => [...known, page])}
        />
      ) : null}
    </section>
  );
}
