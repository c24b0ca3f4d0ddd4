/**
 * Staff single sign-on of one organization (rule 12), the `sso-<organizationId>` stream: the OpenID Connect
 * provider, the recovery code and enforcement, and which provider subject is which staff member. Pure decider:
 * the organization's members and status, time and the actor come in the context. No secret enters an event or the
 * state (ADR 65): the sealed client secret and the recovery code's hash are credentials in the credential store,
 * named here by id, and the handler tells the decider which recovery code a presented one matched.
 *
 * Enforcement is refused until a recovery code was issued, tested and saved: the code is what lets the owner
 * in when the provider is down, so it must be proven in the owner's hands first. The code is one use.
 */
import type { Decider, DomainEvent } from '../../../platform/event-sourcing/decider.js';
import { ServiceError } from '../../../platform/errors/service-error.js';
import { can, isStaff, type Role } from '../../domain/roles.js';

export function ssoStreamId(organizationId: string): string {
  return `sso-${organizationId}`;
}

/** Whose the organization's credentials are, in the credential store. */
export function ssoCredentialSubject(organizationId: string): string {
  return `organization:${organizationId}`;
}

export const SSO_CLIENT_SECRET_CREDENTIAL = 'sso-client-secret';
export const SSO_RECOVERY_CODE_CREDENTIAL = 'sso-recovery-code';

export const MAX_CLIENT_ID_LENGTH = 255;
export const MAX_ISSUER_LENGTH = 512;

/** A secret sealed with the service's data key (AES-256-GCM); the clear text never enters an event. */
export interface SealedSecret {
  readonly alg: 'A256GCM';
  /** Which data key sealed it (a short thumbprint), so a future key rotation can tell them apart. */
  readonly kid: string;
  readonly iv: string;
  readonly ciphertext: string;
  readonly tag: string;
}

// ---- Commands ----

export interface ConfigureProvider {
  readonly type: 'ConfigureProvider';
  readonly issuer: string;
  readonly clientId: string;
  /** The credential holding the new sealed client secret; null keeps the one already configured. */
  readonly clientSecretId: string | null;
}
export interface IssueRecoveryCode {
  readonly type: 'IssueRecoveryCode';
  /** The credential holding the code's SHA-256; the code itself is shown once to the owner and never stored. */
  readonly codeId: string;
}
export interface TestRecoveryCode {
  readonly type: 'TestRecoveryCode';
  /** The recovery code credential the presented code matched, or null when it matched none. */
  readonly presentedCodeId: string | null;
}
export interface AcknowledgeRecoveryCode {
  readonly type: 'AcknowledgeRecoveryCode';
}
export interface EnableEnforcement {
  readonly type: 'EnableEnforcement';
}
export interface DisableEnforcement {
  readonly type: 'DisableEnforcement';
}
/** A completed provider sign-in, mapped to a staff member (by the linked subject, else the verified email). */
export interface SignInWithProvider {
  readonly type: 'SignInWithProvider';
  readonly issuer: string;
  readonly subject: string;
  /** The account holding the token's email, when the provider says the email is verified; else null. */
  readonly verifiedEmailAccountId: string | null;
}
/** The owner's break-glass sign-in while the provider is down: one use. */
export interface UseRecoveryCode {
  readonly type: 'UseRecoveryCode';
  readonly accountId: string;
  /** The recovery code credential the presented code matched, or null when it matched none. */
  readonly presentedCodeId: string | null;
}

export type SsoCommand =
  | ConfigureProvider
  | IssueRecoveryCode
  | TestRecoveryCode
  | AcknowledgeRecoveryCode
  | EnableEnforcement
  | DisableEnforcement
  | SignInWithProvider
  | UseRecoveryCode;

// ---- Events ----

export type SsoProviderConfigured = DomainEvent<
  'SsoProviderConfigured',
  {
    organizationId: string;
    issuer: string;
    clientId: string;
    /** Schema 2 (ADR 65): the credential's id; schema 1 carried the sealed secret itself. */
    clientSecretId: string;
    secretChanged: boolean;
    configuredAt: string;
  }
>;
/** Schema 2 (ADR 65): the credential's id; schema 1 carried the code's hash itself. */
export type SsoRecoveryCodeIssued = DomainEvent<
  'SsoRecoveryCodeIssued',
  { codeId: string; issuedAt: string }
