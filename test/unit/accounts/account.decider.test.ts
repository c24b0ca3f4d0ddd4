import { describe, expect, it } from '@jest/globals';
import {
  accountDecider,
  accountStreamId,
  activeApiKeyCount,
  MAX_ACTIVE_API_KEYS,
  type AccountEvent,
  type ApiKeyIssued,
} from '../../../src/accounts/domain/account.js';
import { deciderSpec } from '../../support/decider-spec.js';

const { given } = deciderSpec(accountDecider);
const now = new Date('2026-03-10T09:15:00.000Z');
const later = new Date('2026-03-11T10:00:00.000Z');
const ctx = { now };

const registered: AccountEvent = {
  type: 'AccountRegistered',
  data: { accountId: 'a1', email: 'ada@example.com', plan: 'free', cycleAnchor: '2026-01-05T08:00:00.000Z' },
};
const issued = (keyId: string, label = `key ${keyId}`): ApiKeyIssued => ({
  type: 'ApiKeyIssued',
  data: {
    keyId,
    prefix: `pk_${keyId}`,
    label,
    issuedAt: '2026-02-01T00:00:00.000Z',
  },
});
const revoked = (keyId: string): AccountEvent => ({
  type: 'ApiKeyRevoked',
  data: { keyId, revokedAt: '2026-02-02T00:00:00.000Z' },
});

