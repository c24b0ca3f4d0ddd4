/**
 * oidc-provider's storage (clients, grants, codes, refresh tokens, sessions, interactions) on the service's
 * own read store: one collection, `oauth_store`, on PGlite, PostgreSQL or MongoDB alike (ADR 106).
 *
 * No token, code, session or interaction id is stored in clear: a row is keyed by the SHA-256 of its id (per
 * model), the payload is stored without its `jti` (for opaque artifacts the jti IS the value handed out) and
 * gets it back on a lookup by id; the uid and user-code lookups are by digest too. Grant ids stay in clear:
 * they name a grant in events and are never a credential.
 */
import { createHash } from 'node:crypto';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Clock } from '../../platform/clock/clock.js';
import type {
  Collection,
  IndexSpec,
  ReadDocument,
  ReadStore,
} from '../../platform/read-store/read-store.port.js';

export const OAUTH_STORE_COLLECTION = 'oauth_store';

const INDEXES: readonly IndexSpec[] = [
  { name: 'by_grant', fields: [['grantId', 1]] },
  { name: 'by_uid', fields: [['uid', 1]] },
  { name: 'by_user_code', fields: [['userCode', 1]] },
  { name: 'by_expiry', fields: [['expiresAt', 1]] },
];

interface StoredArtifact extends ReadDocument {
  readonly model: string;
  readonly payload: Record<string, unknown>;
  readonly grantId: string | null;
  readonly uid: string | null;
  readonly userCode: string | null;
  /** ISO-8601; null for artifacts that do not expire (registered clients). */
  readonly expiresAt: string | null;
  readonly consumed: number | null;
}

export const digest = (text: string): string => createHash('sha256').update(text).digest('hex');

export class OAuthStore {
  private readonly rows: Collection<StoredArtifact>;
  private ready: Promise<void> | undefined;

  constructor(
    private readonly readStore: ReadStore,
    private readonly clock: Clock,
  ) {
    this.rows = readStore.collection<StoredArtifact>(OAUTH_STORE_COLLECTION);
  }

  init(): Promise<void> {
    this.ready ??= this.readStore
      .ensureCollection(OAUTH_STORE_COLLECTION, INDEXES)
      .catch((error: unknown) => {
        this.ready = undefined;
        throw error;
      });
    return this.ready;
  }

  /** The adapter oidc-provider asks for, one per model (`AccessToken`, `Grant`, `Session`, ...). */
  adapterFor(model: string): Adapter {
    const key = (id: string) => `${model}:${digest(id)}`;
    const live = (row: StoredArtifact | null): row is StoredArtifact =>
      row !== null && (row.expiresAt === null || Date.parse(row.expiresAt) > this.clock.now().getTime());
    const payloadOf = (row: StoredArtifact, jti: string | undefined): AdapterPayload => ({
      ...row.payload,
      ...(jti !== undefined ? { jti } : {}),
      ...(row.consumed !== null ? { consumed: row.consumed } : {}),
    });
    return {
      upsert: async (id, payload, expiresIn) => {
        await this.init();
        const { jti: _jti, ...rest } = payload;
        const existing = await this.rows.get(key(id));
        await this.rows.upsert({
          id: key(id),
          model,
          payload: rest,
          grantId: typeof payload.grantId === 'string' ? payload.grantId : null,
          uid: typeof payload.uid === 'string' ? digest(payload.uid) : null,
          userCode: typeof payload.userCode === 'string' ? digest(payload.userCode) : null,
          expiresAt:
            typeof expiresIn === 'number'
              ? new Date(this.clock.now().getTime() + expiresIn * 1000).toISOString()
              : null,
          consumed: existing?.consumed ?? null,
        });
      },
      find: async (id) => {
        await this.init();
        const row = await this.rows.get(key(id));
        return live(row) ? payloadOf(row, id) : undefined;
      },
      findByUid: async (uid) => {
        await this.init();
        const [row] = await this.rows.find({ model, uid: digest(uid) }, { limit: 1 });
        // The session's id is its cookie value, never stored: a lookup by uid cannot hand it back.
        return row && live(row) ? payloadOf(row, undefined) : undefined;
      },
      findByUserCode: async (userCode) => {
        await this.init();
        const [row] = await this.rows.find({ model, userCode: digest(userCode) }, { limit: 1 });
        return row && live(row) ? payloadOf(row, undefined) : undefined;
      },
      consume: async (id) => {
        await this.init();
        await this.rows.patch(key(id), { consumed: Math.floor(this.clock.now().getTime() / 1000) });
      },
      destroy: async (id) => {
        await this.init();
        await this.rows.delete(key(id));
      },
      revokeByGrantId: async (grantId) => {
        await this.revokeGrantArtifacts(grantId, model);
      },
    };
  }

  /** Deletes what a grant left (codes, refresh tokens; of one model, or all and the grant itself). */
  async revokeGrantArtifacts(grantId: string, model?: string): Promise<void> {
    await this.init();
    const rows = await this.rows.find(model === undefined ? { grantId } : { model, grantId });
    for (const row of rows) await this.rows.delete(row.id);
    if (model === undefined) await this.rows.delete(`Grant:${digest(grantId)}`);
  }

  /** Deletes expired rows; answers how many. For housekeeping. */
  async purgeExpired(): Promise<number> {
    await this.init();
    const expired = await this.rows.find({ expiresAt: { $lte: this.clock.now().toISOString() } });
    let purged = 0;
    for (const row of expired) if (await this.rows.delete(row.id)) purged += 1;
    return purged;
  }
}
