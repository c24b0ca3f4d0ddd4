import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { hashSessionId, SESSIONS_COLLECTION, SessionStore } from '../../../src/platform/auth/sessions.js';
import { ManualClock } from '../../../src/platform/clock/clock.js';
import { SQL_KINDS } from '../../support/databases.js';
import { createTestStorage, type TestStorage } from '../../support/storage.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe.each(SQL_KINDS)('SessionStore on %s', (kind) => {
  let storage: TestStorage;

  beforeAll(async () => {
    storage = await createTestStorage(kind);
  });
  afterAll(async () => {
    await storage.dispose();
  });

  const setup = (options?: { absoluteTtlMs?: number; idleTtlMs?: number }) => {
    const clock = new ManualClock(new Date('2026-02-01T08:00:00.000Z'));
    return { clock, sessions: new SessionStore(storage.readStore, clock, options) };
  };
  const rawDocuments = () => storage.readStore.collection(SESSIONS_COLLECTION).find();

  it('creates a session and resolves it; the store keeps only the id’s SHA-256', async () => {
    const { clock, sessions } = setup();
    const { sessionId, expiresAt } = await sessions.create('acc-create', { userAgent: 'jest' });
    expect(sessionId).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(sessionId, 'base64url')).toHaveLength(32);
    expect(expiresAt.toISOString()).toBe('2026-02-01T20:00:00.000Z');
    expect(sessions.absoluteTtlSeconds).toBe(43_200);

    const resolved = await sessions.resolve(sessionId);
    expect(resolved).toEqual({
      accountId: 'acc-create',
      createdAt: clock.now(),
      lastSeenAt: clock.now(),
      expiresAt,
      organizationId: null,
    });

    const stored = (await rawDocuments()).filter((doc) => doc.accountId === 'acc-create');
    expect(stored).toHaveLength(1);
    const hash = createHash('sha256').update(sessionId).digest('hex');
    expect(stored[0]?.id).toBe(hash);
    expect(hashSessionId(sessionId)).toBe(hash);
    expect(JSON.stringify(stored)).not.toContain(sessionId);
    expect(stored[0]).toMatchObject({ userAgent: 'jest', organizationId: null });
  });

  it('answers null for unknown and malformed ids', async () => {
    const { sessions } = setup();
    await sessions.create('acc-unknown');
    expect(await sessions.resolve(Buffer.alloc(32, 7).toString('base64url'))).toBeNull();
    expect(await sessions.resolve('')).toBeNull();
    expect(await sessions.resolve('short')).toBeNull();
    expect(await sessions.resolve("x'; drop table rs_auth_sessions; --".padEnd(43, 'x'))).toBeNull();
    expect(await sessions.resolve(undefined as unknown as string)).toBeNull();
    // A stored hash is not a session id.
    const [stored] = await rawDocuments();
    expect(await sessions.resolve(stored?.id as string)).toBeNull();
  });

  it('expires after the idle period, and activity keeps it alive (touch at most once a minute)', async () => {
    const { clock, sessions } = setup();
    const { sessionId } = await sessions.create('acc-idle');

    clock.advance(30_000);
    expect((await sessions.resolve(sessionId))?.lastSeenAt.toISOString()).toBe('2026-02-01T08:00:00.000Z');
    clock.advance(31_000);
    expect((await sessions.resolve(sessionId))?.lastSeenAt.toISOString()).toBe('2026-02-01T08:01:01.000Z');

    clock.advance(2 * HOUR - 1);
    expect(await sessions.resolve(sessionId)).not.toBeNull();
    clock.advance(2 * HOUR);
    expect(await sessions.resolve(sessionId)).toBeNull();
    // Ended sessions are removed, and stay ended.
    clock.set('2026-02-01T08:00:00.000Z');
    expect(await sessions.resolve(sessionId)).toBeNull();
    expect((await rawDocuments()).filter((doc) => doc.accountId === 'acc-idle')).toHaveLength(0);
  });

  it('expires at its absolute lifetime however active it is', async () => {
    const { clock, sessions } = setup();
    const { sessionId, expiresAt } = await sessions.create('acc-absolute');
    while (clock.now().getTime() + 30 * MINUTE < expiresAt.getTime()) {
      clock.advance(30 * MINUTE);
      expect(await sessions.resolve(sessionId)).not.toBeNull();
    }
    clock.set(new Date(expiresAt.getTime() - 1));
    expect(await sessions.resolve(sessionId)).not.toBeNull();
    clock.set(expiresAt);
    expect(await sessions.resolve(sessionId)).toBeNull();
  });

  it('honours custom lifetimes', async () => {
    const { clock, sessions } = setup({ absoluteTtlMs: 10 * MINUTE, idleTtlMs: 5 * MINUTE });
    const { sessionId, expiresAt } = await sessions.create('acc-custom');
    expect(expiresAt.getTime() - clock.now().getTime()).toBe(10 * MINUTE);
    expect(sessions.absoluteTtlSeconds).toBe(600);
    clock.advance(5 * MINUTE);
    expect(await sessions.resolve(sessionId)).toBeNull();
    expect(() => new SessionStore(storage.readStore, clock, { idleTtlMs: 0 })).toThrow();
  });

  it('revokes one session, and all sessions of an account', async () => {
    const { sessions } = setup();
    const a = await sessions.create('acc-revoke');
    const b = await sessions.create('acc-revoke');
    const c = await sessions.create('acc-revoke');
    const d = await sessions.create('acc-revoke');
    const bystander = await sessions.create('acc-bystander');

    expect(await sessions.revoke(a.sessionId)).toBe(true);
    expect(await sessions.revoke(a.sessionId)).toBe(false);
    expect(await sessions.revoke('nonsense')).toBe(false);
    expect(await sessions.resolve(a.sessionId)).toBeNull();
    expect(await sessions.resolve(b.sessionId)).not.toBeNull();

    expect(await sessions.revokeAllFor('acc-revoke', { except: d.sessionId })).toBe(2);
    expect(await sessions.resolve(b.sessionId)).toBeNull();
    expect(await sessions.resolve(c.sessionId)).toBeNull();
    expect(await sessions.resolve(d.sessionId)).not.toBeNull();
    expect(await sessions.revokeAllFor('acc-revoke')).toBe(1);
    expect(await sessions.resolve(d.sessionId)).toBeNull();
    expect(await sessions.resolve(bystander.sessionId)).not.toBeNull();
    expect(await sessions.revokeAllFor('acc-nobody')).toBe(0);
  });

  it('stores the organization a session is restricted to', async () => {
    const { clock, sessions } = setup();
    const { sessionId } = await sessions.create('acc-org', { organizationId: 'org-1' });
    expect((await sessions.resolve(sessionId))?.organizationId).toBe('org-1');

    clock.advance(10_000);
    const switched = await sessions.switchOrganization(sessionId, 'org-2');
    expect(switched).toMatchObject({ accountId: 'acc-org', organizationId: 'org-2' });
    expect((await sessions.resolve(sessionId))?.organizationId).toBe('org-2');
    expect((await sessions.switchOrganization(sessionId, null))?.organizationId).toBeNull();
    expect((await sessions.resolve(sessionId))?.organizationId).toBeNull();

    await expect(sessions.switchOrganization(sessionId, '')).rejects.toThrow();
    await sessions.revoke(sessionId);
    expect(await sessions.switchOrganization(sessionId, 'org-1')).toBeNull();
    expect((await rawDocuments()).filter((doc) => doc.accountId === 'acc-org')).toHaveLength(0);
  });

  it('purges ended sessions', async () => {
    const { clock, sessions } = setup({ absoluteTtlMs: 4 * HOUR, idleTtlMs: HOUR });
    await sessions.purgeExpired();
    const idle = await sessions.create('acc-purge');
    clock.advance(50 * MINUTE);
    const active = await sessions.create('acc-purge');
    clock.advance(20 * MINUTE);
    expect(await sessions.purgeExpired()).toBeGreaterThanOrEqual(1);
    expect(await sessions.resolve(idle.sessionId)).toBeNull();
    expect(await sessions.resolve(active.sessionId)).not.toBeNull();
  });

  it('concurrent stores on one read store share the collection', async () => {
    const clock = new ManualClock();
    const stores = Array.from({ length: 4 }, () => new SessionStore(storage.readStore, clock));
    const created = await Promise.all(stores.map((store) => store.create('acc-concurrent')));
    const resolved = await Promise.all(
      created.map(({ sessionId }, i) => stores[(i + 1) % 4]?.resolve(sessionId)),
    );
    expect(resolved.every((session) => session?.accountId === 'acc-concurrent')).toBe(true);
  });
});
