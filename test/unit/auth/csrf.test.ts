import { describe, expect, it } from '@jest/globals';
import { createHmac, randomBytes } from 'node:crypto';
import { csrfTokenFor, csrfTokenMatches } from '../../../src/platform/auth/csrf.js';

describe('CSRF tokens (signed double submit)', () => {
  const secret = randomBytes(32);
  const session = randomBytes(32).toString('base64url');
  const other = randomBytes(32).toString('base64url');

  it('is the base64url HMAC-SHA256 of csrf:<session id>', () => {
    const token = csrfTokenFor(session, secret);
    expect(token).toBe(createHmac('sha256', secret).update(`csrf:${session}`).digest('base64url'));
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(csrfTokenFor(session, secret)).toBe(token);
    expect(csrfTokenFor(other, secret)).not.toBe(token);
    expect(csrfTokenFor(session, randomBytes(32))).not.toBe(token);
  });

  it('matches only when header and cookie are both this session’s token', () => {
    const token = csrfTokenFor(session, secret);
    expect(csrfTokenMatches(session, token, token, secret)).toBe(true);

    const otherToken = csrfTokenFor(other, secret);
    expect(csrfTokenMatches(session, otherToken, otherToken, secret)).toBe(false);
    expect(csrfTokenMatches(session, token, otherToken, secret)).toBe(false);
    expect(csrfTokenMatches(session, otherToken, token, secret)).toBe(false);
    const forged = randomBytes(32).toString('base64url');
    expect(csrfTokenMatches(session, forged, forged, secret)).toBe(false);
    expect(csrfTokenMatches(session, token, token, randomBytes(32))).toBe(false);
  });

  it('is false for missing or malformed values', () => {
    const token = csrfTokenFor(session, secret);
    expect(csrfTokenMatches(session, undefined, token, secret)).toBe(false);
    expect(csrfTokenMatches(session, token, undefined, secret)).toBe(false);
    expect(csrfTokenMatches(session, null, null, secret)).toBe(false);
    expect(csrfTokenMatches(session, '', '', secret)).toBe(false);
    expect(csrfTokenMatches(undefined, token, token, secret)).toBe(false);
    expect(csrfTokenMatches('', token, token, secret)).toBe(false);
    expect(csrfTokenMatches(session, `${token} `, `${token} `, secret)).toBe(false);
    expect(csrfTokenMatches(session, token.slice(1), token.slice(1), secret)).toBe(false);
    expect(csrfTokenMatches(session, 'é'.repeat(43), 'é'.repeat(43), secret)).toBe(false);
    expect(csrfTokenMatches(session, [token] as unknown as string, token, secret)).toBe(false);
  });
});
