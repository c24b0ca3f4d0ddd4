import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api, unwrap } from '../api/client';
import type { operations } from '../api/schema';
import { ErrorView } from '../app/error-view';
import {
  ActionButton,
  isRoleRefusal,
  Refusal,
  RESULT_TEXT,
  useFields,
  when,
  words,
  type Inventory,
  type Subject,
} from './scope-shared';

type InventoryQuery = NonNullable<operations['ExposureController_inventory']['parameters']['query']>;
type Filter = NonNullable<InventoryQuery['filter']>;

/** The inventory pages are fixed at 100 by the service; the console only moves the offset. */
const PAGE = 100;
const PENDING = new Set(['queued', 'running', 'retry_scheduled']);

export function inventoryKey(orgId: string, clientId: string) {
  return ['organizations', orgId, 'clients', clientId, 'inventory'] as const;
}

/** What a subject is, in words: a service (host:port/transport) or a domain registration. */
export function subjectLabel(subject: Subject): string {
  if (subject.kind === 'service' && subject.host) {
    return `${subject.host}:${subject.port ?? '?'}/${subject.transport ?? 'tcp'}`;
  }
  const observed = subject.observation as { domain?: unknown } | undefined;
  return typeof observed?.domain === 'string' ? `${observed.domain} (registration)` : subject.id;
}

/**
 * The scope's inventory from stored observations: coverage and processing states, an evaluation filter,
 * grouping by host and fixed pages of 100. The address keeps filter, grouping and offset, so a page can be shared.
 */
