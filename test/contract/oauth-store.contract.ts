/**
 * The OAuth store contract (ADR 106): oidc-provider's adapter semantics on the service's read store, and no
 * token, code or session id in clear in what is stored.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { OAUTH_STORE_COLLECTION, OAuthStore } from '../../src/accounts/oauth/oauth-store.js';
import { ManualClock } from '../../src/platform/clock/clock.js';
import type { ReadStore } from '../../src/platform/read-store/read-store.port.js';

export interface OAuthStoreUnderTest {
  readonly readStore: ReadStore;
  dispose(): Promise<void>;
}

export function oauthStoreContract(label: string, open: () => Promise<OAuthStoreUnderTest>): void {
  describe(`OAuthStore contract: ${label}`, () => {
    const clock = new ManualClock(new Date('2026-03-01T00:00:00.000Z'));
    let underTest: OAuthStoreUnderTest;
    let store: OAuthStore;

    beforeAll(async () => {
      underTest = await open();
      store = new OAuthStore(underTest.readStore, clock);
    });
    afterAll(async () => {
      await underTest?.dispose();
    });

    it('finds an artifact by its id with its jti, and stores neither the id nor the jti in clear', async () => {
      const refresh = store.adapterFor('RefreshToken');
      const value = 'refresh-token-value-0123456789abcdef';
      await refresh.upsert(
        value,
        { jti: value, grantId: 'grant-1', accountId: 'a1', kind: 'RefreshToken' },
        60,
      );
      expect(await refresh.find(value)).toEqual({
        jti: value,
        grantId: 'grant-1',
        accountId: 'a1',
        kind: 'RefreshToken',
      });
      expect(await refresh.find('another-value')).toBeUndefined();
      const rows = await underTest.readStore.collection(OAUTH_STORE_COLLECTION).find({});
      expect(JSON.stringify(rows)).not.toContain(value);
    });

    it('marks consumption, forgets expired artifacts and revokes by grant', async () => {
      const codes = store.adapterFor('AuthorizationCode');
      const refresh = store.adapterFor('RefreshToken');
      await codes.upsert('code-a', { jti: 'code-a', grantId: 'grant-2' }, 60);
      await refresh.upsert('rt-b', { jti: 'rt-b', grantId: 'grant-2' }, 3600);
      await refresh.upsert('rt-c', { jti: 'rt-c', grantId: 'grant-3' }, 3600);
      await codes.consume('code-a');
      expect((await codes.find('code-a'))?.consumed).toBe(Math.floor(clock.now().getTime() / 1000));

      clock.advance(61_000);
      expect(await codes.find('code-a')).toBeUndefined();
      expect(await refresh.find('rt-b')).toBeDefined();

      await refresh.revokeByGrantId('grant-2');
      expect(await refresh.find('rt-b')).toBeUndefined();
      expect(await refresh.find('rt-c')).toBeDefined();
      expect(await store.purgeExpired()).toBeGreaterThanOrEqual(1);
    });

    it('finds sessions and interactions by uid (by digest), without handing back their id', async () => {
      const sessions = store.adapterFor('Session');
      await sessions.upsert(
        'session-cookie-value',
        { jti: 'session-cookie-value', uid: 'uid-1', accountId: 'a' },
        600,
      );
      expect(await sessions.findByUid('uid-1')).toEqual({ uid: 'uid-1', accountId: 'a' });
      expect(await sessions.findByUid('uid-2')).toBeUndefined();
      await sessions.destroy('session-cookie-value');
      expect(await sessions.find('session-cookie-value')).toBeUndefined();
      const rows = await underTest.readStore.collection(OAUTH_STORE_COLLECTION).find({});
      expect(JSON.stringify(rows)).not.toContain('session-cookie-value');
    });

    it('keeps a registered client without expiry, and deletes a whole grant', async () => {
      const clients = store.adapterFor('Client');
      await clients.upsert(
        'client-1',
        { client_id: 'client-1', redirect_uris: ['http://127.0.0.1/cb'] },
        undefined as never,
      );
      clock.advance(365 * 24 * 3600 * 1000);
      expect(await clients.find('client-1')).toMatchObject({ client_id: 'client-1' });

      const grants = store.adapterFor('Grant');
      await grants.upsert('grant-4', { jti: 'grant-4', accountId: 'a', clientId: 'client-1' }, 3600);
      await store.adapterFor('RefreshToken').upsert('rt-d', { jti: 'rt-d', grantId: 'grant-4' }, 3600);
      await store.revokeGrantArtifacts('grant-4');
      expect(await grants.find('grant-4')).toBeUndefined();
      expect(await store.adapterFor('RefreshToken').find('rt-d')).toBeUndefined();
    });
  });
}
