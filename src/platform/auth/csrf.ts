/**
 * CSRF protection by the signed double-submit pattern (OWASP): the token is HMAC-SHA256(secret,
 * 'csrf:' + sessionId), base64url. It travels in the script-readable `__Host-pc` cookie, and the page's
 * script echoes it in the X-CSRF-Token header. A request passes only when header and cookie agree AND both
 * are this session's HMAC, so a token planted from another session (or forged without the secret) fails.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const CSRF_HEADER = 'x-csrf-token';
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export function csrfTokenFor(sessionId: string, secret: Buffer): string {
  return createHmac('sha256', secret).update(`csrf:${sessionId}`, 'utf8').digest('base64url');
}

/** True only when header and cookie are both this session's token; false for anything missing or malformed. */
export function csrfTokenMatches(
  sessionId: string | null | undefined,
  headerValue: string | null | undefined,
  cookieValue: string | null | undefined,
  secret: Buffer,
): boolean {
  if (typeof sessionId !== 'string' || sessionId.length === 0) return false;
  if (typeof headerValue !== 'string' || typeof cookieValue !== 'string') return false;
  if (!TOKEN_PATTERN.test(headerValue) || !TOKEN_PATTERN.test(cookieValue)) return false;
  const expected = Buffer.from(csrfTokenFor(sessionId, secret), 'utf8');
  const header = Buffer.from(headerValue, 'utf8');
  const cookie = Buffer.from(cookieValue, 'utf8');
  // Both comparisons always run, so the time taken does not tell which one failed.
  const headerOk = timingSafeEqual(header, expected);
  const cookieOk = timingSafeEqual(cookie, expected);
  return headerOk && cookieOk;
}
