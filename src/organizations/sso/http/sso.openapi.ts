import {
  boolean,
  component,
  dateTime,
  nullable,
  object,
  string,
  uuid,
} from '../../../platform/http/openapi/schema.js';

/** Response documents of single sign-on (rule 12). */

export const SSO_SETTINGS = component(
  'SsoSettings',
  object({
    organization_id: uuid(),
    provider: nullable(
      object({ issuer: string(), client_id: string(), client_secret_set: { type: 'boolean', enum: [true] } }),
    ),
    redirect_uri: string({ description: 'the address to register at the provider as the redirect URI' }),
    enforced: boolean(),
    recovery_code: object({
      issued: boolean(),
      issued_at: nullable(dateTime()),
      tested: boolean(),
      saved: boolean(),
    }),
    enforcement_ready: boolean({ description: 'provider configured, recovery code tested and saved' }),
  }),
);

export const ISSUED_RECOVERY_CODE = component(
  'IssuedRecoveryCode',
  object({
    recovery_code: string({ description: 'shown in this answer only' }),
    settings: SSO_SETTINGS,
  }),
);

export const RECOVERY_SIGN_IN = component(
  'RecoverySignIn',
  object({
    account_id: string(),
    organization_id: uuid(),
    csrf_token: string(),
    expires_at: dateTime(),
    recovery_code_used: { type: 'boolean', enum: [true] },
  }),
);

export const SIGN_IN_START_QUERY = {
  return_to: {
    schema: string({ maxLength: 512 }),
    description: 'a path on this service to return to after sign-in (anything else returns to /)',
  },
};

export const CALLBACK_QUERY = {
  code: { schema: string(), description: 'the authorization code (from the provider)' },
  state: { schema: string(), description: 'the state the sign-in started with (from the provider)' },
  iss: { schema: string(), description: 'the issuer (from the provider)' },
  error: { schema: string(), description: "the provider's error, when sign-in failed there" },
  error_description: { schema: string(), description: "the provider's explanation of the error" },
};