export function InventoryView({ orgId, clientId }: { orgId: string; clientId: string }) {
  const [search, setSearch] = useSearchParams();
  const offset = Math.max(0, Number(search.get('offset') ?? 0) || 0);
  const filter = (search.get('filter') ?? '') as Filter | '';
  const byHost = search.get('group_by') === 'host';
  const [deciding, setDeciding] = useState<Subject | null>(null);
  const query: InventoryQuery = {
    offset,
    ...(filter ? { filter } : {}),
    ...(byHost ? { group_by: 'host' as const } : {}),
  };
  const inventory = useQuery({
    queryKey: [...inventoryKey(orgId, clientId), query],
    queryFn: () =>
      unwrap(
        api.GET('/api/v2/organizations/{orgId}/clients/{clientId}/exposure', {
          params: { path: { orgId, clientId }, query },
        }),
      ) as Promise<Inventory>,
    placeholderData: keepPreviousData,
    // Long work shows progress: while a refresh is pending the page reads again until it settles.
    refetchInterval: (current) =>
      PENDING.has(current.state.data?.latest_refresh?.status ?? '') ? 2000 : false,
  });
  const move = (changes: Record<string, string | null>) => {
    const next = new URLSearchParams(search);
    for (const [name, value] of Object.entries(changes)) {
      if (value === null || value === '') next.delete(name);
      else next.set(name, value);
    }
    setSearch(next);
  };
  const data = inventory.data;
  // The form decides on the subject as last read, so its body version follows each refetch.
  const fresh = deciding
    ? [...(data?.subjects ?? []), ...(data?.hosts ?? []).flatMap((group) => group.services)].find(
        (subject) => subject.id === deciding.id,
      )
    : undefined;
  const rows = data?.group_by === 'host' ? (data.hosts?.length ?? 0) : (data?.subjects?.length ?? 0);
  const total = data?.totals.matching ?? 0;
  return (
    <section aria-labelledby="inventory-heading">
      <h3 id="inventory-heading">Inventory</h3>
      {isRoleRefusal(inventory.error) ? (
        <Refusal what="The inventory" error={inventory.error} />
      ) : (
        <ErrorView error={inventory.error} />
      )}
      {inventory.isPending ? <p role="status">Loading the inventory…</p> : null}
      {data ? (
        <>
          <InventorySummary inventory={data} />
          <div className="inventory-controls">
            <label>
              Evaluation filter
              <select value={filter} onChange={(e) => move({ filter: e.target.value, offset: null })}>
                <option value="">All subjects</option>
                {filter && !listedFilter(data, filter) ? (
                  <option value={filter}>{words(filter)} (0)</option>
                ) : null}
                {(['coverage', 'result', 'decision', 'kind'] as const).map((group) => (
                  <optgroup key={group} label={group}>
                    {data.filter_options[group].map((option) => (
                      <option key={option.value} value={`${group}:${option.value}`}>
                        {group}: {words(option.value)} ({option.count})
                      </option>
                    ))}
                  </optgroup>
                ))}
              </select>
            </label>
            <label className="inline">
              {/* Uncontrolled, remounted when the address changes: the address updates in a transition, and a
                  controlled box would flip back until it lands. */}
              <input
                key={String(byHost)}
                type="checkbox"
                defaultChecked={byHost}
                onChange={(e) => move({ group_by: e.target.checked ? 'host' : null, offset: null })}
              />
              Group services by host
            </label>
          </div>
          <p role="status" className="muted">
            {rows === 0
              ? 'No subject on this page.'
              : `${data.group_by === 'host' ? 'Hosts' : 'Subjects'} ${offset + 1}–${offset + rows}` +
                (data.group_by === 'host' ? '' : ` of ${total}`) +
                (data.filter ? ` matching ${words(data.filter)}` : '')}
            {inventory.isFetching && !inventory.isPending ? ' · updating…' : ''}
          </p>
          {data.group_by === 'host' ? (
            (data.hosts ?? []).map((group) => (
              <section key={group.host} aria-label={`Host ${group.host}`} className="host-group">
                <h4>
                  {group.host}
                  {group.hostnames.length > 0 ? (
                    <span className="muted"> · {group.hostnames.join(', ')}</span>
                  ) : null}
                </h4>
                <SubjectTable subjects={group.services} onDecide={setDeciding} />
              </section>
            ))
          ) : (
            <SubjectTable subjects={data.subjects ?? []} onDecide={setDeciding} />
          )}
          <nav aria-label="Inventory pages" className="row">
            <button
              type="button"
              className="secondary"
              disabled={offset === 0}
              onClick={() => move({ offset: String(Math.max(0, offset - PAGE)) })}
            >
              Previous page
            </button>
            <button
              type="button"
              className="secondary"
              disabled={rows < PAGE}
              onClick={() => move({ offset: String(offset + PAGE) })}
            >
              Next page
            </button>
          </nav>
          <p className="muted notice">{data.notice}</p>
        </>
      ) : null}
      {deciding ? (
        <DecisionForm
          key={deciding.id}
          orgId={orgId}
          clientId={clientId}
          subject={fresh ?? deciding}
          onDone={() => setDeciding(null)}
        />
      ) : null}
    </section>
  );
}

/** Whether the service listed this filter among its options (a filter from a shared address may not be). */
function listedFilter(inventory: Inventory, filter: string): boolean {
  const [group, value] = filter.split(':') as [keyof Inventory['filter_options'], string];
  return (inventory.filter_options[group] ?? []).some((option) => option.value === value);
}

