import { describe, expect, it } from '@jest/globals';
import {
  accessTokenDecider,
  type AccessTokenIssued,
  type AccountAccessEvent,
} from '../../../src/accounts/domain/account-access.js';
import { deciderSpec } from '../../support/decider-spec.js';

const { given } = deciderSpec(accessTokenDecider);
const now = new Date('2026-03-10T09:15:00.000Z');
const ctx = { now };

const issued = (tokenId: string, at: string, expiresAt: string): AccessTokenIssued => ({
  type: 'AccessTokenIssued',
  data: { accountId: 'a1', tokenId, client: 'api', scopes: ['service.read'], issuedAt: at, expiresAt, at },
});
const live = issued('t1', '2026-03-10T09:00:00.000Z', '2026-03-10T10:00:00.000Z');
const signedIn: AccountAccessEvent = {
  type: 'SignedIn',
  data: { accountId: 'a1', session: 'ref', ip: '127.0.0.1', userAgent: 'ua', at: '2026-03-10T09:05:00.000Z' },
};
const revoke = (tokenId: string) => ({ type: 'RevokeAccessToken', accountId: 'a1', tokenId }) as const;

describe('access token decider (ADR 74)', () => {
  it('revokes a live token of the stream, at the decision time; the event holds ids and time only', () => {
    const { state, events } = given([live, signedIn])
      .when(revoke('t1'), ctx)
      .then([
        { type: 'AccessTokenRevoked', data: { accountId: 'a1', tokenId: 't1', at: now.toISOString() } },
      ]);
    expect(state.tokens.t1).toEqual({ expiresAt: '2026-03-10T10:00:00.000Z', revokedAt: now.toISOString() });
    expect(Object.keys(events[0]!.data).sort()).toEqual(['accountId', 'at', 'tokenId']);
  });

  it('revoking a revoked token decides nothing (idempotent)', () => {
    const { events } = given([live]).when(revoke('t1'), ctx).decided();
    given([live, ...events])
      .when(revoke('t1'), { now: new Date(now.getTime() + 1000) })
      .then([]);
  });

  it('an unknown token (another account’s is not in this stream) is not_found', () => {
    given([]).when(revoke('t1'), ctx).then('not_found');
    given([live]).when(revoke('t2'), ctx).then('not_found');
    given([live]).when(revoke('__proto__'), ctx).then('not_found');
  });

  it('an expired token is not_found, whether or not a later issuance dropped it from the state', () => {
    const expiresAtNow = issued('t0', '2026-03-10T08:15:00.000Z', now.toISOString());
    given([expiresAtNow]).when(revoke('t0'), ctx).then('not_found');
    const later = issued('t3', '2026-03-10T09:10:00.000Z', '2026-03-10T10:10:00.000Z');
    const { state } = given([expiresAtNow, later]);
    expect(Object.keys(state.tokens)).toEqual(['t0', 't3']);
    const afterExpiry = issued('t4', '2026-03-10T09:20:00.000Z', '2026-03-10T10:20:00.000Z');
    expect(Object.keys(given([expiresAtNow, later, afterExpiry]).state.tokens)).toEqual(['t3', 't4']);
    given([expiresAtNow, later, afterExpiry]).when(revoke('t0'), ctx).then('not_found');
  });
});
