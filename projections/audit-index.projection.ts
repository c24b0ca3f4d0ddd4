import type { RecordedEvent } from '../src/platform/event-store/event-store.port.js';
import type {
  ProjectionDefinition,
  ProjectionView,
} from '../src/platform/projections/projection-definition.js';

/**
 * The auditor's index of the log (ADR 71): every event once per subject it concerns (an account, an
 * organization, a scope, its actor), so `events search` and the organization audit route page through one
 * subject's history by global position without knowing any stream id. Entries hold the envelope only (who, on
 * whose behalf, when, why, which stream and position), never the payload: readers that need it read the event.
 */
export interface AuditEntryDocument {
  /** `<escaped key>@<position>` (auditEntryId): one entry per subject and event, in log order by id. */
  readonly id: string;
  /** The subject: `account:<id>`, `organization:<id>`, `scope:<id>` or `actor:<actor>`. */
  readonly key: string;
  readonly position: string;
  readonly recordedAt: string;
  readonly type: string;
  readonly stream: string;
  readonly streamVersion: number;
  readonly eventId: string;
  readonly actor: string;
  readonly payer: string;
  readonly scope: string | null;
  readonly correlationId: string;
  readonly causationId: string;
  /** Attribution the command recorded when it did (an operator's reason, the credential, surface, request). */
  readonly reason: string | null;
  readonly credential: unknown;
  readonly surface: string | null;
  readonly requestId: string | null;
  readonly [field: string]: unknown;
}

/** What the index remembers of a stream: the organization its first organization-naming event named. */
export interface AuditStreamDocument {
  readonly id: string;
  readonly organization: string;
  readonly [field: string]: unknown;
}

export const AUDIT_ENTRIES = 'audit_entries';
export const AUDIT_STREAMS = 'audit_streams';

export type AuditSubject = 'account' | 'organization' | 'scope' | 'actor';

export const auditKey = (subject: AuditSubject, id: string): string => `${subject}:${id}`;

/**
 * An entry's id: its key, with `%` and `@` escaped so the key part never holds an `@`, then `@` and the position.
 * Positions are fixed width, so one key's ids in id order are its entries in log order, and the ids between
 * `auditEntryId(key, '')` and `auditEntryId(key, '~')` (`~` sorts after every position character) are exactly
 * that key's: readers page by this primary-key range alone (ADR 78).
 */
export const auditEntryId = (key: string, position: string): string =>
  `${key.replace(/%/g, '%25').replace(/@/g, '%40')}@${position}`;

/**
 * Stream naming (README, "Stream naming"): the id prefixes whose remainder is the subject's id. Longer
 * prefixes come first: `organization-owner-<account>` is an account's, `organization-<id>` an organization's.
 * Streams named by a hash (`email-…`, `trial-domain-…`) or by two ids (`subject-<scope>-<subject>`) are found
 * through their events instead (`data.accountId`, `metadata.scope`).
 */
const STREAM_SUBJECTS: ReadonlyArray<readonly [string, Exclude<AuditSubject, 'actor'>]> = [
  ['ledger-account-', 'account'],
  ['ledger-organization-', 'organization'],
  ['organization-owner-', 'account'],
  ['organization-', 'organization'],
  ['account-', 'account'],
  ['staff-seat-', 'account'],
  ['trial-account-', 'account'],
  ['trial-approval-flag-', 'account'],
  ['sso-', 'organization'],
  ['exposure-audit-', 'organization'],
  ['exposition-', 'organization'],
  ['client-', 'scope'],
  ['exposure-controls-', 'scope'],
  ['exposure-notifications-', 'scope'],
  ['exposure-watch-', 'scope'],
];

/** The subject a stream id names by itself, if any. */
export function streamSubject(streamId: string): { subject: AuditSubject; id: string } | null {
  for (const [prefix, subject] of STREAM_SUBJECTS) {
    if (streamId.startsWith(prefix) && streamId.length > prefix.length) {
      return { subject, id: streamId.slice(prefix.length) };
    }
  }
  return null;
}

const PRINCIPAL = /^(account|organization):(.+)$/;

function stringField(data: unknown, field: string): string | null {
  if (typeof data !== 'object' || data === null || !(field in data)) return null;
  const value = (data as Record<string, unknown>)[field];
  return typeof value === 'string' && value.length > 0 ? value : null;
}

/**
 * Every subject an event concerns: its actor; the accounts and organizations that acted or paid, whose stream
 * it is, or that its data names (`accountId`, `organizationId`); its scope (metadata, stream, `scopeId` or
 * `spaceId` in its data); and the organization its stream's earlier events named.
 */
