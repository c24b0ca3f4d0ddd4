/**
 * Server-side browser sessions. Not event-sourced: a plain read-store collection, `auth_sessions`.
 *
 * The session id (32 random bytes, base64url, 43 characters) lives only in the caller's `__Host-ps` cookie;
 * the store keys each document by the SHA-256 of the id (hex), so a leaked copy of the store cannot be
 * replayed as cookies, and lookups by hash give away nothing through timing.
 *
 * A session ends at the first of: its absolute expiry (createdAt + absoluteTtlMs), an idle gap of
 * idleTtlMs since it was last seen, revocation. Ended sessions are deleted (revocation deletes too, so a
 * revoked session can never come back). `lastSeenAt` is written at most once a minute per session, so the
 * idle clock may start up to a minute early: the error is on the safe side.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../clock/clock.js';
import type { Collection, IndexSpec, ReadDocument, ReadStore } from '../read-store/read-store.port.js';

export const SESSIONS_COLLECTION = 'auth_sessions';
export const DEFAULT_SESSION_ABSOLUTE_TTL_MS = 12 * 60 * 60 * 1000;
export const DEFAULT_SESSION_IDLE_TTL_MS = 2 * 60 * 60 * 1000;
/** lastSeenAt is refreshed at most this often. */
export const SESSION_TOUCH_INTERVAL_MS = 60 * 1000;
const SESSION_ID_BYTES = 32;
const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const MAX_USER_AGENT_LENGTH = 512;
const MAX_ORGANIZATION_ID_LENGTH = 256;

const SESSION_INDEXES: readonly IndexSpec[] = [
  { name: 'by_account', fields: [['accountId', 1]] },
  { name: 'by_expiry', fields: [['expiresAt', 1]] },
];

export interface Session {
  readonly accountId: string;
  readonly createdAt: Date;
  readonly lastSeenAt: Date;
  readonly expiresAt: Date;
  /** The organization this session is restricted to, or null for the personal context. */
  readonly organizationId: string | null;
}

export interface SessionStoreOptions {
  /** Lifetime from creation, whatever the activity; 12 hours by default. */
  readonly absoluteTtlMs?: number;
  /** Longest gap between requests; 2 hours by default. */
  readonly idleTtlMs?: number;
}

/** The stored form. Dates are ISO-8601 strings (UTC), so range filters order them correctly. */
interface SessionDocument extends ReadDocument {
  /** SHA-256 (hex) of the session id; never the id itself. */
  readonly id: string;
  readonly accountId: string;
  readonly createdAt: string;
  readonly lastSeenAt: string;
  readonly expiresAt: string;
  readonly organizationId: string | null;
  readonly userAgent: string | null;
}

export class SessionStore {
  readonly absoluteTtlMs: number;
  readonly idleTtlMs: number;
  private readonly sessions: Collection<SessionDocument>;
  private ready: Promise<void> | undefined;

  constructor(
    private readonly readStore: ReadStore,
    private readonly clock: Clock,
    options: SessionStoreOptions = {},
  ) {
    this.absoluteTtlMs = positiveDuration(
      options.absoluteTtlMs ?? DEFAULT_SESSION_ABSOLUTE_TTL_MS,
      'absoluteTtlMs',
    );
    this.idleTtlMs = positiveDuration(options.idleTtlMs ?? DEFAULT_SESSION_IDLE_TTL_MS, 'idleTtlMs');
    this.sessions = readStore.collection<SessionDocument>(SESSIONS_COLLECTION);
  }

  /** The cookie Max-Age matching the absolute lifetime. */
  get absoluteTtlSeconds(): number {
    return Math.floor(this.absoluteTtlMs / 1000);
  }

  /** Creates the collection and its indexes; idempotent, and done implicitly by every other method. */
  init(): Promise<void> {
    this.ready ??= this.readStore.ensureCollection(SESSIONS_COLLECTION, SESSION_INDEXES).catch((error) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }

  async create(
    accountId: string,
    context: { organizationId?: string | null; userAgent?: string } = {},
  ): Promise<{ sessionId: string; expiresAt: Date }> {
    if (typeof accountId !== 'string' || accountId.length === 0) {
      throw new Error('a session needs an account id');
    }
    const organizationId = checkedOrganizationId(context.organizationId ?? null);
    await this.init();
    const sessionId = randomBytes(SESSION_ID_BYTES).toString('base64url');
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + this.absoluteTtlMs);
    await this.sessions.upsert({
      id: hashSessionId(sessionId),
      accountId,
      createdAt: now.toISOString(),
      lastSeenAt: now.toISOString(),
      expiresAt: expiresAt.toISOString(),
      organizationId,
      userAgent:
        typeof context.userAgent === 'string' ? context.userAgent.slice(0, MAX_USER_AGENT_LENGTH) : null,
    });
    return { sessionId, expiresAt };
  }

