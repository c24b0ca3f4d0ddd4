/**
 * The personal account stream (`account-<id>`): registration, password, plan and personal API keys.
 * Pure decider: time comes from the context, refusals are ServiceErrors. No credential material enters an event
 * or the state (ADR 65): a password is named by the id of its credential in the credential store, an API key's
 * hash is stored there under `apiKeyCredentialId(keyId)`.
 */
import type { Decider, DomainEvent } from '../../platform/event-sourcing/decider.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import { isPlanId, type PlanId } from './plans.js';

export const MAX_ACTIVE_API_KEYS = 20;
export const MAX_API_KEY_LABEL_LENGTH = 100;
export const MAX_EMAIL_LENGTH = 254;

export function accountStreamId(accountId: string): string {
  return `account-${accountId}`;
}

/** Kinds of personal credentials in the credential store. */
export const PASSWORD_CREDENTIAL = 'password';
export const API_KEY_CREDENTIAL = 'api-key';

/** Whose a personal credential is, in the credential store. */
export function accountCredentialSubject(accountId: string): string {
  return `account:${accountId}`;
}

/** Where an API key's secret hash is kept in the credential store. */
export function apiKeyCredentialId(keyId: string): string {
  return `api-key-${keyId}`;
}

// ---- Commands ----

export interface RegisterAccount {
  readonly type: 'RegisterAccount';
  readonly accountId: string;
  /** Normalized here: trimmed and lowercased. */
  readonly email: string;
  readonly plan: PlanId;
  /** The credential holding the password's hash, written beside the event. */
  readonly passwordCredentialId?: string;
}
/** A new password: every access token issued until now stops working with it (ADR 75). */
export interface SetPassword {
  readonly type: 'SetPassword';
  /** The credential holding the new password's hash, written beside the event. */
  readonly credentialId: string;
}
/** The same password hashed with today's parameters (after a sign-in proved it): no token is touched. */
export interface ReplacePasswordHash {
  readonly type: 'ReplacePasswordHash';
  readonly credentialId: string;
}
export interface ChangePlan {
  readonly type: 'ChangePlan';
  readonly plan: PlanId;
}
export interface IssueApiKey {
  readonly type: 'IssueApiKey';
  readonly keyId: string;
  /** The public part of the key shown in lists (never the secret). */
  readonly prefix: string;
  readonly label: string;
}
export interface RevokeApiKey {
  readonly type: 'RevokeApiKey';
  readonly keyId: string;
}
export type AccountCommand =
  RegisterAccount | SetPassword | ReplacePasswordHash | ChangePlan | IssueApiKey | RevokeApiKey;

// ---- Events ----

export type AccountRegistered = DomainEvent<
  'AccountRegistered',
  { accountId: string; email: string; plan: PlanId; cycleAnchor: string }
>;
/** Schema 2 (ADR 65): the credential's id; schema 1 carried the hash itself (upcast by account-upcasters). */
export type PasswordSet = DomainEvent<'PasswordSet', { credentialId: string }>;
export type PlanChanged = DomainEvent<'PlanChanged', { from: PlanId; to: PlanId }>;
export type ApiKeyIssued = DomainEvent<
  'ApiKeyIssued',
  /** Schema 2 (ADR 65): schema 1 also carried the secret's hash, now under apiKeyCredentialId(keyId). */
  { keyId: string; prefix: string; label: string; issuedAt: string }
>;
export type ApiKeyRevoked = DomainEvent<'ApiKeyRevoked', { keyId: string; revokedAt: string }>;
/** Why every access token issued until a moment stopped working (ADR 75). */
export type AccessTokensInvalidationCause = 'password_changed';
/**
 * Every access token of the account issued in or before the second of `issuedBefore` is refused from now on
 * (ADR 75): one fact for all of them, including tokens whose issuance left no event.
 */
export type AccessTokensInvalidated = DomainEvent<
  'AccessTokensInvalidated',
  { issuedBefore: string; cause: AccessTokensInvalidationCause }
>;
export type AccountEvent =
  AccountRegistered | PasswordSet | PlanChanged | ApiKeyIssued | ApiKeyRevoked | AccessTokensInvalidated;

// ---- State (plain JSON) ----

export interface ApiKeyState {
  readonly prefix: string;
  readonly label: string;
  readonly issuedAt: string;
  readonly revokedAt: string | null;
}

/** Before registration: every field empty. */
export interface UnregisteredAccountState {
  readonly registered: false;
  readonly accountId: null;
  readonly email: null;
  readonly plan: null;
  readonly cycleAnchor: null;
  readonly passwordCredentialId: null;
  readonly apiKeys: Readonly<Record<string, ApiKeyState>>;
}

export interface RegisteredAccountState {
  readonly registered: true;
  readonly accountId: string;
  readonly email: string;
  readonly plan: PlanId;
  /** Registration date-time: the billing cycle anchor. */
  readonly cycleAnchor: string;
  /** The credential of the current password (never the hash), or null when none is set. */
  readonly passwordCredentialId: string | null;
  readonly apiKeys: Readonly<Record<string, ApiKeyState>>;
}

/** Narrow with `state.registered`. */
export type AccountState = UnregisteredAccountState | RegisteredAccountState;

export interface AccountContext {
  readonly now: Date;
}

const initialState: UnregisteredAccountState = {
  registered: false,
  accountId: null,
  email: null,
  plan: null,
  cycleAnchor: null,
  passwordCredentialId: null,
  apiKeys: {},
};

/** The a@b.tld shape: no spaces, one @, a dot inside the domain with non-empty labels around it. */
const EMAIL_SHAPE = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/;

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function isValidEmail(email: string): boolean {
  return email.length <= MAX_EMAIL_LENGTH && EMAIL_SHAPE.test(email);
}