>;
export type SsoRecoveryCodeTested = DomainEvent<'SsoRecoveryCodeTested', { testedAt: string }>;
export type SsoRecoveryCodeSaved = DomainEvent<'SsoRecoveryCodeSaved', { savedAt: string }>;
export type SsoRecoveryCodeUsed = DomainEvent<'SsoRecoveryCodeUsed', { accountId: string; usedAt: string }>;
export type SsoEnforcementEnabled = DomainEvent<'SsoEnforcementEnabled', { enabledAt: string }>;
export type SsoEnforcementDisabled = DomainEvent<'SsoEnforcementDisabled', { disabledAt: string }>;
export type SsoSubjectLinked = DomainEvent<
  'SsoSubjectLinked',
  { issuer: string; subject: string; accountId: string; linkedAt: string }
>;
export type SsoSignedIn = DomainEvent<'SsoSignedIn', { accountId: string; signedInAt: string }>;

export type SsoEvent =
  | SsoProviderConfigured
  | SsoRecoveryCodeIssued
  | SsoRecoveryCodeTested
  | SsoRecoveryCodeSaved
  | SsoRecoveryCodeUsed
  | SsoEnforcementEnabled
  | SsoEnforcementDisabled
  | SsoSubjectLinked
  | SsoSignedIn;

// ---- State ----

export interface SsoState {
  readonly provider: {
    readonly issuer: string;
    readonly clientId: string;
    readonly clientSecretId: string;
    readonly configuredAt: string;
  } | null;
  /** The current recovery code (its credential's id); null before the first one and after it was used. */
  readonly recovery: {
    readonly codeId: string;
    readonly issuedAt: string;
    readonly testedAt: string | null;
    readonly savedAt: string | null;
  } | null;
  readonly enforced: boolean;
  /** `issuer subject` → account: a subject is linked on its first sign-in and stays that account's. */
  readonly subjects: Readonly<Record<string, string>>;
}

export const initialSsoState: SsoState = { provider: null, recovery: null, enforced: false, subjects: {} };

export interface SsoContext {
  readonly now: Date;
  readonly organizationId: string;
  /** The account acting (null for the service's own operators). */
  readonly actorAccountId: string | null;
  /** The organization's members and their roles, from the organization stream; null when it does not exist. */
  readonly members: Readonly<Record<string, Role>> | null;
  /** Rule 14: a restricted organization changes no settings (the owner role does not bypass it). */
  readonly organizationOpen: boolean;
}

// ---- Policies ----

/** Whether the recovery code allows enforcement: issued, tested and saved. */
export function recoveryReady(state: SsoState): boolean {
  return Boolean(state.recovery?.testedAt && state.recovery.savedAt);
}

/** Rule 12: under enforcement a staff member signs in through the provider; external clients keep passwords. */
export function passwordRefusedFor(state: SsoState, role: Role | undefined): boolean {
  return state.enforced && role !== undefined && isStaff(role);
}

/** Where staff of this organization sign in while it enforces single sign-on. */
export function ssoSignInUrl(organizationId: string): string {
  return `/api/v2/auth/sso/${organizationId}/start`;
}

/** Rule 12's refusal of a password sign-in, or of entering the organization with a password session. */
export function ssoRequired(organizationId: string): ServiceError {
  return new ServiceError(
    'sso_required',
    'this organization signs its staff in through single sign-on: use its sign-in address',
    { organization_id: organizationId, sign_in_url: ssoSignInUrl(organizationId) },
  );
}

export function subjectKey(issuer: string, subject: string): string {
  return `${issuer} ${subject}`;
}

// ---- Decider ----

