import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId } from 'react';
import { api, unwrap } from '../../api/client';
import { ErrorView } from '../../app/error-view';
import { downloadHref, exportsKey, isFinished, POLL_INTERVAL_MS, type ExportJob } from './export-types';
import { bytes, count, credits, dateTime } from './format';

/** The export just started: polled until it finishes, then its file (or why there is none). */
export function ExportProgress({ exportId }: { exportId: string }) {
  const headingId = useId();
  const client = useQueryClient();
  const poll = useQuery({
    queryKey: [...exportsKey, exportId],
    queryFn: () =>
      unwrap(api.GET('/api/v2/data/exports/{exportId}/poll', { params: { path: { exportId } } })),
    refetchInterval: (query) => (query.state.data && isFinished(query.state.data) ? false : POLL_INTERVAL_MS),
  });
  const job = poll.data;
  const finished = job ? isFinished(job) : false;
  // The list shows the final state (rows, charge, file) as soon as this export has it.
  useEffect(() => {
    if (finished) void client.invalidateQueries({ queryKey: exportsKey, exact: true });
  }, [finished, client]);

  return (
    <section aria-labelledby={headingId} className="export-progress">
      <h2 id={headingId}>Latest export</h2>
      <ErrorView error={poll.error} title="The export could not be read" />
      {job ? <ExportState job={job} /> : poll.isPending ? <p className="muted">Reading the export…</p> : null}
    </section>
  );
}

/** One export's state as the service reports it: rows, charge, truncation, failure, and its file or why there is none. */
export function ExportState({ job }: { job: ExportJob }) {
  return (
    <div>
      <p>
        <span className={`status status-${job.status}`} data-testid="export-status">
          {job.status}
        </span>{' '}
        {job.search_type} · <code>{job.raw_query}</code> · {job.format.toUpperCase()}
      </p>
      <label>
        Rows written
        <progress
          max={Math.max(job.estimated_count, 1)}
          value={Math.min(job.results_count, Math.max(job.estimated_count, 1))}
          aria-valuetext={`${count(job.results_count)} of ${count(job.estimated_count)} rows`}
        />
      </label>
      <p aria-live="polite" data-testid="export-rows">
        {count(job.results_count)} of {count(job.estimated_count)} rows · {credits(job.credits_consumed)}
      </p>
      {job.was_truncated ? (
        <p className="restricted" data-testid="export-truncated">
          Truncated: {job.truncation_reason ?? 'the balance or the quota covered only part of the rows.'}
        </p>
      ) : null}
      {job.status === 'failed' ? (
        <p className="error" role="alert">
          The export failed{job.failure_reason ? `: ${job.failure_reason}` : '.'}
        </p>
      ) : null}
      {job.status === 'cancelled' ? <p className="unavailable">The export was cancelled: no file.</p> : null}
      {job.file_available ? (
        <p>
          <a href={downloadHref(job)} download className="download">
            Download the {job.format.toUpperCase()} file
          </a>{' '}
          <span className="muted">
            ({bytes(job.original_size_bytes)}; available until {dateTime(job.expires_at)})
          </span>
        </p>
      ) : job.status === 'completed' ? (
        <p className="unavailable">The file expired: run the export again.</p>
      ) : null}
    </div>
  );
}
