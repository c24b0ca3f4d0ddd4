import { describe, expect, it } from '@jest/globals';
import type { AccessRule, PrincipalDirectory } from '../../../src/platform/auth/access.js';
import type { AccessTokens, VerifiedAccessToken } from '../../../src/platform/auth/access-tokens.js';
import { generateApiKey } from '../../../src/platform/auth/api-keys.js';
import { PersonalCredentials } from '../../../src/platform/auth/personal-credentials.js';

/**
 * The channel and client a personal credential acts with (ADR 108, 109). The lookups are the directory's (read
 * models, covered end to end by the auth matrix and the MCP suite); here they answer from memory.
 */
describe('PersonalCredentials', () => {
  const key = generateApiKey();
  const directory: PrincipalDirectory = {
    findApiKey: async (keyId) =>
      keyId === key.keyId ? { accountId: 'a1', secretHash: key.secretHash, revoked: false } : null,
    accountStanding: async () => ({
      exists: true,
      personalData: { allowed: true },
      accessTokensIssuedBefore: null,
    }),
    accessTokenRevokedAt: async () => null,
  };
  const token = (extra: Partial<VerifiedAccessToken>): AccessTokens =>
    ({
      verify: async () => ({
        accountId: 'a1',
        scopes: ['service.read'],
        client: 'api',
        tokenId: 't1',
        issuedAt: new Date(0),
        expiresAt: new Date(8.64e15),
        ...extra,
      }),
    }) as unknown as AccessTokens;
  const MCP: AccessRule = { surface: 'mcp', permission: 'mcp.connect' };
  const API: AccessRule = { surface: 'personal_api', permission: 'data.search', personalData: true };
  const bearer = (value: string) => ({ headers: { authorization: `Bearer ${value}` } });

  it('on the mcp surface every credential acts on the mcp channel; on the personal API as its token says', async () => {
    const credentials = new PersonalCredentials(directory, token({}));
    expect(await credentials.authenticate(bearer(key.key), MCP)).toMatchObject({
      via: 'api_key',
      keyId: key.keyId,
      channel: 'mcp',
    });
    expect(await credentials.authenticate(bearer(key.key), API)).toMatchObject({ channel: 'api' });
    expect(await credentials.authenticate(bearer('h.p.s'), MCP)).toMatchObject({
      via: 'access_token',
      tokenId: 't1',
      channel: 'mcp',
    });
    expect(await credentials.authenticate(bearer('h.p.s'), API)).toMatchObject({ channel: 'api' });
  });

  it("carries the OAuth client of the authorization server's tokens, and none for others", async () => {
    const oauth = new PersonalCredentials(directory, token({ clientId: 'client-7' }));
    expect(await oauth.authenticate(bearer('h.p.s'), MCP)).toMatchObject({ clientId: 'client-7' });
    const minted = await new PersonalCredentials(directory, token({})).authenticate(bearer('h.p.s'), MCP);
    expect(minted).not.toHaveProperty('clientId');
  });

  it('refuses a missing credential with 401 unauthenticated naming the bearer header', async () => {
    await expect(
      new PersonalCredentials(directory, token({})).authenticate({ headers: {} }, MCP),
    ).rejects.toMatchObject({
      code: 'unauthenticated',
      message: expect.stringContaining('Authorization: Bearer'),
    });
  });
});