export const ssoDecider: Decider<SsoCommand, SsoEvent, SsoState, SsoContext> = {
  initialState: initialSsoState,
  // 2: credentials are ids, no longer the sealed secret and the code's hash (ADR 65).
  stateVersion: 2,
  decide(command, state, context) {
    if (context.members === null) throw new ServiceError('not_found', 'no such organization');
    const now = context.now.toISOString();
    switch (command.type) {
      case 'ConfigureProvider': {
        requireManager(context);
        const issuer = checkedIssuer(command.issuer);
        const clientId = typeof command.clientId === 'string' ? command.clientId.trim() : '';
        if (clientId.length === 0 || clientId.length > MAX_CLIENT_ID_LENGTH) {
          throw invalidField('client_id', `must be 1 to ${MAX_CLIENT_ID_LENGTH} characters`);
        }
        const secret = command.clientSecretId ?? state.provider?.clientSecretId ?? null;
        if (!secret) throw invalidField('client_secret', 'is required when the provider is first configured');
        if (
          state.provider &&
          command.clientSecretId === null &&
          state.provider.issuer === issuer &&
          state.provider.clientId === clientId
        ) {
          return [];
        }
        return [
          {
            type: 'SsoProviderConfigured',
            data: {
              organizationId: context.organizationId,
              issuer,
              clientId,
              clientSecretId: secret,
              secretChanged: command.clientSecretId !== null,
              configuredAt: now,
            },
          },
        ];
      }
      case 'IssueRecoveryCode': {
        requireManager(context);
        if (typeof command.codeId !== 'string' || command.codeId.length === 0)
          throw new Error('a recovery code needs its credential id');
        return [{ type: 'SsoRecoveryCodeIssued', data: { codeId: command.codeId, issuedAt: now } }];
      }
      case 'TestRecoveryCode': {
        requireManager(context);
        const recovery = requireRecovery(state);
        if (command.presentedCodeId !== recovery.codeId) {
          throw new ServiceError(
            'recovery_code_invalid',
            'that is not the current recovery code; check the saved copy, or issue a new one',
          );
        }
        return recovery.testedAt ? [] : [{ type: 'SsoRecoveryCodeTested', data: { testedAt: now } }];
      }
      case 'AcknowledgeRecoveryCode': {
        requireManager(context);
        const recovery = requireRecovery(state);
        return recovery.savedAt ? [] : [{ type: 'SsoRecoveryCodeSaved', data: { savedAt: now } }];
      }
      case 'EnableEnforcement': {
        requireManager(context);
        if (!state.provider) {
          throw new ServiceError('sso_not_configured', 'configure the OpenID Connect provider first');
        }
        if (!recoveryReady(state)) {
          throw new ServiceError(
            'recovery_code_required',
            'issue a recovery code, test it and confirm it is saved before enforcing single sign-on',
            {
              issued: state.recovery !== null,
              tested: Boolean(state.recovery?.testedAt),
              saved: Boolean(state.recovery?.savedAt),
            },
          );
        }
        return state.enforced ? [] : [{ type: 'SsoEnforcementEnabled', data: { enabledAt: now } }];
      }
      case 'DisableEnforcement': {
        requireManager(context);
        return state.enforced ? [{ type: 'SsoEnforcementDisabled', data: { disabledAt: now } }] : [];
      }
      case 'SignInWithProvider':
        return signIn(command, state, context);
      case 'UseRecoveryCode': {
        // One answer for every failure, so the route tells nothing about the organization or its owner.
        const refused = new ServiceError('unauthenticated', 'the email, password or recovery code is wrong');
        if (context.members[command.accountId] !== 'owner') throw refused;
        if (!state.recovery || command.presentedCodeId !== state.recovery.codeId) throw refused;
        return [{ type: 'SsoRecoveryCodeUsed', data: { accountId: command.accountId, usedAt: now } }];
      }
    }
  },
  evolve,
};

function signIn(command: SignInWithProvider, state: SsoState, context: SsoContext): SsoEvent[] {
  const members = context.members ?? {};
  // Not a staff member of this organization, whoever it is: one refusal that leaks nothing.
  const refused = new ServiceError(
    'sso_not_member',
    'this identity is not a staff member of the organization; external clients sign in with their password',
  );
  if (!state.provider || state.provider.issuer !== command.issuer) {
    throw new ServiceError('not_found', 'single sign-on is not configured for this organization');
  }
  const key = subjectKey(command.issuer, command.subject);
  const linked = Object.hasOwn(state.subjects, key) ? state.subjects[key] : undefined;
  const accountId = linked ?? command.verifiedEmailAccountId;
  if (!accountId) throw refused;
  const role = Object.hasOwn(members, accountId) ? members[accountId] : undefined;
  if (!role || !isStaff(role)) throw refused;
  const now = context.now.toISOString();
  const events: SsoEvent[] = [];
  if (!linked) {
    // An account already linked to another subject of this issuer is not taken over by an email match.
    const prefix = `${command.issuer} `;
    const taken = Object.entries(state.subjects).some(([k, a]) => a === accountId && k.startsWith(prefix));
    if (taken) throw refused;
    events.push({
      type: 'SsoSubjectLinked',
      data: { issuer: command.issuer, subject: command.subject, accountId, linkedAt: now },
    });
  }
  events.push({ type: 'SsoSignedIn', data: { accountId, signedInAt: now } });
  return events;
}