function InventorySummary({ inventory }: { inventory: Inventory }) {
  const coverage = inventory.summary.coverage;
  const refresh = inventory.latest_refresh;
  return (
    <div className="inventory-summary">
      {inventory.partial ? (
        <p role="status" className="restricted">
          Partial inventory: no completed refresh yet, a failed or retried one, or an incomplete catalogue.
          What is not listed was not observed, which is not evidence that it is absent.
        </p>
      ) : null}
      <dl className="facts">
        <div>
          <dt>Subjects</dt>
          <dd>
            {inventory.totals.subjects} ({inventory.totals.services} services on {inventory.totals.hosts}{' '}
            hosts, {inventory.totals.domain_registrations} domain registrations)
          </dd>
        </div>
        <div>
          <dt>Catalogue associations</dt>
          <dd>
            {inventory.totals.kev} KEV · {inventory.totals.matched} matched (associations, not an assessment)
          </dd>
        </div>
        <div>
          <dt>Evaluation</dt>
          <dd>
            {inventory.evaluation.evaluated} of {inventory.evaluation.eligible} eligible services evaluated
            {inventory.evaluation.complete ? ' (complete)' : ' (incomplete)'}
            {inventory.evaluation.catalogue_version !== null
              ? ` · catalogue v${inventory.evaluation.catalogue_version}`
              : ' · no catalogue version'}
          </dd>
        </div>
        <div>
          <dt>Observations</dt>
          <dd>
            first seen {when(inventory.observations.first_seen)} · last seen{' '}
            {when(inventory.observations.last_seen)} · refreshed {when(inventory.observations.refreshed_at)}
          </dd>
        </div>
        <div>
          <dt>Latest refresh</dt>
          <dd>
            {refresh
              ? `${words(refresh.status)} · requested ${when(refresh.requested_at)}` +
                (refresh.error ? ` · ${refresh.error}` : '')
              : 'none yet'}
          </dd>
        </div>
        <div>
          <dt>Monitoring</dt>
          <dd>
            {inventory.monitoring.enabled ? 'on' : 'off'} · {inventory.monitoring.note}
          </dd>
        </div>
      </dl>
      <CountChips
        title={`Service coverage (${coverage.services} services; ${coverage.excluded_shared_edge} shared-edge excluded)`}
        counts={coverage.by_state}
      />
      <CountChips title="Processing" counts={coverage.by_processing} />
    </div>
  );
}

