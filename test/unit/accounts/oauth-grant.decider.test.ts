import { describe, expect, it } from '@jest/globals';
import { accessTokenDecision } from '../../../src/accounts/domain/entitlements.js';
import { oauthGrantDecider, type OAuthAppAuthorized } from '../../../src/accounts/domain/oauth-grant.js';
import { deciderSpec } from '../../support/decider-spec.js';

const now = new Date('2026-03-01T10:00:00.000Z');
const at = now.toISOString();
const allowed = accessTokenDecision('professional', 0);
const freeOnly = accessTokenDecision('free', 0);
const { given } = deciderSpec(oauthGrantDecider);

const authorizeApp = {
  type: 'AuthorizeApp' as const,
  accountId: 'a1',
  grantId: 'g1',
  clientId: 'c1',
  clientName: 'App',
  redirectHost: 'app.example',
  scopes: ['service.read'],
  resource: 'https://svc.example',
};
const authorizedEvent: OAuthAppAuthorized = {
  type: 'OAuthAppAuthorized',
  data: {
    accountId: 'a1',
    grantId: 'g1',
    clientId: 'c1',
    clientName: 'App',
    redirectHost: 'app.example',
    scopes: ['service.read'],
    resource: 'https://svc.example',
    at,
  },
};
const issue = {
  type: 'IssueOAuthAccessToken' as const,
  tokenId: 't1',
  clientId: 'c1',
  issuedAt: now,
  expiresAt: new Date(now.getTime() + 3600_000),
  scopes: ['service.read'],
  grantType: 'refresh_token' as const,
};

describe('oauthGrantDecider', () => {
  it('records a consent, and refuses a Free account holding only its allocation, another scope, a second decision', () => {
    given([]).when(authorizeApp, { now, entitlement: allowed }).then([authorizedEvent]);
    const refused = given([]).when(authorizeApp, { now, entitlement: freeOnly }).then('entitlement_required');
    expect(refused.message).toContain('purchased credit balance above zero');
    given([])
      .when({ ...authorizeApp, scopes: ['admin'] }, { now, entitlement: allowed })
      .then('invalid_input');
    given([authorizedEvent]).when(authorizeApp, { now, entitlement: allowed }).then('already_exists');
  });

  it('issues under a live grant only, for its own client, while the account is entitled', () => {
    const { events } = given([authorizedEvent]).when(issue, { now, entitlement: allowed }).decided();
    expect(events).toEqual([
      {
        type: 'AccessTokenIssued',
        data: expect.objectContaining({
          accountId: 'a1',
          tokenId: 't1',
          client: 'api',
          grantId: 'g1',
          clientId: 'c1',
        }),
      },
    ]);
    given([authorizedEvent]).when(issue, { now, entitlement: freeOnly }).then('entitlement_required');
    given([authorizedEvent])
      .when({ ...issue, clientId: 'c2' }, { now, entitlement: allowed })
      .then('forbidden');
    given([]).when(issue, { now, entitlement: allowed }).then('not_found');
  });

  it('revokes on reuse and on request, once; a revoked grant issues nothing', () => {
    const reuse = given([authorizedEvent])
      .when({ type: 'DetectReuse', artifact: 'refresh_token' }, { now })
      .decided();
    expect(reuse.events.map((event) => event.type)).toEqual(['OAuthGrantReuseDetected', 'OAuthGrantRevoked']);
    expect(reuse.state.status).toBe('revoked');
    const revoked = reuse.events[1]!;
    given([authorizedEvent, revoked]).when(issue, { now, entitlement: allowed }).then('token_revoked');
    given([authorizedEvent, revoked])
      .when({ type: 'RevokeGrant', reason: 'revoked_by_account' }, { now })
      .then([]);
    given([authorizedEvent])
      .when({ type: 'RevokeGrant', reason: 'revoked_by_account', accountId: 'someone-else' }, { now })
      .then('not_found');
  });
});
