import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { Refusal, when, words, type HistoryPage } from './scope-shared';

/** History pages are fixed at 50 newest entries by the service. */
const PAGE = 50;

/** The scope's attributed history, newest first, optionally one subject's; the address keeps subject and offset. */
export function HistoryTimeline({ orgId, clientId }: { orgId: string; clientId: string }) {
  const [search, setSearch] = useSearchParams();
  const offset = Math.max(0, Number(search.get('offset') ?? 0) || 0);
  const subject = search.get('subject') ?? '';
  const [typed, setTyped] = useState(subject);
  const history = useQuery({
    queryKey: ['organizations', orgId, 'clients', clientId, 'history', { offset, subject }],
    queryFn: () =>
      unwrap(
        api.GET('/api/v2/organizations/{orgId}/clients/{clientId}/exposure/history', {
          params: { path: { orgId, clientId }, query: { offset, ...(subject ? { subject } : {}) } },
        }),
      ) as Promise<HistoryPage>,
    placeholderData: keepPreviousData,
  });
  const go = (next: { offset?: number; subject?: string }) => {
    const params = new URLSearchParams();
    const chosen = next.subject ?? subject;
    if (chosen) params.set('subject', chosen);
    if (next.offset) params.set('offset', String(next.offset));
    setSearch(params);
  };
  const filter = (event: FormEvent) => {
    event.preventDefault();
    go({ subject: typed.trim(), offset: 0 });
  };
  const data = history.data;
  return (
    <section aria-labelledby="history-heading">
      <h3 id="history-heading">History</h3>
      <form onSubmit={filter} className="row inline-form" aria-label="Filter history">
        <label>
          Subject id
          <input value={typed} onChange={(e) => setTyped(e.target.value)} placeholder="svc-…" />
        </label>
        <button type="submit">Filter</button>
        {subject ? (
          <button
            type="button"
            className="secondary"
            onClick={() => {
              setTyped('');
              setSearch(new URLSearchParams());
            }}
          >
            All subjects
          </button>
        ) : null}
      </form>
      <Refusal what="The history" error={history.error} />
      {history.isPending ? <p role="status">Loading the history…</p> : null}
      {data ? (
        <>
          <p role="status" className="muted">
            {data.entries.length === 0
              ? 'No history entry.'
              : `Entries ${data.offset + 1}–${data.offset + data.entries.length} of ${data.total}, newest first` +
                (data.subject ? ` for ${data.subject}` : '')}
          </p>
          <ol className="timeline">
            {data.entries.map((entry) => (
              <li key={entry.id}>
                <time dateTime={entry.at}>{when(entry.at)}</time>
                <strong> {entry.summary}</strong>
                <span className="muted">
                  {' '}
                  · {words(entry.type)} · by {entry.actor}
                  {entry.payer !== entry.actor ? ` on behalf of ${entry.payer}` : ''}
                  {entry.subject_id ? ` · ${entry.subject_id}` : ''}
                </span>
              </li>
            ))}
          </ol>
          <nav aria-label="History pages" className="row">
            <button
              type="button"
              className="secondary"
              disabled={offset === 0}
              onClick={() => go({ offset: Math.max(0, offset - PAGE) })}
            >
              Newer
            </button>
            <button
              type="button"
              className="secondary"
              disabled={data.offset + data.entries.length >= data.total}
              onClick={() => go({ offset: offset + PAGE })}
            >
              Older
            </button>
          </nav>
        </>
      ) : null}
    </section>
  );
}
