/**
 * The CredentialStore contract (ADR 65), adapter-neutral: every adapter's test file calls credentialStoreContract
 * with a factory. Each test uses its own ids and subjects.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  credentialOf,
  legacyCredentialId,
  type Credential,
  type CredentialStore,
} from '../../src/platform/auth/credentials/credential-store.port.js';

export interface CredentialStoreUnderTest {
  readonly store: CredentialStore;
  dispose(): Promise<void>;
}

const credential = (overrides: Partial<Credential> = {}): Credential => ({
  id: `password-${randomUUID()}`,
  kind: 'password',
  subject: `account:${randomUUID()}`,
  material: `scrypt$1024$8$1$${randomUUID()}`,
  createdAt: '2026-03-01T10:00:00.000Z',
  ...overrides,
});

export function credentialStoreContract(label: string, open: () => Promise<CredentialStoreUnderTest>): void {
  describe(`CredentialStore contract: ${label}`, () => {
    let under: CredentialStoreUnderTest;
    let store: CredentialStore;

    beforeAll(async () => {
      under = await open();
      store = under.store;
    });
    afterAll(async () => {
      await under?.dispose();
    });

    it('stores a credential and gives it back by id; an unknown id is null', async () => {
      const stored = credential();
      await store.put(stored);
      expect(await store.get(stored.id)).toEqual(stored);
      expect(await store.get(`password-${randomUUID()}`)).toBeNull();
      expect(await store.get('')).toBeNull();
    });

    it('is immutable: putting an id again keeps what it holds', async () => {
      const first = credential();
      await store.put(first);
      await store.put({ ...first, material: 'something else', subject: 'account:other' });
      expect(await store.get(first.id)).toEqual(first);
    });

    it('initializes again without losing anything', async () => {
      const kept = credential();
      await store.put(kept);
      await store.init();
      expect(await store.get(kept.id)).toEqual(kept);
    });

    it('lists a subject’s credentials, and credentialOf refuses another kind or subject', async () => {
      const subject = `organization:${randomUUID()}`;
      const secret = credential({
        id: `sso-client-secret-${randomUUID()}`,
        kind: 'sso-client-secret',
        subject,
      });
      const code = credential({
        id: `sso-recovery-code-${randomUUID()}`,
        kind: 'sso-recovery-code',
        subject,
        createdAt: '2026-03-02T10:00:00.000Z',
      });
      await store.put(code);
      await store.put(secret);
      await store.put(credential());
      expect(await store.ofSubject(subject)).toEqual([secret, code]);
      const found = await store.get(secret.id);
      expect(credentialOf(found, { kind: 'sso-client-secret', subject })).toEqual(secret);
      expect(credentialOf(found, { kind: 'sso-recovery-code', subject })).toBeNull();
      expect(credentialOf(found, { kind: 'sso-client-secret', subject: 'organization:other' })).toBeNull();
    });

    it('derives legacy ids from the material, the same every time, without showing it', () => {
      const id = legacyCredentialId('password', 'scrypt$1024$8$1$salt$key');
      expect(id).toBe(legacyCredentialId('password', 'scrypt$1024$8$1$salt$key'));
      expect(id).toMatch(/^password-legacy-[0-9a-f]{32}$/);
      expect(id).not.toContain('salt');
      expect(legacyCredentialId('password', 'another')).not.toBe(id);
    });
  });
}