export function auditKeys(event: RecordedEvent, streamOrganization: string | null): string[] {
  const keys = new Set<string>([auditKey('actor', event.metadata.actor)]);
  for (const principal of [event.metadata.actor, event.metadata.payer]) {
    const match = PRINCIPAL.exec(principal);
    if (match) keys.add(auditKey(match[1] as AuditSubject, match[2]!));
  }
  const named = streamSubject(event.streamId);
  if (named) keys.add(auditKey(named.subject, named.id));
  const accountId = stringField(event.data, 'accountId');
  if (accountId) keys.add(auditKey('account', accountId));
  const organizationId = stringField(event.data, 'organizationId') ?? streamOrganization;
  if (organizationId) keys.add(auditKey('organization', organizationId));
  for (const scope of [
    event.metadata.scope,
    stringField(event.data, 'scopeId'),
    stringField(event.data, 'spaceId'),
  ]) {
    if (scope) keys.add(auditKey('scope', scope));
  }
  return [...keys];
}

/** Optional attribution fields, taken as recorded when an event carries them. */
function attribution(metadata: RecordedEvent['metadata']) {
  const extra = metadata as unknown as Readonly<Record<string, unknown>>;
  const text = (field: string) => (typeof extra[field] === 'string' ? (extra[field] as string) : null);
  return {
    reason: text('reason'),
    credential: extra.credential === undefined ? null : structuredClone(extra.credential),
    surface: text('surface'),
    requestId: text('requestId'),
  };
}

function erasedStreams(event: RecordedEvent): string[] {
  const data = event.data;
  const erased =
    typeof data === 'object' && data !== null && 'erasedStreams' in data ? data.erasedStreams : undefined;
  return event.type === 'ScopeErased' && Array.isArray(erased)
    ? erased.filter((id): id is string => typeof id === 'string')
    : [];
}

export const auditIndexProjection: ProjectionDefinition = {
  name: 'audit-index',
  // Version 2 dropped the declared btree indexes (ADR 78): no read used them, every entry paid for them.
  // Version 3 trades the index over every path of every entry for three narrow ones (ADR 127).
  version: 3,
  collections: {
    // Pages are ranges of the primary key (auditEntryId). A page filtered by type or actor seeks (type, id) or
    // (actor, id) within that range, so a type rare in a large subject costs its few entries, not the subject's;
    // an erasure seeks its streams. Strings-only keys: an index over every path of every entry (ids, positions,
    // request ids: mostly unique values) was a third of a rebuild and of every entry's write (ADR 127).
    [AUDIT_ENTRIES]: {
      containmentIndex: false,
      indexes: [
        { name: 'by_type', fields: [['type', 1]], stringsOnly: true },
        { name: 'by_actor', fields: [['actor', 1]], stringsOnly: true },
        { name: 'by_stream', fields: [['stream', 1]], stringsOnly: true },
      ],
    },
    [AUDIT_STREAMS]: {},
  },
  handles: ['*'],
  reads: (event: RecordedEvent) => [{ collection: AUDIT_STREAMS, id: event.streamId }],
  apply(event: RecordedEvent, view: ProjectionView): void {
    // Erased streams are gone from the log: so are their entries, and a rebuild gives the same index.
    const erased = erasedStreams(event);
    if (erased.length > 0) {
      // $string: a seek of by_stream per erased stream (plain equality would need a containment index).
      view.deleteWhere(AUDIT_ENTRIES, { $or: erased.map((stream) => ({ stream: { $string: stream } })) });
      for (const streamId of erased) view.delete(AUDIT_STREAMS, streamId);
    }
    // Only the stream's own events name its organization, so erasing other streams never changes its keys.
    const stream = view.get<AuditStreamDocument>(AUDIT_STREAMS, event.streamId);
    const named = stringField(event.data, 'organizationId');
    if (named && !stream) view.put(AUDIT_STREAMS, { id: event.streamId, organization: named });
    const meta = event.metadata;
    for (const key of auditKeys(event, stream?.organization ?? null)) {
      const entry: AuditEntryDocument = {
        id: auditEntryId(key, event.position),
        key,
        position: event.position,
        recordedAt: event.recordedAt,
        type: event.type,
        stream: event.streamId,
        streamVersion: event.streamVersion,
        eventId: event.id,
        actor: meta.actor,
        payer: meta.payer,
        scope: meta.scope,
        correlationId: meta.correlationId,
        causationId: meta.causationId,
        ...attribution(meta),
      };
      view.put(AUDIT_ENTRIES, entry);
    }
  },
};
