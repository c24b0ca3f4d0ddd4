import {
  EXPOSURE_WATCH,
  type ExposureWatchDocument,
} from '../../../projections/exposure-monitoring.projection.js';
import type { Principal } from '../../platform/auth/access.js';
import type { StreamReader } from '../../platform/event-sourcing/stream-reader.js';
import type { ProjectionRunner } from '../../platform/projections/projection-runner.js';
import type { SpaceState } from '../../organizations/domain/space.js';
import type { ExposureGate } from '../commands/exposure-access.js';
import {
  notificationPreferenceDecider,
  notificationStreamId,
  type NotificationPreferenceState,
} from '../domain/notification-preference.js';
import { WATCH_INTERVAL_MS } from '../domain/watch.js';
import { scopeView, type ExposureQueries } from './exposure-queries.js';

export function preferenceView(preference: NotificationPreferenceState) {
  return {
    enabled: preference.enabled,
    recipients: preference.recipients,
    language: preference.language,
    version: preference.version,
    saved_at: preference.savedAt,
    // Events 2: saving confirms nothing; eligibility and freshness are checked again at each delivery.
    delivery:
      'Emails follow watch runs that observe new services or new KEV associations. Saving this preference sends ' +
      'nothing and confirms no delivery; recipients and observation freshness are checked again when an email is due.',
  };
}

export function watchView(space: SpaceState, watch: ExposureWatchDocument | null) {
  const schedule = space.schedule;
  const current = watch && schedule && watch.scheduleId === schedule.scheduleId ? watch : null;
  return {
    enabled: schedule !== null,
    schedule_id: schedule?.scheduleId ?? null,
    activated_at: schedule?.activatedAt ?? null,
    interval_hours: WATCH_INTERVAL_MS / 3_600_000,
    baseline: current?.baseline
      ? {
          run_id: current.baseline.runId,
          established_at: current.baseline.finishedAt,
          services: current.baseline.services,
        }
      : null,
    latest_watch: current?.latest
      ? {
          run_id: current.latest.runId,
          outcome: current.latest.outcome,
          finished_at: current.latest.finishedAt,
          newly_observed_services: current.latest.newServices,
          new_kev_associations: current.latest.newKev,
          // Never "disappeared": missing or partial data proves nothing about a service.
          not_observed_in_this_run: current.latest.notObserved,
          partial: current.latest.partial,
          reason: current.latest.reason,
        }
      : null,
    notice:
      'Watches refresh the inventory from previously collected observations; no asset is contacted. The first ' +
      'complete watch run is the baseline. A service not observed in a watch run is not evidence that it disappeared.',
  };
}

/** Reads of a scope's monitoring and email preference (GET …/monitoring, GET …/notifications). */
export class ExposureMonitoringQueries {
  constructor(
    private readonly gate: ExposureGate,
    private readonly streams: StreamReader,
    private readonly projections: ProjectionRunner,
    private readonly queries: ExposureQueries,
  ) {}

  private watchDocument(scopeId: string) {
    return this.projections
      .collection<ExposureWatchDocument>('exposure-monitoring', EXPOSURE_WATCH)
      .get(scopeId);
  }

  async monitoring(principal: Principal, organizationId: string, scopeId: string) {
    const scope = await this.gate.scope(principal, organizationId, scopeId, {
      capability: 'exposure.scopes.read',
      write: false,
    });
    return watchView(scope.space, await this.watchDocument(scopeId));
  }

  /** What PUT …/monitoring answers: the monitoring as the space now holds it, and the scope. */
  async afterChange(scopeId: string, space: SpaceState) {
    return {
      monitoring: watchView(space, await this.watchDocument(scopeId)),
      scope: scopeView(await this.queries.scopeDocument(scopeId)),
    };
  }

  async preference(principal: Principal, organizationId: string, scopeId: string) {
    await this.gate.scope(principal, organizationId, scopeId, { write: false });
    const loaded = await this.streams.load(notificationStreamId(scopeId), notificationPreferenceDecider);
    return preferenceView(loaded.state);
  }
}
