/**
 * ADR 65: events written before credential material left the log still fold. Schema 1 of PasswordSet,
 * ApiKeyIssued, SsoProviderConfigured and SsoRecoveryCodeIssued is read as schema 2, naming the credential by the
 * id the migration stores it under; an event the migration already rewrote (schema 1, new shape) reads the same.
 */
import { describe, expect, it } from '@jest/globals';
import { moveAccountCredentialsOutOfTheLog } from '../../../src/accounts/commands/legacy-account-credentials.js';
import { accountDecider, type AccountEvent } from '../../../src/accounts/domain/account.js';
import { serviceComposition } from '../../../src/composition/service-composition.js';
import { ssoDecider, type SsoEvent } from '../../../src/organizations/sso/domain/sso.js';
import { legacyCredentialId } from '../../../src/platform/auth/credentials/credential-store.port.js';
import type { RecordedEvent } from '../../../src/platform/event-store/event-store.port.js';

const upcasters = serviceComposition.upcasters;
const at = '2026-01-05T08:00:00.000Z';
const recorded = (type: string, data: unknown, streamId: string, schemaVersion = 1): RecordedEvent => ({
  id: `${type}-${schemaVersion}`,
  type,
  schemaVersion,
  data,
  metadata: { actor: 'operator:test', payer: 'system', scope: null, correlationId: 'c', causationId: 'c' },
  streamId,
  streamVersion: 0,
  position: '00000000000000000001-00000000000000000001',
  recordedAt: at,
});

describe('upcasters of credential-bearing events', () => {
  it('new events are stored at schema 2', () => {
    for (const type of ['PasswordSet', 'ApiKeyIssued', 'SsoProviderConfigured', 'SsoRecoveryCodeIssued']) {
      expect(upcasters.currentVersion(type)).toBe(2);
    }
  });

  it('an account written with hashes folds to credential ids, before and after the migration alike', () => {
    const hash = 'scrypt$16384$8$1$c2FsdA==$a2V5';
    const legacy = [
      recorded(
        'AccountRegistered',
        { accountId: 'a1', email: 'a@b.io', plan: 'free', cycleAnchor: at },
        'account-a1',
      ),
      recorded('PasswordSet', { passwordHash: hash }, 'account-a1'),
      recorded(
        'ApiKeyIssued',
        { keyId: 'k1', prefix: 'exr_k1', secretHash: 'f'.repeat(64), label: 'ci', issuedAt: at },
        'account-a1',
      ),
    ];
    const fold = (events: readonly RecordedEvent[]) =>
      upcasters
        .upcastAll(events)
        .reduce(
          (state, event) =>
            accountDecider.evolve(state, { type: event.type, data: event.data } as AccountEvent),
          accountDecider.initialState,
        );
    const upcast = upcasters.upcastAll(legacy);
    expect(upcast[1]!.data).toEqual({ credentialId: legacyCredentialId('password', hash) });
    expect(upcast[2]!.data).toEqual({ keyId: 'k1', prefix: 'exr_k1', label: 'ci', issuedAt: at });
    const state = fold(legacy);
    expect(state.passwordCredentialId).toBe(legacyCredentialId('password', hash));
    expect(JSON.stringify(state)).not.toContain(hash);
    // The migration's rewrite is the upcaster's answer: read again, it folds to the same state.
    const rewritten = legacy.map((event, index) =>
      index === 0 ? event : { ...event, data: upcast[index]!.data },
    );
    expect(fold(rewritten)).toEqual(state);
  });

  it('SSO settings written with the sealed secret and the code hash fold to credential ids', () => {
    const sealed = { alg: 'A256GCM', kid: 'k', iv: 'iv', ciphertext: 'secret-cipher', tag: 't' };
    const codeHash = 'a'.repeat(64);
    const legacy = [
      recorded(
        'SsoProviderConfigured',
        {
          organizationId: 'o1',
          issuer: 'https://login.example.com',
          clientId: 'c',
          clientSecret: sealed,
          secretChanged: true,
          configuredAt: at,
        },
        'sso-o1',
      ),
      recorded('SsoRecoveryCodeIssued', { codeHash, issuedAt: at }, 'sso-o1'),
    ];
    const state = upcasters
      .upcastAll(legacy)
      .reduce(
        (folded, event) => ssoDecider.evolve(folded, { type: event.type, data: event.data } as SsoEvent),
        ssoDecider.initialState,
      );
    expect(state.provider?.clientSecretId).toBe(
      legacyCredentialId('sso-client-secret', JSON.stringify(sealed)),
    );
    expect(state.recovery?.codeId).toBe(legacyCredentialId('sso-recovery-code', codeHash));
    expect(JSON.stringify(state)).not.toContain('secret-cipher');
    expect(JSON.stringify(state)).not.toContain(codeHash);
  });

  it('the migration leaves events with nothing to move alone', async () => {
    const untouched = recorded('PasswordSet', { credentialId: 'password-1' }, 'account-a1', 2);
    // No transaction is touched when there is nothing to move.
    const noTransaction = { query: () => Promise.reject(new Error('no write expected')) };
    expect(await moveAccountCredentialsOutOfTheLog(untouched, noTransaction)).toBeUndefined();
    expect(
      await moveAccountCredentialsOutOfTheLog(
        recorded('PlanChanged', { from: 'free', to: 'basic' }, 'account-a1'),
        noTransaction,
      ),
    ).toBeUndefined();
  });
});