  /** The live session for this id, or null when it is unknown, revoked, expired or idle too long. */
  async resolve(sessionId: string): Promise<Session | null> {
    const found = await this.live(sessionId);
    if (!found) return null;
    const { id, document, now } = found;
    const lastSeen = Date.parse(document.lastSeenAt);
    if (now.getTime() - lastSeen < SESSION_TOUCH_INTERVAL_MS) return toSession(document);
    const lastSeenAt = now.toISOString();
    // patch never creates: a session revoked meanwhile stays revoked.
    if (!(await this.sessions.patch(id, { lastSeenAt }))) return null;
    return toSession({ ...document, lastSeenAt });
  }

  /** Ends one session; true when it existed. */
  async revoke(sessionId: string): Promise<boolean> {
    if (!isSessionId(sessionId)) return false;
    await this.init();
    return this.sessions.delete(hashSessionId(sessionId));
  }

  /**
   * Ends every session of an account (optionally keeping one, e.g. the caller's, or only those restricted to one
   * organization, so leaving one organization never ends work in another); answers how many ended.
   */
  async revokeAllFor(
    accountId: string,
    options: { except?: string; organizationId?: string } = {},
  ): Promise<number> {
    await this.init();
    const kept =
      options.except !== undefined && isSessionId(options.except) ? hashSessionId(options.except) : null;
    const documents = await this.sessions.find(
      options.organizationId === undefined
        ? { accountId }
        : { accountId, organizationId: options.organizationId },
    );
    let revoked = 0;
    for (const document of documents) {
      if (document.id === kept) continue;
      if (await this.sessions.delete(document.id)) revoked += 1;
    }
    return revoked;
  }

  /**
   * Restricts a live session to an organization (or returns it to the personal context with null). The
   * caller checks membership first. Answers the updated session, or null when the session is not live.
   */
  async switchOrganization(sessionId: string, organizationId: string | null): Promise<Session | null> {
    const checked = checkedOrganizationId(organizationId);
    const found = await this.live(sessionId);
    if (!found) return null;
    const lastSeenAt = found.now.toISOString();
    if (!(await this.sessions.patch(found.id, { organizationId: checked, lastSeenAt }))) return null;
    return toSession({ ...found.document, organizationId: checked, lastSeenAt });
  }

  /** Deletes sessions past their absolute expiry or idle too long; answers how many. For housekeeping. */
  async purgeExpired(): Promise<number> {
    await this.init();
    const now = this.clock.now();
    const idleBefore = new Date(now.getTime() - this.idleTtlMs).toISOString();
    const ended = await this.sessions.find({
      $or: [{ expiresAt: { $lte: now.toISOString() } }, { lastSeenAt: { $lte: idleBefore } }],
    });
    let purged = 0;
    for (const document of ended) {
      if (await this.sessions.delete(document.id)) purged += 1;
    }
    return purged;
  }

  /** The stored document when the session is live; deletes it when it has ended. */
  private async live(
    sessionId: string,
  ): Promise<{ id: string; document: SessionDocument; now: Date } | null> {
    if (!isSessionId(sessionId)) return null;
    await this.init();
    const id = hashSessionId(sessionId);
    const document = await this.sessions.get(id);
    if (!document) return null;
    const now = this.clock.now();
    const expiresAt = Date.parse(document.expiresAt);
    const lastSeen = Date.parse(document.lastSeenAt);
    if (
      !Number.isFinite(expiresAt) ||
      !Number.isFinite(lastSeen) ||
      now.getTime() >= expiresAt ||
      now.getTime() - lastSeen >= this.idleTtlMs
    ) {
      await this.sessions.delete(id);
      return null;
    }
    return { id, document, now };
  }
}

/** The stored key of a session: SHA-256 of its id, hex. Also fit for logs and audit records. */
export function hashSessionId(sessionId: string): string {
  return createHash('sha256').update(sessionId, 'utf8').digest('hex');
}

/** True for the shape of a session id (43 base64url characters). */
export function isSessionId(value: unknown): value is string {
  return typeof value === 'string' && SESSION_ID_PATTERN.test(value);
}

function toSession(document: SessionDocument): Session {
  return {
    accountId: document.accountId,
    createdAt: new Date(document.createdAt),
    lastSeenAt: new Date(document.lastSeenAt),
    expiresAt: new Date(document.expiresAt),
    organizationId: document.organizationId ?? null,
  };
}

function checkedOrganizationId(organizationId: string | null): string | null {
  if (organizationId === null) return null;
  if (
    typeof organizationId !== 'string' ||
    organizationId.length === 0 ||
    organizationId.length > MAX_ORGANIZATION_ID_LENGTH
  ) {
    throw new Error('an organization id must be a non-empty string or null');
  }
  return organizationId;
}

function positiveDuration(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1000) throw new Error(`${name} must be at least 1000 ms`);
  return value;
}
