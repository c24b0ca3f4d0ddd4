import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { api, unwrap } from '../../api/client';
import { ErrorView } from '../../app/error-view';
import {
  FORMATS,
  SEARCH_TYPES,
  TIME_FRAMES,
  type ExportEstimate,
  type ExportFormat,
  type SearchType,
  type TimeFrame,
  exportsKey,
} from './export-types';
import { bytes, count, credits } from './format';

interface Draft {
  readonly searchType: SearchType;
  readonly rawQuery: string;
  readonly timeFrame: TimeFrame;
  readonly format: ExportFormat;
}

/**
 * Estimate (free), then start: the export started is exactly the one estimated. Changing any field drops the
 * estimate, so the price shown is always the price of what Start sends. Rows, credits and quota are the service's.
 */
export function NewExport({ onStarted }: { onStarted: (exportId: string) => void }) {
  const [draft, setDraft] = useState<Draft>({
    searchType: 'hosts',
    rawQuery: '',
    timeFrame: 'all_time',
    format: 'csv',
  });
  const [estimated, setEstimated] = useState<{ draft: Draft; estimate: ExportEstimate } | null>(null);
  const ids = useId();
  const client = useQueryClient();

  const estimate = useMutation({
    mutationFn: (asked: Draft) =>
      unwrap(
        api.POST('/api/v2/data/exports/{searchType}/estimate', {
          params: { path: { searchType: asked.searchType } },
          body: {
            raw_query: asked.rawQuery,
            time_frame: asked.timeFrame,
            format: asked.format,
            broad: false,
          },
        }),
      ).then((answer) => ({ draft: asked, estimate: answer })),
    onSuccess: setEstimated,
  });
  const start = useMutation({
    mutationFn: (asked: Draft) =>
      unwrap(
        api.POST('/api/v2/data/exports/{searchType}', {
          params: { path: { searchType: asked.searchType } },
          body: {
            raw_query: asked.rawQuery,
            time_frame: asked.timeFrame,
            format: asked.format,
            broad: false,
          },
        }),
      ),
    onSuccess: (created) => {
      setEstimated(null);
      onStarted(created.export_id);
      void client.invalidateQueries({ queryKey: exportsKey, exact: true });
    },
  });

  function change<K extends keyof Draft>(key: K, value: Draft[K]) {
    setDraft((current) => ({ ...current, [key]: value }));
    setEstimated(null);
    estimate.reset();
    start.reset();
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    start.reset();
    estimate.mutate(draft);
  }

  const shown = estimated?.estimate;
  return (
    <section aria-labelledby={`${ids}-heading`} className="new-export">
      <h2 id={`${ids}-heading`}>New export</h2>
      <form onSubmit={submit} className="export-form">
        <label>
          Dataset
          <select
            value={draft.searchType}
            onChange={(event) => change('searchType', event.target.value as SearchType)}
          >
            {SEARCH_TYPES.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
        </label>
        <label className="wide">
          Query
          <input
            value={draft.rawQuery}
            required
            placeholder="port:443"
            onChange={(event) => change('rawQuery', event.target.value)}
          />
        </label>
        <label>
          Time frame
          <select
            value={draft.timeFrame}
            onChange={(event) => change('timeFrame', event.target.value as TimeFrame)}
          >
            {TIME_FRAMES.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Format
          <select
            value={draft.format}
            onChange={(event) => change('format', event.target.value as ExportFormat)}
          >
            {FORMATS.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
        </label>
        <div className="actions">
          <button type="submit" disabled={estimate.isPending}>
            {estimate.isPending ? 'Estimating…' : 'Estimate (free)'}
          </button>
        </div>
      </form>
      <ErrorView error={estimate.error} title="Estimate refused" />
      {shown ? (
        <div className="estimate" aria-labelledby={`${ids}-estimate`} role="region">
          <h3 id={`${ids}-estimate`}>Estimate</h3>
          <dl>
            <dt>Matching rows</dt>
            <dd data-testid="estimate-rows">{count(shown.estimated_count)}</dd>
            <dt>Price</dt>
            <dd data-testid="estimate-credits">
              {credits(shown.estimated_credits)}{' '}
              <span className="muted">(charged on rows actually written)</span>
            </dd>
            <dt>Results quota this cycle</dt>
            <dd>
              {count(shown.quota_current.results_used)} of {count(shown.quota_current.results_max)} used;{' '}
              {count(shown.quota_after_export.results_used)} after this export
            </dd>
            <dt>Estimated file size</dt>
            <dd>{bytes(shown.estimated_file_size_bytes)} (compressed)</dd>
          </dl>
          {shown.will_be_partial ? (
            <p className="restricted">
              Partial export: your credits or quota cover {count(shown.partial_limit ?? 0)} of{' '}
              {count(shown.estimated_count)} rows; the export stops there.
            </p>
          ) : null}
          <button type="button" disabled={start.isPending} onClick={() => start.mutate(estimated.draft)}>
            {start.isPending ? 'Starting…' : `Start ${estimated.draft.format.toUpperCase()} export`}
          </button>
        </div>
      ) : null}
      <ErrorView error={start.error} title="Export refused" />
    </section>
  );
}
