/**
 * The one registry of error codes and their HTTP statuses. Add codes here, never inline: the mapping is an
 * exhaustive record, so a code without a status fails to compile.
 */
export const ERROR_STATUS = {
  /** The HTTP request itself is malformed: a URL that does not decode, a header the HTTP parser refuses. */
  malformed_request: 400,
  unauthenticated: 401,
  /** A well-signed access token that was revoked, or issued before its account's password changed (ADR 74, 75). */
  token_revoked: 401,
  /** Rule 12: the provider sign-in failed its checks (state, nonce, PKCE, issuer, audience, signature). */
  sso_failed: 401,
  entitlement_required: 402,
  insufficient_credits: 402,
  export_quota_exhausted: 402,
  envelope_exhausted: 402,
  forbidden: 403,
  csrf_failed: 403,
  insufficient_scope: 403,
  organization_restricted: 403,
  personal_research_unavailable: 403,
  trial_ineligible: 403,
  trial_field_omitted: 403,
  /** Rule 12: staff of an organization enforcing single sign-on sign in through its provider. */
  sso_required: 403,
  /** Rule 12: the provider identity is no staff member of the organization. */
  sso_not_member: 403,
  /** Authentication 6: exposure routes need an Exposition organization. */
  exposure_not_enabled: 403,
  not_found: 404,
  method_not_allowed: 405,
  version_conflict: 409,
  already_exists: 409,
  transfer_changed: 409,
  capacity_conflict: 409,
  export_not_ready: 409,
  creation_unavailable: 409,
  space_required: 409,
  case_required: 409,
  case_unavailable: 409,
  rerun_required: 409,
  domain_not_verified: 409,
  sso_not_configured: 409,
  /** Rule 12: enforcement needs a recovery code issued, tested and saved. */
  recovery_code_required: 409,
  /** Scope state: a deleted scope can be restored only before erase_after and before erasure begins. */
  restore_window_closed: 409,
  /** Organizations: an account is staff of at most one organization at a time (joining a second as staff). */
  staff_of_another_organization: 409,
  /** Frozen reports: a scope keeps at most 100. */
  report_limit_reached: 409,
  /** Frozen reports: a document holds at most 16 MiB. */
  report_too_large: 409,
  /** The request line or headers did not arrive in time. */
  request_timeout: 408,
  export_expired: 410,
  payload_too_large: 413,
  /** A path segment is longer than any identifier the service uses. */
  uri_too_long: 414,
  unsupported_media_type: 415,
  invalid_input: 422,
  invalid_query: 422,
  invalid_cve_selector: 422,
  invalid_reference: 422,
  personal_mailbox_domain: 422,
  recovery_code_invalid: 422,
  precondition_required: 428,
  rate_limited: 429,
  background_busy: 429,
  /** The request headers are larger than the HTTP server accepts. */
  headers_too_large: 431,
  internal_error: 500,
  /** A frozen report's stored document is missing or does not match the SHA-256 its event recorded. */
  report_integrity_failed: 500,
  lookup_unavailable: 503,
  /** Rule 12: the organization's OpenID Connect provider did not answer. */
  sso_provider_unavailable: 503,
  not_ready: 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;

export function statusOf(code: ErrorCode): number {
  return ERROR_STATUS[code];
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_STATUS, value);
}
