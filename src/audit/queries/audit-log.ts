import {
  AUDIT_ENTRIES,
  auditEntryId,
  auditKey,
  type AuditEntryDocument,
} from '../../../projections/audit-index.projection.js';
import { emailClaimStreamId } from '../../accounts/commands/account.handlers.js';
import { AccountDirectory } from '../../accounts/queries/account-directory.js';
import type { CredentialStore } from '../../platform/auth/credentials/credential-store.port.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import type { EventStore } from '../../platform/event-store/event-store.port.js';
import { isGlobalPosition } from '../../platform/event-store/global-position.js';
import { parseLogPoint, type LogPoint } from '../../platform/projections/as-of-replay.js';
import type { ProjectionRunner } from '../../platform/projections/projection-runner.js';
import type { FieldCondition, Filter, FindOptions } from '../../platform/read-store/read-store.port.js';

export const AUDIT_PAGE_MAX = 500;

/** One page of a subject's history: the entries in log order and where the next page starts (null: the end). */
export interface AuditPage {
  readonly entries: readonly AuditEntryDocument[];
  readonly nextCursor: string | null;
}

export interface AuditSearch {
  /** The subject key (`account:<id>`, `organization:<id>`, `scope:<id>`, `actor:<actor>`). */
  readonly key: string;
  readonly type?: string;
  /** Only entries of this actor (as recorded: `account:<id>`, `operator:<name>`, `system:<component>`). */
  readonly actor?: string;
  /** Entries at or after this point (a position or a time). */
  readonly since?: LogPoint;
  /** Entries at or before this point. */
  readonly until?: LogPoint;
  /** The cursor of the previous page: entries strictly after this position. */
  readonly after?: string;
  readonly limit: number;
}

/** Reads a `since`/`until` bound: a position or an ISO-8601 time. */
export const parseBound = (raw: string, field: string): LogPoint => parseLogPoint(raw, field);

/** A cursor is the position of the last entry of the page before. */
export function parseCursor(raw: string, field = 'after'): string {
  if (!isGlobalPosition(raw)) {
    throw new ServiceError('invalid_input', `${field} must be a cursor from a previous page`, {
      fields: [{ field, problems: ['must be a cursor (a global position)'] }],
    });
  }
  return raw;
}

/** Sorts after every character of a position (digits and a dash). */
const AFTER_EVERY_POSITION = '~';

/**
 * The read store query of one page (exported so the benchmark can EXPLAIN exactly what a page sends): a range of
 * the primary key, which holds one subject's entries and only them, in log order (auditEntryId, ADR 78). Every
 * read store walks it in order and stops after `limit + 1` entries, however long the subject's history; type,
 * actor filters seek their (field, id) index inside that range (ADR 127), time filters are checked along the way.
 */
export function auditFilter(search: AuditSearch): [Filter, FindOptions] {
  const idAt = (position: string) => auditEntryId(search.key, position);
  const id: Record<string, string> = {
    $gt: idAt(search.after ?? ''),
    $lt: idAt(AFTER_EVERY_POSITION),
  };
  if (search.since && 'position' in search.since) id.$gte = idAt(search.since.position);
  if (search.until && 'position' in search.until) id.$lte = idAt(search.until.position);
  const recordedAt: Record<string, string> = {};
  if (search.since && 'time' in search.since) recordedAt.$gte = search.since.time;
  if (search.until && 'time' in search.until) recordedAt.$lte = search.until.time;
  const filter: Filter = {
    id: id as FieldCondition,
    // $string seeks the entries' (type, id) and (actor, id) indexes within the key's range.
    ...(search.type ? { type: { $string: search.type } } : {}),
    ...(search.actor ? { actor: { $string: search.actor } } : {}),
    ...(Object.keys(recordedAt).length > 0 ? { recordedAt: recordedAt as FieldCondition } : {}),
  };
  return [filter, { sort: [['id', 1]], limit: search.limit + 1 }];
}

/**
 * The auditor's reading of the audit index (ADR 71): one subject's entries by global position, paged by
 * keyset (the cursor is the last position returned), never by offset.
 */
export class AuditLog {
  private readonly projections: ProjectionRunner;
  private readonly eventStore: Pick<EventStore, 'readStream'>;
  private readonly credentials: CredentialStore;

  constructor(ports: {
    readonly projections: ProjectionRunner;
    readonly eventStore: Pick<EventStore, 'readStream'>;
    /** The account directory's (it finds an account by email; no credential is read here). */
    readonly credentials: CredentialStore;
  }) {
    this.projections = ports.projections;
    this.eventStore = ports.eventStore;
    this.credentials = ports.credentials;
  }

  async page(search: AuditSearch): Promise<AuditPage> {
    const [filter, options] = auditFilter(search);
    const found = await this.projections
      .collection<AuditEntryDocument>('audit-index', AUDIT_ENTRIES)
      .find(filter, options);
    const entries = found.slice(0, search.limit);
    return {
      entries,
      nextCursor: found.length > search.limit ? (entries.at(-1)?.position ?? null) : null,
    };
  }

  /**
   * An account by id or by email. An email's stream is `email-<first 32 hex of SHA-256 of the trimmed,
   * lower-cased email>` and its claim names the account, so an account whose read model was erased is found too.
   */
  async accountId(reference: string): Promise<string> {
    if (!reference.includes('@')) return reference;
    const [claim] = await this.eventStore.readStream(emailClaimStreamId(reference), { maxCount: 1 });
    const claimed = (claim?.data as { accountId?: unknown } | undefined)?.accountId;
    if (typeof claimed === 'string') return claimed;
    const account = await new AccountDirectory({
      projections: this.projections,
      credentials: this.credentials,
    }).findByEmail(reference);
    if (!account) throw new ServiceError('not_found', `no account uses ${reference.trim().toLowerCase()}`);
    return account.id;
  }

  /** An actor as recorded (`account:<id>`, `operator:<name>`, `system:<component>`), or an account's email. */
  async actorKey(reference: string): Promise<string> {
    if (/^(account|operator|system):/.test(reference)) return auditKey('actor', reference);
    return auditKey('actor', `account:${await this.accountId(reference)}`);
  }
}
