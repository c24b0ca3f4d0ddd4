import type { ExposureWatchDocument } from '../../../projections/exposure-monitoring.projection.js';

/** The inventory's monitoring block: whether watches run, the baseline, and what the latest watch run found. */
export function monitoringView(enabled: boolean, watch: ExposureWatchDocument | null) {
  const latest = watch?.latest ?? null;
  return {
    enabled,
    baseline: watch?.baseline
      ? {
          run_id: watch.baseline.runId,
          established_at: watch.baseline.finishedAt,
          services: watch.baseline.services,
        }
      : null,
    latest_watch: latest
      ? {
          run_id: latest.runId,
          outcome: latest.outcome,
          finished_at: latest.finishedAt,
          newly_observed_services: latest.newServices,
          new_kev_associations: latest.newKev,
          not_observed_in_this_run: latest.notObserved,
          partial: latest.partial,
          reason: latest.reason,
        }
      : null,
    note: 'A service not observed in a watch run is not evidence that it disappeared; missing or partial data proves nothing.',
  };
}
