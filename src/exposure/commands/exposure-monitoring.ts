import {
  EXPOSURE_WATCH,
  type ExposureWatchDocument,
} from '../../../projections/exposure-monitoring.projection.js';
import type { Principal } from '../../platform/auth/access.js';
import type { CommandEnvelope } from '../../platform/event-sourcing/command-metadata.js';
import type { ServiceContext } from '../../platform/service-context.js';
import { memberOf, reachesSpace, type OrganizationState } from '../../organizations/domain/organization.js';
import { isStaff } from '../../organizations/domain/roles.js';
import { spaceDecider, spaceStreamId, type SpaceState } from '../../organizations/domain/space.js';
import {
  notificationPreferenceDecider,
  notificationStreamId,
  type NotificationPreferenceState,
} from '../domain/notification-preference.js';
import { WATCH_INTERVAL_MS } from '../domain/watch.js';
import { scopeView, ExposureQueries } from '../queries/exposure-queries.js';
import type { ExposureGate } from './exposure-access.js';
import { bodyVersion, EXPOSURE_PROJECTIONS, withBodyVersion } from './exposure-commands.js';

export const MONITORING_PROJECTIONS = [...EXPOSURE_PROJECTIONS, 'exposure-monitoring'];

/** Staff members who may receive a scope's email now: a member, not an external client, reaching the scope. */
export function eligibleRecipients(state: OrganizationState, scopeId: string): Set<string> {
  return new Set(
    Object.keys(state.members).filter((accountId) => {
      const member = memberOf(state, accountId);
      return member !== undefined && isStaff(member.role) && reachesSpace(state, accountId, scopeId);
    }),
  );
}

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

/**
 * Monitoring and email preference of a scope (issue 8, item 7): PUT …/monitoring (explicit activation; the
 * scheduler then requests one watch run per day), GET/PUT …/notifications (owner or administrator).
 */
export class ExposureMonitoring {
  /** Set by the module: wakes the monitor when monitoring is activated. */
  onMonitoringChanged: () => void = () => undefined;

  constructor(
    private readonly context: ServiceContext,
    private readonly gate: ExposureGate,
  ) {}

  private watchDocument(scopeId: string) {
    return this.context.projections
      .collection<ExposureWatchDocument>('exposure-monitoring', EXPOSURE_WATCH)
      .get(scopeId);
  }

  async monitoring(principal: Principal, organizationId: string, scopeId: string) {
    const scope = await this.gate.scope(principal, organizationId, scopeId, {
      capability: 'work.internal',
      write: false,
    });
    return watchView(scope.space, await this.watchDocument(scopeId));
  }

  async setMonitoring(
    principal: Principal,
    organizationId: string,
    scopeId: string,
    enabled: boolean,
    expectedVersion: number | undefined,
    envelope: CommandEnvelope,
  ) {
    await this.gate.scope(principal, organizationId, scopeId, { capability: 'spaces.manage', write: true });
    const result = await this.context.repository.handle(
      spaceStreamId(scopeId),
      spaceDecider,
      { type: 'SetMonitoring', enabled },
      { now: this.context.clock.now() },
      {
        commandId: envelope.commandId,
        metadata: { ...envelope.metadata, payer: `organization:${organizationId}`, scope: scopeId },
      },
      expectedVersion === undefined ? {} : { expectedVersion },
    );
    await this.context.readYourWrites(MONITORING_PROJECTIONS, result.position);
    if (enabled) this.onMonitoringChanged();
    const scope = await new ExposureQueries(this.context).scopeDocument(scopeId);
    return {
      monitoring: watchView(result.state, await this.watchDocument(scopeId)),
      scope: scopeView(scope),
    };
  }

  async preference(principal: Principal, organizationId: string, scopeId: string) {
    await this.gate.scope(principal, organizationId, scopeId, { capability: 'spaces.manage', write: false });
    const loaded = await this.context.repository.load(
      notificationStreamId(scopeId),
      notificationPreferenceDecider,
    );
    return preferenceView(loaded.state);
  }

  async savePreference(
    principal: Principal,
    organizationId: string,
    scopeId: string,
    body: { enabled: unknown; recipients: unknown; language: unknown; version: unknown },
    envelope: CommandEnvelope,
  ) {
    const version = bodyVersion(body.version);
    const scope = await this.gate.scope(principal, organizationId, scopeId, {
      capability: 'spaces.manage',
      write: true,
    });
    const result = await withBodyVersion(() =>
      this.context.repository.handle(
        notificationStreamId(scopeId),
        notificationPreferenceDecider,
        {
          type: 'SaveNotificationPreference',
          scopeId,
          organizationId,
          enabled: body.enabled,
          recipients: body.recipients,
          language: body.language,
          eligible: eligibleRecipients(scope.access.state, scopeId),
        },
        { now: this.context.clock.now() },
        {
          commandId: envelope.commandId,
          metadata: { ...envelope.metadata, payer: `organization:${organizationId}`, scope: scopeId },
        },
        { expectedVersion: version - 1 },
      ),
    );
    await this.context.readYourWrites(['exposure-history'], result.position);
    return preferenceView(result.state);
  }
}
