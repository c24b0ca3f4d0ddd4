/**
 * How accounts reach the service (ADR 69): sign-ins (success and failure), sign-outs and access tokens issued,
 * recorded as evidence in `access-<accountId>` (or `access-email-<digest>` when no account uses the email).
 * Never a password, a session id or a token: a session is named by its reference, a token by its id.
 */
import { createHash } from 'node:crypto';
import type { DomainEvent } from '../../platform/event-sourcing/decider.js';

export const accessStreamId = (accountId: string): string => `access-${accountId}`;

/** An email no account uses, as a digest (the email claim's): attempts on it group without storing it. */
export const emailDigest = (email: string): string =>
  createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 32);
export const unknownEmailAccessStreamId = (email: string): string => `access-email-${emailDigest(email)}`;

export type SignInFailure = 'wrong_password' | 'no_password' | 'unknown_email' | 'sso_required';

export type SignedIn = DomainEvent<
  'SignedIn',
  { accountId: string; session: string; ip: string; userAgent: string; at: string }
>;
export type SignInFailed = DomainEvent<
  'SignInFailed',
  { accountId: string | null; emailDigest: string; failure: SignInFailure; ip: string; at: string }
>;
export type SignedOut = DomainEvent<'SignedOut', { accountId: string; session: string; at: string }>;
export type AccessTokenIssued = DomainEvent<
  'AccessTokenIssued',
  { accountId: string; tokenId: string; client: string; scopes: string[]; expiresAt: string; at: string }
>;
export type AccountAccessEvent = SignedIn | SignInFailed | SignedOut | AccessTokenIssued;
