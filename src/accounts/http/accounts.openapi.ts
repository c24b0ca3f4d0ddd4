import type { HeadersObject } from '@nestjs/swagger';
import {
  arrayOf,
  component,
  dateTime,
  integer,
  nullable,
  object,
  oneOfStrings,
  string,
} from '../../platform/http/openapi/schema.js';

/** Response documents of sign-in, API keys and access tokens. */

export const SESSION_COOKIES: HeadersObject = {
  'Set-Cookie': {
    description:
      '__Host-ps (the session, HttpOnly) and __Host-pc (the CSRF token, readable by the page script)',
    schema: string(),
  },
};

export const SIGNED_IN = component(
  'SignedIn',
  object({
    account_id: string(),
    csrf_token: string({ description: 'echo it in X-CSRF-Token on unsafe session requests' }),
    expires_at: dateTime(),
  }),
);

export const CURRENT_SESSION = component(
  'CurrentSession',
  object({
    account_id: string(),
    email: string(),
    plan: string(),
    organization_id: nullable(
      string({ description: 'the organization this session is restricted to; null in the personal context' }),
    ),
  }),
);

const API_KEY_FIELDS = {
  id: string(),
  prefix: string({ description: 'the start of the key, to recognise it' }),
  label: string(),
  issued_at: dateTime(),
  revoked_at: nullable(dateTime()),
};

export const API_KEY = component('ApiKey', object(API_KEY_FIELDS));

export const ISSUED_API_KEY = component(
  'IssuedApiKey',
  object({ ...API_KEY_FIELDS, key: string({ description: 'the key itself: shown in this answer only' }) }),
);

export const API_KEYS = arrayOf(API_KEY);

export const ACCESS_TOKEN = component(
  'AccessToken',
  object({
    access_token: string({ description: 'a JWT for Authorization: Bearer' }),
    token_type: oneOfStrings(['Bearer']),
    expires_in: integer({ minimum: 60, maximum: 86400, description: 'seconds' }),
    expires_at: dateTime(),
    scope: string({ description: 'space-separated scopes' }),
  }),
);

export const ACCESS_TOKEN_SUMMARY = component(
  'AccessTokenSummary',
  object({
    id: string({ description: 'the token id (its jti): what DELETE /api/v2/auth/tokens/{tokenId} takes' }),
    client: oneOfStrings(['api', 'mcp']),
    scopes: arrayOf(string()),
    issued_at: dateTime(),
    expires_at: dateTime(),
    revoked_at: nullable(
      dateTime({
        description: 'when it stopped working: revoked, or the password changed after it was issued',
      }),
    ),
  }),
);

export const ACCESS_TOKEN_SUMMARIES = arrayOf(ACCESS_TOKEN_SUMMARY);
