import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { ApiError } from '../api/client';
import { ErrorView } from '../app/error-view';
import { useBadges } from './search/badges';
import { DatasetPanel } from './search/dataset-panel';
import { FieldsHelp, PriceList, useSearchFields } from './search/fields-help';
import { applyChunk, endOfStream, startView, type Dataset, type SearchView } from './search/search-state';
import { streamSearch, type SearchRequestBody, type TimeFrame } from './search/stream';
import './search/search.css';

const TIME_FRAMES: ReadonlyArray<{ value: TimeFrame; label: string }> = [
  { value: 'all_time', label: 'All time' },
  { value: 'last_24h', label: 'Last 24 hours' },
  { value: 'last_7d', label: 'Last 7 days' },
  { value: 'last_30d', label: 'Last 30 days' },
  { value: 'this_year', label: 'This year' },
];

const credits = (amount: number) => `${amount} credit${amount === 1 ? '' : 's'}`;

function StreamSummary({ view }: { view: SearchView }) {
  if (view.phase === 'running')
    return (
      <p role="status" className="stream-state">
        Searching… results appear per dataset as each answers.
      </p>
    );
  if (view.phase === 'failed' && view.error)
    return (
      <ErrorView
        error={new ApiError(200, view.error.code, view.error.message, undefined, undefined)}
        title="The search stopped"
      />
    );
  if (view.phase === 'incomplete')
    return (
      <p role="alert" className="restricted stream-state">
        {view.stoppedByPerson ? 'You stopped the search' : 'The connection ended before the search finished'}:
        this answer is incomplete. Datasets without an answer are not zero-match results.
      </p>
    );
  const outcome = view.outcome;
  if (!outcome) return null;
  return (
    <p role="status" className="stream-state" data-testid="search-complete">
      Search complete. Charged <strong>{credits(outcome.credits_charged)}</strong>.
      {outcome.partial ? ' Some datasets did not answer: this is a partial answer.' : ''}
      {outcome.lower_bound ? ' Some totals are lower bounds.' : ''}
    </p>
  );
}

/** The researcher's unified search (issue 19): streamed per dataset, honest states, prices from the service. */
export default function SearchPage() {
  const fields = useSearchFields();
  const ids = { query: useId(), frame: useId(), limit: useId(), broad: useId() };
  const [query, setQuery] = useState('');
  const [timeFrame, setTimeFrame] = useState<TimeFrame>('all_time');
  const [limit, setLimit] = useState(10);
  const [broad, setBroad] = useState(false);
  const [view, setView] = useState<SearchView | null>(null);
  const [refusal, setRefusal] = useState<unknown>(null);
  const [request, setRequest] = useState<SearchRequestBody | null>(null);
  const [run, setRun] = useState(0);
  const running = useRef<AbortController | null>(null);

  useEffect(() => () => running.current?.abort(), []);

  async function search(body: SearchRequestBody) {
    running.current?.abort();
    const controller = new AbortController();
    running.current = controller;
    const datasets = (fields.data?.datasets ?? ['hosts', 'dns', 'vhosts', 'whois']) as Dataset[];
    setRefusal(null);
    setRequest(body);
    setRun((count) => count + 1);
    setView(startView(datasets));
    try {
      await streamSearch(
        body,
        (chunk) => {
          if (running.current !== controller) return;
          setView((current) => (current ? applyChunk(current, chunk) : current));
          // Further pages use the limit the service applied (positive values are capped).
          if (chunk.type === 'final') setRequest({ ...body, per_type_limit: chunk.query.per_type_limit });
        },
        controller.signal,
      );
    } catch (error) {
      if (running.current !== controller) return;
      running.current = null;
      if (controller.signal.aborted) {
        setView((current) => (current ? endOfStream(current, true) : current));
        return;
      }
      setView(null);
      setRefusal(error);
      return;
    }
    if (running.current !== controller) return;
    setView((current) => (current ? endOfStream(current, controller.signal.aborted) : current));
    running.current = null;
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    void search({ raw_query: query, time_frame: timeFrame, per_type_limit: limit, broad });
  }

  function relatedSearch(related: string) {
    setQuery(related);
    void search({ raw_query: related, time_frame: timeFrame, per_type_limit: limit, broad });
  }

  const complete = view?.phase === 'complete';
  const firstItems = view?.datasets.flatMap((entry) => entry.items) ?? [];
  const badges = useBadges(firstItems, complete);

  return (
    <div className="search-page">
      <h1>Search</h1>
      <form className="search-form" onSubmit={submit} role="search">
        <label htmlFor={ids.query}>
          Query
          <input
            id={ids.query}
            value={query}
            onChange={(event) => setQuery(event.target.value)}
            placeholder="product:nginx port:443"
            required
            maxLength={512}
            aria-describedby={`${ids.query}-help`}
          />
        </label>
        <p id={`${ids.query}-help`} className="muted">
          One query searches hosts, DNS, certificates (vhosts) and WHOIS at once. The fields you can use are
          listed below.
        </p>
        <div className="search-options">
          <label htmlFor={ids.frame}>
            Time frame
            <select
              id={ids.frame}
              value={timeFrame}
              onChange={(event) => setTimeFrame(event.target.value as TimeFrame)}
            >
              {TIME_FRAMES.map((frame) => (
                <option key={frame.value} value={frame.value}>
                  {frame.label}
                </option>
              ))}
            </select>
          </label>
          <label htmlFor={ids.limit}>
            Results per dataset
            <input
              id={ids.limit}
              type="number"
              min={1}
              max={25}
              value={limit}
              onChange={(event) => setLimit(Number(event.target.value))}
            />
          </label>
          <label htmlFor={ids.broad} className="checkbox">
            <input
              id={ids.broad}
              type="checkbox"
              checked={broad}
              onChange={(event) => setBroad(event.target.checked)}
            />
            Search bare words literally (broad)
          </label>
        </div>
        <div className="search-actions">
          <button type="submit">Search</button>
          {view?.phase === 'running' ? (
            <button type="button" className="secondary" onClick={() => running.current?.abort()}>
              Stop
            </button>
          ) : null}
        </div>
      </form>
      {fields.data ? (
        <>
          <PriceList prices={fields.data.prices} />
          <FieldsHelp fields={fields.data} />
        </>
      ) : null}
      <ErrorView error={fields.error} title="The fields vocabulary is not available" />
      <ErrorView error={refusal} title="The search was refused" />
      {view ? (
        <div
          className="search-results"
          aria-live="polite"
          aria-busy={view.phase === 'running'}
          data-run={run}
        >
          <StreamSummary view={view} />
          {view.datasets.map((entry) => (
            <DatasetPanel
              key={`${run}-${entry.dataset}`}
              entry={entry}
              phase={view.phase}
              request={complete ? request : null}
              badges={badges}
              onRelatedSearch={relatedSearch}
            />
          ))}
        </div>
      ) : null}
    </div>
  );
}