export function activeApiKeyCount(state: AccountState): number {
  return Object.values(state.apiKeys).filter((key) => key.revokedAt === null).length;
}

export const accountDecider: Decider<AccountCommand, AccountEvent, AccountState, AccountContext> = {
  initialState,
  // 2: the password is a credential id, no longer its hash (ADR 65).
  stateVersion: 2,

  decide(command, state, { now }) {
    if (command.type === 'RegisterAccount') return register(command, state, now);
    if (!state.registered) throw new ServiceError('not_found', 'The account does not exist.');
    switch (command.type) {
      case 'SetPassword':
        requireText(command.credentialId, 'credentialId');
        // In the same append as the password: no moment where the new password and the old tokens both work.
        return [
          { type: 'PasswordSet', data: { credentialId: command.credentialId } },
          {
            type: 'AccessTokensInvalidated',
            data: { issuedBefore: now.toISOString(), cause: 'password_changed' },
          },
        ];
      case 'ReplacePasswordHash':
        requireText(command.credentialId, 'credentialId');
        return [{ type: 'PasswordSet', data: { credentialId: command.credentialId } }];
      case 'ChangePlan': {
        requirePlan(command.plan);
        const from = state.plan;
        if (from === command.plan) return [];
        return [{ type: 'PlanChanged', data: { from, to: command.plan } }];
      }
      case 'IssueApiKey':
        return issueApiKey(command, state, now);
      case 'RevokeApiKey': {
        const key = ownEntry(state.apiKeys, command.keyId);
        if (!key)
          throw new ServiceError('not_found', 'The API key does not exist.', { keyId: command.keyId });
        if (key.revokedAt !== null) return [];
        return [{ type: 'ApiKeyRevoked', data: { keyId: command.keyId, revokedAt: now.toISOString() } }];
      }
    }
  },

  evolve(state, event): AccountState {
    if (event.type === 'AccountRegistered') {
      const { accountId, email, plan, cycleAnchor } = event.data;
      return {
        ...state,
        registered: true,
        accountId,
        email,
        plan,
        cycleAnchor,
        passwordCredentialId: state.passwordCredentialId,
      };
    }
    if (!state.registered) return state;
    switch (event.type) {
      case 'PasswordSet':
        return { ...state, passwordCredentialId: event.data.credentialId };
      case 'PlanChanged':
        return { ...state, plan: event.data.to };
      case 'ApiKeyIssued': {
        const { keyId, prefix, label, issuedAt } = event.data;
        return {
          ...state,
          apiKeys: { ...state.apiKeys, [keyId]: { prefix, label, issuedAt, revokedAt: null } },
        };
      }
      case 'ApiKeyRevoked': {
        const key = ownEntry(state.apiKeys, event.data.keyId);
        if (!key) return state;
        return {
          ...state,
          apiKeys: { ...state.apiKeys, [event.data.keyId]: { ...key, revokedAt: event.data.revokedAt } },
        };
      }
      default:
        return state;
    }
  },
};

function register(command: RegisterAccount, state: AccountState, now: Date): AccountEvent[] {
  if (state.registered) throw new ServiceError('already_exists', 'The account is already registered.');
  requireText(command.accountId, 'accountId');
  const email = typeof command.email === 'string' ? normalizeEmail(command.email) : '';
  if (!isValidEmail(email)) {
    throw new ServiceError(
      'invalid_input',
      `The email must look like name@domain.tld (at most ${MAX_EMAIL_LENGTH} characters).`,
      {
        field: 'email',
      },
    );
  }
  requirePlan(command.plan);
  const events: AccountEvent[] = [
    {
      type: 'AccountRegistered',
      data: { accountId: command.accountId, email, plan: command.plan, cycleAnchor: now.toISOString() },
    },
  ];
  if (command.passwordCredentialId !== undefined) {
    requireText(command.passwordCredentialId, 'passwordCredentialId');
    events.push({ type: 'PasswordSet', data: { credentialId: command.passwordCredentialId } });
  }
  return events;
}

function issueApiKey(command: IssueApiKey, state: AccountState, now: Date): AccountEvent[] {
  requireText(command.keyId, 'keyId');
  requireText(command.prefix, 'prefix');
  if (typeof command.label !== 'string' || [...command.label].length > MAX_API_KEY_LABEL_LENGTH) {
    throw new ServiceError(
      'invalid_input',
      `An API key label has at most ${MAX_API_KEY_LABEL_LENGTH} characters.`,
      {
        field: 'label',
      },
    );
  }
  if (ownEntry(state.apiKeys, command.keyId)) {
    throw new ServiceError('already_exists', 'An API key with this id already exists.', {
      keyId: command.keyId,
    });
  }
  const active = activeApiKeyCount(state);
  if (active >= MAX_ACTIVE_API_KEYS) {
    throw new ServiceError(
      'invalid_input',
      `An account can hold at most ${MAX_ACTIVE_API_KEYS} active API keys; revoke one before issuing another.`,
      { active, limit: MAX_ACTIVE_API_KEYS },
    );
  }
  const { keyId, prefix, label } = command;
  return [{ type: 'ApiKeyIssued', data: { keyId, prefix, label, issuedAt: now.toISOString() } }];
}

function requireText(value: unknown, field: string): void {
  if (typeof value !== 'string' || value.length === 0) {
    throw new ServiceError('invalid_input', `${field} must be a non-empty string.`, { field });
  }
}

function requirePlan(plan: unknown): asserts plan is PlanId {
  if (!isPlanId(plan))
    throw new ServiceError('invalid_input', 'Unknown plan.', { field: 'plan', plan: String(plan) });
}

/** Own entries only: ids such as "__proto__" or "constructor" must not resolve to Object.prototype members. */
function ownEntry<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
