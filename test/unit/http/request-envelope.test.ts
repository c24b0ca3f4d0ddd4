import { describe, expect, it } from '@jest/globals';
import type { Principal } from '../../../src/platform/auth/access.js';
import { envelopeFor } from '../../../src/platform/http/request-envelope.js';

/** The attribution of a request's events (ADR 68, 109): credential, surface (the principal's channel), client. */
describe('envelopeFor', () => {
  const token: Principal = {
    accountId: 'a1',
    via: 'access_token',
    channel: 'mcp',
    scopes: ['service.read'],
    tokenId: 't1',
  };

  it('names the token, the mcp surface and the request; the OAuth client when the token names one', () => {
    expect(envelopeFor(token, 'r1').metadata).toMatchObject({
      actor: 'account:a1',
      payer: 'account:a1',
      credential: 'access_token:t1',
      surface: 'mcp',
      requestId: 'r1',
    });
    expect(envelopeFor(token, 'r1').metadata).not.toHaveProperty('clientId');
    expect(envelopeFor({ ...token, clientId: 'client-9' }, 'r1').metadata).toMatchObject({
      credential: 'access_token:t1',
      surface: 'mcp',
      clientId: 'client-9',
    });
  });

  it('names a key by its id', () => {
    const key: Principal = { accountId: 'a1', via: 'api_key', channel: 'mcp', scopes: [], keyId: 'k1' };
    expect(envelopeFor(key).metadata).toMatchObject({ credential: 'api_key:k1', surface: 'mcp' });
  });
});
