/**
 * The browser-session cookies. `__Host-` names make browsers insist on Secure, Path=/ and no Domain, so
 * a sibling subdomain cannot plant or overwrite them.
 *
 * - `__Host-ps`: the session id. HttpOnly (script never reads it), Secure, SameSite=Strict.
 * - `__Host-pc`: the CSRF token. Script must read it to echo it in X-CSRF-Token, so NOT HttpOnly; Secure,
 *   SameSite=Strict.
 *
 * Both carry Max-Age = the session's absolute lifetime, and are cleared together with Max-Age=0.
 */

import { parseCookie } from 'cookie';

export const SESSION_COOKIE = '__Host-ps';
export const CSRF_COOKIE = '__Host-pc';
const COOKIE_VALUE = /^[A-Za-z0-9_-]{1,256}$/;

/** Set-Cookie header values for a new session. */
export function sessionCookies(sessionId: string, csrfToken: string, maxAgeSeconds: number): string[] {
  if (!COOKIE_VALUE.test(sessionId) || !COOKIE_VALUE.test(csrfToken)) {
    throw new Error('session cookie values must be base64url');
  }
  if (!Number.isInteger(maxAgeSeconds) || maxAgeSeconds < 1) {
    throw new Error('a session cookie Max-Age must be a positive whole number of seconds');
  }
  return [
    `${SESSION_COOKIE}=${sessionId}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; Secure; SameSite=Strict`,
    `${CSRF_COOKIE}=${csrfToken}; Path=/; Max-Age=${maxAgeSeconds}; Secure; SameSite=Strict`,
  ];
}

/** Set-Cookie header values that delete both cookies (same attributes, so the browser matches them). */
export function clearedSessionCookies(): string[] {
  return [
    `${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Strict`,
    `${CSRF_COOKIE}=; Path=/; Max-Age=0; Secure; SameSite=Strict`,
  ];
}

/**
 * Parses a Cookie request header with the `cookie` package. Tolerant and total: never throws; pairs without `=`
 * or with an empty name are skipped; surrounding whitespace and double quotes are removed; percent-escapes are
 * decoded when valid; the first occurrence of a name wins (a planted duplicate later in the header cannot
 * override). The result has no prototype, so names such as `__proto__` are plain keys.
 */
export function parseCookies(header: string | undefined | null): Record<string, string> {
  const cookies: Record<string, string> = Object.create(null) as Record<string, string>;
  if (typeof header !== 'string' || header.length === 0) return cookies;
  const parsed = parseCookie(header, { decode: unquoteAndDecode });
  for (const name of Object.keys(parsed)) {
    const value = parsed[name];
    if (name.length > 0 && value !== undefined) cookies[name] = value;
  }
  return cookies;
}

function unquoteAndDecode(value: string): string {
  const unquoted =
    value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
  if (!unquoted.includes('%')) return unquoted;
  try {
    return decodeURIComponent(unquoted);
  } catch {
    return unquoted;
  }
}
