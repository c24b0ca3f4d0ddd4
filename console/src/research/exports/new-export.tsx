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

/** A labelled select over a fixed list of values. */
function Choice<T extends string>({
  label,
  value,
  options,
  onChange,
}: {
  label: string;
  value: T;
  options: readonly { readonly value: T; readonly label: string }[];
  onChange: (value: T) => void;
}) {
  return (
    <label>
      {label}
      <select value={value} onChange={(event) => onChange(event.target.value as T)}>
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </label>
  );
}

interface Draft {
  readonly searchType: SearchType;
  readonly rawQuery: string;
  readonly timeFrame: TimeFrame;
  readonly format: ExportFormat;
}

/** Estimate and start send the same request: the export started is the one estimated. */
function requestBody(draft: Draft) {
  return { raw_query: draft.rawQuery, time_frame: draft.timeFrame, format: draft.format, broad: false };
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
          body: requestBody(asked),
        }),
      ).then((answer) => ({ draft: asked, estimate: answer })),
    onSuccess: setEstimated,
  });
  const start = useMutation({
    mutationFn: (asked: Draft) =>
      unwrap(
        api.POST('/api/v2/data/exports/{searchType}', {
          params: { path: { searchType: asked.searchType } },
          body: requestBody(asked),
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
        <Choice
          label="Dataset"
          value={draft.searchType}
          options={SEARCH_TYPES}
          onChange={(value) => change('searchType', value)}
        />
        <label className="wide">
          Query
          <input
            value={draft.rawQuery}
            required
            placeholder="port:443"
            onChange={(event) => change('rawQuery', event.target.value)}
          />
        </label>
        <Choice
          label="Time frame"
          value={draft.timeFrame}
          options={TIME_FRAMES}
          onChange={(value) => change('timeFrame', value)}
        />
        <Choice
          label="Format"
          value={draft.format}
          options={FORMATS}
          onChange={(value) => change('format', value)}
        />
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
