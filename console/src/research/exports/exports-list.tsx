import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState } from 'react';
import { api, unwrap } from '../../api/client';
import { ErrorView } from '../../app/error-view';
import { downloadHref, exportsKey, isFinished, POLL_INTERVAL_MS, type ExportJob } from './export-types';
import { count, credits, dateTime } from './format';

/** The account's exports, newest first: download, cancel a running one, delete one, or delete all (confirmed). */
export function ExportsList() {
  const headingId = useId();
  const client = useQueryClient();
  const list = useQuery({
    queryKey: exportsKey,
    queryFn: () => unwrap(api.GET('/api/v2/data/exports')),
    // While any export still runs, its row keeps moving.
    refetchInterval: (query) =>
      query.state.data?.exports.some((job) => !isFinished(job)) ? POLL_INTERVAL_MS : false,
  });
  const refresh = () => client.invalidateQueries({ queryKey: exportsKey });
  const removeOne = useMutation({
    mutationFn: (exportId: string) =>
      unwrap(api.DELETE('/api/v2/data/exports/{exportId}', { params: { path: { exportId } } })),
    onSettled: refresh,
  });
  const removeAll = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/v2/data/exports')),
    onSettled: refresh,
  });
  const jobs = list.data?.exports ?? [];

  return (
    <section aria-labelledby={headingId}>
      <h2 id={headingId}>Your exports</h2>
      <ErrorView error={list.error} title="The exports could not be listed" />
      <ErrorView error={removeOne.error} title="Not removed" />
      {removeOne.data ? (
        <p role="status" className="muted">
          Export {removeOne.data.outcome}.
        </p>
      ) : null}
      {list.isPending ? <p className="muted">Loading the exports…</p> : null}
      {list.data && jobs.length === 0 ? <p className="muted">No exports yet.</p> : null}
      {jobs.length > 0 ? (
        <p className="muted" id={`${headingId}-note`}>
          Newest first. Files stay available until their expiry.
        </p>
      ) : null}
      {jobs.length > 0 ? (
        <div className="table-scroll">
          <table aria-labelledby={headingId} aria-describedby={`${headingId}-note`}>
            <thead>
              <tr>
                <th scope="col">Created</th>
                <th scope="col">Dataset</th>
                <th scope="col">Query</th>
                <th scope="col">Format</th>
                <th scope="col">Status</th>
                <th scope="col">Rows</th>
                <th scope="col">Charged</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {jobs.map((job) => (
                <ExportRow
                  key={job.id}
                  job={job}
                  busy={removeOne.isPending && removeOne.variables === job.id}
                  onRemove={() => removeOne.mutate(job.id)}
                />
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {jobs.length > 0 ? (
        <DeleteAll pending={removeAll.isPending} onConfirm={() => removeAll.mutate()} />
      ) : null}
      <ErrorView error={removeAll.error} title="Not deleted" />
      {removeAll.data ? (
        <p role="status">
          {count(removeAll.data.deleted_count)} deleted, {count(removeAll.data.cancelled_count)} cancelled.
        </p>
      ) : null}
    </section>
  );
}

function ExportRow({ job, busy, onRemove }: { job: ExportJob; busy: boolean; onRemove: () => void }) {
  const running = !isFinished(job);
  const label = `${running ? 'Cancel' : 'Delete'} export of ${job.raw_query} (${dateTime(job.created_at)})`;
  return (
    <tr>
      <td>{dateTime(job.created_at)}</td>
      <td>{job.search_type}</td>
      <td>
        <code>{job.raw_query}</code>
      </td>
      <td>{job.format}</td>
      <td>
        <span className={`status status-${job.status}`}>{job.status}</span>
        {job.was_truncated ? <span className="muted"> (truncated)</span> : null}
      </td>
      <td>
        {count(job.results_count)} of {count(job.estimated_count)}
      </td>
      <td>{credits(job.credits_consumed)}</td>
      <td>
        <div className="row-actions">
          {job.file_available ? (
            <a href={downloadHref(job)} download>
              Download
            </a>
          ) : null}
          <button type="button" className="secondary" aria-label={label} disabled={busy} onClick={onRemove}>
            {running ? 'Cancel' : 'Delete'}
          </button>
        </div>
      </td>
    </tr>
  );
}

/** Deleting every export asks first; the question takes the focus, and Escape or "Keep them" closes it. */
function DeleteAll({ pending, onConfirm }: { pending: boolean; onConfirm: () => void }) {
  const [asking, setAsking] = useState(false);
  const confirmRef = useRef<HTMLButtonElement>(null);
  const openerRef = useRef<HTMLButtonElement>(null);
  const questionId = useId();
  const wasAsking = useRef(false);
  // The question takes the focus; closing it gives the focus back to the button that opened it.
  useEffect(() => {
    if (asking) confirmRef.current?.focus();
    else if (wasAsking.current) openerRef.current?.focus();
    wasAsking.current = asking;
  }, [asking]);
  const close = () => setAsking(false);
  if (!asking) {
    return (
      <p>
        <button type="button" className="secondary" ref={openerRef} onClick={() => setAsking(true)}>
          Delete all exports…
        </button>
      </p>
    );
  }
  return (
    <div
      role="alertdialog"
      aria-labelledby={questionId}
      className="confirm"
      onKeyDown={(event) => {
        if (event.key === 'Escape') close();
      }}
    >
      <p id={questionId}>
        Delete every finished export with its file, and cancel the running ones? This cannot be undone.
      </p>
      <button
        type="button"
        ref={confirmRef}
        disabled={pending}
        onClick={() => {
          onConfirm();
          setAsking(false);
        }}
      >
        Yes, delete all exports
      </button>{' '}
      <button type="button" className="secondary" onClick={close}>
        Keep them
      </button>
    </div>
  );
}