describe('account decider', () => {
  it('names the stream after the account', () => {
    expect(accountStreamId('a1')).toBe('account-a1');
  });

  describe('RegisterAccount', () => {
    it('registers with a lowercased email and the registration time as cycle anchor', () => {
      const { state } = given([])
        .when(
          { type: 'RegisterAccount', accountId: 'a1', email: '  Ada@Example.COM ', plan: 'professional' },
          ctx,
        )
        .then([
          {
            type: 'AccountRegistered',
            data: {
              accountId: 'a1',
              email: 'ada@example.com',
              plan: 'professional',
              cycleAnchor: '2026-03-10T09:15:00.000Z',
            },
          },
        ]);
      expect(state).toEqual({
        registered: true,
        accountId: 'a1',
        email: 'ada@example.com',
        plan: 'professional',
        cycleAnchor: '2026-03-10T09:15:00.000Z',
        passwordCredentialId: null,
        apiKeys: {},
      });
    });

    it('sets the password in the same decision when a credential is given, naming it by id only', () => {
      const { state } = given([])
        .when(
          {
            type: 'RegisterAccount',
            accountId: 'a1',
            email: 'a@b.io',
            plan: 'free',
            passwordCredentialId: 'password-1',
          },
          ctx,
        )
        .then([
          {
            type: 'AccountRegistered',
            data: { accountId: 'a1', email: 'a@b.io', plan: 'free', cycleAnchor: now.toISOString() },
          },
          { type: 'PasswordSet', data: { credentialId: 'password-1' } },
        ]);
      expect(state.passwordCredentialId).toBe('password-1');
    });

    it('refuses registering twice', () => {
      given([registered])
        .when({ type: 'RegisterAccount', accountId: 'a1', email: 'ada@example.com', plan: 'free' }, ctx)
        .then('already_exists');
    });

    it.each([
      ['no at sign', 'ada.example.com'],
      ['no tld', 'ada@example'],
      ['empty local part', '@example.com'],
      ['a space inside', 'ada lovelace@example.com'],
      ['two at signs', 'a@b@example.com'],
      ['an empty domain label', 'ada@example..com'],
      ['an empty string', ''],
      ['more than 254 characters', `${'a'.repeat(64)}@${'b'.repeat(186)}.com`],
    ])('refuses an email with %s', (_, email) => {
      const error = given([])
        .when({ type: 'RegisterAccount', accountId: 'a1', email, plan: 'free' }, ctx)
        .then('invalid_input');
      expect(error.details).toEqual({ field: 'email' });
    });

    it('accepts an email of exactly 254 characters', () => {
      const email = `${'a'.repeat(64)}@${'b'.repeat(185)}.com`;
      expect(email).toHaveLength(254);
      given([]).when({ type: 'RegisterAccount', accountId: 'a1', email, plan: 'free' }, ctx).decided();
    });

    it('refuses an unknown plan, an empty id and an empty password credential id', () => {
      given([])
        .when({ type: 'RegisterAccount', accountId: 'a1', email: 'a@b.io', plan: 'gold' as never }, ctx)
        .then('invalid_input');
      given([])
        .when({ type: 'RegisterAccount', accountId: '', email: 'a@b.io', plan: 'free' }, ctx)
        .then('invalid_input');
      given([])
        .when(
          {
            type: 'RegisterAccount',
            accountId: 'a1',
            email: 'a@b.io',
            plan: 'free',
            passwordCredentialId: '',
          },
          ctx,
        )
        .then('invalid_input');
    });
  });

  describe('on an unregistered account', () => {
    it.each([
      { type: 'SetPassword', credentialId: 'password-1' },
      { type: 'ChangePlan', plan: 'enterprise' },
      { type: 'IssueApiKey', keyId: 'k1', prefix: 'pk', label: 'ci' },
      { type: 'RevokeApiKey', keyId: 'k1' },
    ] as const)('refuses $type with not_found', (command) => {
      given([]).when(command, ctx).then('not_found');
    });
  });

  describe('SetPassword', () => {
    it('sets and replaces the password credential, and invalidates every access token issued until now, in one append; no hash', () => {
      const { state, events } = given([registered, { type: 'PasswordSet', data: { credentialId: 'old' } }])
        .when({ type: 'SetPassword', credentialId: 'new' }, ctx)
        .then([
          { type: 'PasswordSet', data: { credentialId: 'new' } },
          {
            type: 'AccessTokensInvalidated',
            data: { issuedBefore: now.toISOString(), cause: 'password_changed' },
          },
        ]);
      expect(state.passwordCredentialId).toBe('new');
      expect(Object.keys(events[0]!.data)).toEqual(['credentialId']);
    });

    it('refuses an empty credential id', () => {
      given([registered]).when({ type: 'SetPassword', credentialId: '' }, ctx).then('invalid_input');
    });
  });

  describe('ReplacePasswordHash', () => {
    it('replaces the credential of the same password and leaves access tokens alone', () => {
      const { state } = given([registered, { type: 'PasswordSet', data: { credentialId: 'old' } }])
        .when({ type: 'ReplacePasswordHash', credentialId: 'rehashed' }, ctx)
        .then([{ type: 'PasswordSet', data: { credentialId: 'rehashed' } }]);
      expect(state.passwordCredentialId).toBe('rehashed');
    });

    it('refuses an empty credential id, and an unregistered account', () => {
      given([registered]).when({ type: 'ReplacePasswordHash', credentialId: '' }, ctx).then('invalid_input');
      given([]).when({ type: 'ReplacePasswordHash', credentialId: 'x' }, ctx).then('not_found');
    });
  });

  describe('ChangePlan', () => {
    it('records the change from and to', () => {
      const { state } = given([registered])
        .when({ type: 'ChangePlan', plan: 'enterprise' }, ctx)
        .then([{ type: 'PlanChanged', data: { from: 'free', to: 'enterprise' } }]);
      expect(state.plan).toBe('enterprise');
      // The billing anchor does not move with the plan.
      expect(state.cycleAnchor).toBe('2026-01-05T08:00:00.000Z');
    });

    it('decides nothing when the plan is unchanged', () => {
      given([registered]).when({ type: 'ChangePlan', plan: 'free' }, ctx).then([]);
    });

    it('refuses an unknown plan', () => {
      given([registered])
        .when({ type: 'ChangePlan', plan: 'platinum' as never }, ctx)
        .then('invalid_input');
    });
  });

  describe('IssueApiKey', () => {
    it('issues a key; the event and the state keep its prefix, label and dates, never the secret hash', () => {
      const { state } = given([registered])
        .when({ type: 'IssueApiKey', keyId: 'k1', prefix: 'pk_k1', label: 'CI runner' }, ctx)
        .then([
          {
            type: 'ApiKeyIssued',
            data: {
              keyId: 'k1',
              prefix: 'pk_k1',
              label: 'CI runner',
              issuedAt: now.toISOString(),
            },
          },
        ]);
      expect(state.apiKeys).toEqual({
        k1: { prefix: 'pk_k1', label: 'CI runner', issuedAt: now.toISOString(), revokedAt: null },
      });
    });

    it('allows 20 active keys and refuses the 21st with a clear message', () => {
      const twenty = Array.from({ length: MAX_ACTIVE_API_KEYS }, (_, i) => issued(`k${i}`));
      const nineteen = given([registered, ...twenty.slice(0, 19)]);
      nineteen.when({ type: 'IssueApiKey', keyId: 'k19', prefix: 'p', label: '' }, ctx).decided();
      const error = given([registered, ...twenty])
        .when({ type: 'IssueApiKey', keyId: 'k20', prefix: 'p', label: 'x' }, ctx)
        .then('invalid_input');
      expect(error.message).toMatch(/at most 20 active API keys/);
      expect(error.details).toEqual({ active: 20, limit: 20 });
    });

    it('does not count revoked keys against the limit', () => {
      const twenty = Array.from({ length: MAX_ACTIVE_API_KEYS }, (_, i) => issued(`k${i}`));
      const spec = given([registered, ...twenty, revoked('k3')]);
      expect(activeApiKeyCount(spec.state)).toBe(19);
      spec.when({ type: 'IssueApiKey', keyId: 'k20', prefix: 'p', label: 'x' }, ctx).decided();
    });

    it('accepts a 100-character label and refuses a longer one (counted in characters)', () => {
      given([registered])
        .when({ type: 'IssueApiKey', keyId: 'k1', prefix: 'p', label: '🔑'.repeat(100) }, ctx)
        .decided();
      const error = given([registered])
        .when({ type: 'IssueApiKey', keyId: 'k1', prefix: 'p', label: 'x'.repeat(101) }, ctx)
        .then('invalid_input');
      expect(error.details).toEqual({ field: 'label' });
    });

    it('refuses a key id already used, even by a revoked key', () => {
      given([registered, issued('k1'), revoked('k1')])
        .when({ type: 'IssueApiKey', keyId: 'k1', prefix: 'p', label: 'x' }, ctx)
        .then('already_exists');
    });

    it('refuses an empty key id or prefix', () => {
      for (const command of [
        { keyId: '', prefix: 'p' },
        { keyId: 'k', prefix: '' },
      ]) {
        given([registered])
          .when({ type: 'IssueApiKey', label: 'x', ...command }, ctx)
          .then('invalid_input');
      }
    });

    it('keeps ids such as __proto__ as plain entries', () => {
      const { state } = given([registered])
        .when({ type: 'IssueApiKey', keyId: '__proto__', prefix: 'p', label: 'x' }, ctx)
        .decided();
      expect(Object.keys(state.apiKeys)).toEqual(['__proto__']);
      given([registered]).when({ type: 'RevokeApiKey', keyId: 'constructor' }, ctx).then('not_found');
    });
  });

  describe('RevokeApiKey', () => {
    it('revokes an active key', () => {
      const { state } = given([registered, issued('k1'), issued('k2')])
        .when({ type: 'RevokeApiKey', keyId: 'k1' }, { now: later })
        .then([{ type: 'ApiKeyRevoked', data: { keyId: 'k1', revokedAt: later.toISOString() } }]);
      expect(state.apiKeys['k1']?.revokedAt).toBe(later.toISOString());
      expect(state.apiKeys['k2']?.revokedAt).toBeNull();
    });

    it('is idempotent on a revoked key', () => {
      given([registered, issued('k1'), revoked('k1')])
        .when({ type: 'RevokeApiKey', keyId: 'k1' }, ctx)
        .then([]);
    });

    it('refuses an unknown key', () => {
      const error = given([registered, issued('k1')])
        .when({ type: 'RevokeApiKey', keyId: 'nope' }, ctx)
        .then('not_found');
      expect(error.details).toEqual({ keyId: 'nope' });
    });
  });
});
