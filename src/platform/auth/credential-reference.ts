import { createHash } from 'node:crypto';

/**
 * How events name a browser session (ADR 68): the session id is the cookie's secret, so never it, but the first
 * 16 hex digits of its SHA-256 (the session store keys documents by the full digest). Stable for the session's
 * life, so an auditor can group a session's events, and useless as a cookie.
 */
export function sessionReference(sessionId: string): string {
  return createHash('sha256').update(sessionId, 'utf8').digest('hex').slice(0, 16);
}
