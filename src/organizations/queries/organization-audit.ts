import { Inject, Injectable } from '@nestjs/common';
import { auditKey, type AuditEntryDocument } from '../../../projections/audit-index.projection.js';
import { AuditLog, parseBound, parseCursor } from '../../audit/queries/audit-log.js';
import {
  chainVerificationStatus,
  type ChainVerificationStatus,
} from '../../audit/queries/chain-verification-status.js';
import {
  CREDENTIAL_STORE,
  type CredentialStore,
} from '../../platform/auth/credentials/credential-store.port.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import { EVENT_STORE, type EventStore } from '../../platform/event-store/event-store.port.js';
import { ProjectionRunner } from '../../platform/projections/projection-runner.js';
import { ServiceContext } from '../../platform/service-context.js';
import type { OrganizationAccess } from '../commands/organization-access.js';

export const AUDIT_DEFAULT_LIMIT = 50;
export const AUDIT_MAX_LIMIT = 200;
const ACTOR = /^(account|operator|system):[^\s]{1,200}$/;
const TYPE = /^[A-Za-z][A-Za-z0-9]{0,99}$/;

/** The query string of GET …/audit, as sent. */
export interface AuditLogQuery {
  readonly after?: unknown;
  readonly limit?: unknown;
  readonly actor?: unknown;
  readonly type?: unknown;
  readonly since?: unknown;
  readonly until?: unknown;
}

function refused(field: string, problem: string): ServiceError {
  return new ServiceError('invalid_input', `${field} ${problem}`, {
    fields: [{ field, problems: [problem] }],
  });
}

function text(query: AuditLogQuery, field: keyof AuditLogQuery): string | undefined {
  const value = query[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length === 0) throw refused(field, 'must be given once, not empty');
  return value;
}

/** An entry as owners and administrators read it: the event's envelope, never its payload or a secret. */
function entryView(entry: AuditEntryDocument, chain: ChainVerificationStatus) {
  return {
    position: entry.position,
    recorded_at: entry.recordedAt,
    type: entry.type,
    stream: entry.stream,
    stream_version: entry.streamVersion,
    event_id: entry.eventId,
    actor: entry.actor,
    on_behalf_of: entry.payer,
    scope: entry.scope,
    reason: entry.reason,
    credential: entry.credential ?? null,
    surface: entry.surface,
    request_id: entry.requestId,
    correlation_id: entry.correlationId,
    causation_id: entry.causationId,
    chain_verification: chain.of(entry.position),
  };
}

/**
 * GET /api/v2/organizations/{orgId}/audit (ADR 72): the organization's events from the audit index, oldest
 * first, paged by cursor. The access layer has already let only owners and administrators through.
 */
@Injectable()
export class OrganizationAuditLog {
  private readonly log: AuditLog;

  constructor(
    @Inject(ProjectionRunner) projections: ProjectionRunner,
    @Inject(EVENT_STORE) eventStore: EventStore,
    @Inject(CREDENTIAL_STORE) credentials: CredentialStore,
    @Inject(ServiceContext) private readonly context: ServiceContext,
  ) {
    this.log = new AuditLog({ projections, eventStore, credentials });
  }

  async page(access: OrganizationAccess, query: AuditLogQuery) {
    const limitText = text(query, 'limit');
    const limit = limitText === undefined ? AUDIT_DEFAULT_LIMIT : Number(limitText);
    if (!/^\d+$/.test(limitText ?? '1') || !Number.isInteger(limit) || limit < 1 || limit > AUDIT_MAX_LIMIT)
      throw refused('limit', `must be an integer from 1 to ${AUDIT_MAX_LIMIT}`);
    const after = text(query, 'after');
    const actor = text(query, 'actor');
    if (actor !== undefined && !ACTOR.test(actor))
      throw refused('actor', 'must be account:<id>, operator:<name> or system:<component>');
    const type = text(query, 'type');
    if (type !== undefined && !TYPE.test(type)) throw refused('type', 'must be an event type name');
    const since = text(query, 'since');
    const until = text(query, 'until');
    const page = await this.log.page({
      key: auditKey('organization', access.organizationId),
      limit,
      ...(after !== undefined ? { after: parseCursor(after) } : {}),
      ...(actor !== undefined ? { actor } : {}),
      ...(type !== undefined ? { type } : {}),
      ...(since !== undefined ? { since: parseBound(since, 'since') } : {}),
      ...(until !== undefined ? { until: parseBound(until, 'until') } : {}),
    });
    // Read after the page: a checkpoint verified meanwhile only covers more of it, never less.
    const chain = await chainVerificationStatus(this.context);
    return {
      entries: page.entries.map((entry) => entryView(entry, chain)),
      next_cursor: page.nextCursor,
      verification: chain.view,
    };
  }
}