function evolve(state: SsoState, event: SsoEvent): SsoState {
  switch (event.type) {
    case 'SsoProviderConfigured': {
      const { issuer, clientId, clientSecretId, configuredAt } = event.data;
      // A new issuer is a new identity namespace: links made with the old one no longer apply.
      const subjects = state.provider?.issuer === issuer ? state.subjects : {};
      return { ...state, provider: { issuer, clientId, clientSecretId, configuredAt }, subjects };
    }
    case 'SsoRecoveryCodeIssued':
      return {
        ...state,
        recovery: {
          codeId: event.data.codeId,
          issuedAt: event.data.issuedAt,
          testedAt: null,
          savedAt: null,
        },
      };
    case 'SsoRecoveryCodeTested':
      return state.recovery
        ? { ...state, recovery: { ...state.recovery, testedAt: event.data.testedAt } }
        : state;
    case 'SsoRecoveryCodeSaved':
      return state.recovery
        ? { ...state, recovery: { ...state.recovery, savedAt: event.data.savedAt } }
        : state;
    case 'SsoRecoveryCodeUsed':
      return { ...state, recovery: null };
    case 'SsoEnforcementEnabled':
      return { ...state, enforced: true };
    case 'SsoEnforcementDisabled':
      return { ...state, enforced: false };
    case 'SsoSubjectLinked':
      return {
        ...state,
        subjects: {
          ...state.subjects,
          [subjectKey(event.data.issuer, event.data.subject)]: event.data.accountId,
        },
      };
    case 'SsoSignedIn':
      return state;
    default:
      return state;
  }
}

// ---- Helpers ----

/** Single sign-on is owner-only (Roles: the owner holds `sso.manage`); a non-member learns nothing (404). */
function requireManager(context: SsoContext): void {
  if (context.actorAccountId === null) return;
  requireSsoOwner(context.members, context.actorAccountId);
  if (!context.organizationOpen) {
    throw new ServiceError(
      'organization_restricted',
      'the organization is restricted; settings cannot change',
    );
  }
}

/** Reads and writes of the SSO settings: a non-member gets 404, a member without `sso.manage` 403. */
export function requireSsoOwner(members: Readonly<Record<string, Role>> | null, accountId: string): void {
  const role = members && Object.hasOwn(members, accountId) ? members[accountId] : undefined;
  if (!role) throw new ServiceError('not_found', 'no such organization');
  if (!can(role, 'sso.manage')) {
    throw new ServiceError('forbidden', 'only the owner manages single sign-on', {
      role,
      needs: 'sso.manage',
    });
  }
}

function requireRecovery(state: SsoState): NonNullable<SsoState['recovery']> {
  if (!state.recovery) {
    throw new ServiceError('recovery_code_required', 'no recovery code is issued; issue one first', {
      issued: false,
      tested: false,
      saved: false,
    });
  }
  return state.recovery;
}

/** The issuer as OpenID Connect requires it: https (plain http only on loopback, for development and tests). */
function checkedIssuer(raw: unknown): string {
  const text = typeof raw === 'string' ? raw.trim() : '';
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalidField('issuer', 'must be an absolute https URL');
  }
  const loopback = ['127.0.0.1', '[::1]', 'localhost'].includes(url.hostname);
  if (
    text.length > MAX_ISSUER_LENGTH ||
    !(url.protocol === 'https:' || (url.protocol === 'http:' && loopback)) ||
    url.search !== '' ||
    url.hash !== '' ||
    url.username !== '' ||
    url.password !== ''
  ) {
    throw invalidField('issuer', 'must be an https URL without query, fragment or credentials');
  }
  return text;
}

function invalidField(field: string, problem: string): ServiceError {
  return new ServiceError('invalid_input', `${field} ${problem}`, {
    fields: [{ field, problems: [problem] }],
  });
}