/** Counts by state as a compact list; a zero stays listed (dimmed), so no state silently disappears. */
function CountChips({ title, counts }: { title: string; counts: Record<string, number> }) {
  return (
    <div className="count-chips">
      <strong>{title}</strong>
      <ul>
        {Object.entries(counts).map(([state, count]) => (
          <li key={state} className={count === 0 ? 'zero' : undefined}>
            {words(state)} <b>{count}</b>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The displayed result: a missing one is "no result recorded", never "secure" or "absent". */
function resultText(subject: Subject): string {
  if (subject.kind !== 'service') return '—';
  if (!subject.result_state) return 'no result recorded';
  const text = RESULT_TEXT[subject.result_state] ?? words(subject.result_state);
  return subject.retained_result ? `${text} (retained from ${when(subject.result_at)})` : text;
}

function SubjectTable({ subjects, onDecide }: { subjects: Subject[]; onDecide: (s: Subject) => void }) {
  if (subjects.length === 0) return null;
  return (
    <div className="table-scroll">
      <table className="subjects">
        <thead>
          <tr>
            <th scope="col">Subject</th>
            <th scope="col">Observed software</th>
            <th scope="col">Coverage</th>
            <th scope="col">Result</th>
            <th scope="col">Processing</th>
            <th scope="col">Decision</th>
            <th scope="col">Last seen</th>
            <th scope="col">Action</th>
          </tr>
        </thead>
        <tbody>
          {subjects.map((subject) => (
            <tr key={subject.id} data-subject={subject.id}>
              <th scope="row">
                {subjectLabel(subject)}
                {subject.hostnames && subject.hostnames.length > 0 ? (
                  <small className="muted block">{subject.hostnames.join(', ')}</small>
                ) : null}
              </th>
              <td>
                {[subject.vendor, subject.product, subject.version_observed].filter(Boolean).join(' ') || '—'}
              </td>
              <td>
                {subject.coverage ? (
                  <span title={subject.coverage.reasons.join('; ')}>{words(subject.coverage.state)}</span>
                ) : (
                  '—'
                )}
              </td>
              <td>{resultText(subject)}</td>
              <td>{subject.processing ? words(subject.processing.state) : '—'}</td>
              <td>
                {words(subject.decision.state)}
                {subject.decision.conclusion ? ` · ${words(subject.decision.conclusion)}` : ''}
              </td>
              <td>
                {when(subject.last_seen)}
                {subject.observed_in_latest_refresh ? null : (
                  <small className="muted block">
                    not observed in the latest refresh (not evidence that it disappeared)
                  </small>
                )}
              </td>
              <td>
                <button type="button" className="link" onClick={() => onDecide(subject)}>
                  Decide<span className="visually-hidden"> on {subjectLabel(subject)}</span>
                </button>{' '}
                <Link to={`history?subject=${encodeURIComponent(subject.id)}`}>
                  History<span className="visually-hidden"> of {subjectLabel(subject)}</span>
                </Link>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const DECISIONS = ['new', 'investigating', 'acknowledged'] as const;
const CONCLUSIONS = ['kept', 'closed', 'updated', 'not_concerned', 'other'] as const;

/**
 * An attributed decision on a subject. The conclusion rules (a conclusion only when acknowledged; according_to
 * for closed and updated; a note for not_concerned and other; an announced date not in the future in the scope's
 * timezone) are the service's: the form says them and shows the service's refusal with its code and fields.
 */
function DecisionForm({
  orgId,
  clientId,
  subject,
  onDone,
}: {
  orgId: string;
  clientId: string;
  subject: Subject;
  onDone: () => void;
}) {
  const client = useQueryClient();
  const [fields, set] = useFields({
    decision: subject.decision.state as string,
    conclusion: subject.decision.conclusion ?? '',
    accordingTo: subject.decision.according_to ?? '',
    note: subject.decision.note ?? '',
    announcedDate: subject.decision.announced_date ?? '',
  });
  const [recorded, setRecorded] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  // The form opens below the table: move focus (and the view) to it, so keyboard users land where they work.
  useEffect(() => heading.current?.focus(), []);
  const decide = useMutation({
    mutationFn: () =>
      unwrap(
        api.PATCH('/api/v2/organizations/{orgId}/clients/{clientId}/exposure/subjects/{subjectId}', {
          params: { path: { orgId, clientId, subjectId: subject.id } },
          body: {
            version: subject.version,
            decision: fields.decision as (typeof DECISIONS)[number],
            conclusion: fields.conclusion ? (fields.conclusion as (typeof CONCLUSIONS)[number]) : null,
            according_to: fields.accordingTo || null,
            note: fields.note || null,
            announced_date: fields.announcedDate || null,
          },
        }),
      ),
    onSuccess: async () => {
      setRecorded(true);
      await client.invalidateQueries({ queryKey: ['organizations', orgId, 'clients', clientId] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!isRoleRefusal(decide.error)) decide.mutate();
  };
  return (
    <section aria-labelledby="decision-heading" className="panel">
      <h3 id="decision-heading" tabIndex={-1} ref={heading}>
        Decision on {subjectLabel(subject)}
      </h3>
      <p className="muted">
        A decision is an attributed declaration: it deletes no observation, and a later observation can reopen
        the subject. A conclusion is given only when acknowledged; closed and updated need &quot;according
        to&quot;; not concerned and other need a note.
      </p>
      <form onSubmit={submit}>
        <label>
          Decision
          <select value={fields.decision} onChange={(e) => set('decision')(e.target.value)}>
            {DECISIONS.map((value) => (
              <option key={value} value={value}>
                {words(value)}
              </option>
            ))}
          </select>
        </label>
        <label>
          Conclusion
          <select value={fields.conclusion} onChange={(e) => set('conclusion')(e.target.value)}>
            <option value="">(none)</option>
            {CONCLUSIONS.map((value) => (
              <option key={value} value={value}>
                {words(value)}
              </option>
            ))}
          </select>
        </label>
        <label>
          According to
          <input value={fields.accordingTo} onChange={(e) => set('accordingTo')(e.target.value)} />
        </label>
        <label>
          Note
          <textarea rows={3} value={fields.note} onChange={(e) => set('note')(e.target.value)} />
        </label>
        <label>
          Announced date (optional, in the scope&apos;s timezone)
          <input
            type="date"
            value={fields.announcedDate}
            onChange={(e) => set('announcedDate')(e.target.value)}
          />
        </label>
        <div className="row">
          <ActionButton
            type="submit"
            label="Record decision"
            refusal={decide.error}
            pending={decide.isPending}
          />
          <button type="button" className="secondary" onClick={onDone}>
            Close
          </button>
        </div>
        {recorded && !decide.error ? (
          <p role="status" className="state-ok">
            Decision recorded.
          </p>
        ) : null}
        <Refusal what="Recording a decision" error={decide.error} />
      </form>
    </section>
  );
}
