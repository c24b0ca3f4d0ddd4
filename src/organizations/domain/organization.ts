/**
 * The organization stream (`organization-<id>`): creation and account transition, trial admission, status,
 * members, roles, space assignments, external portions, ownership transfer. Pure decider: time and the actor
 * come in the context, DNS answers and anti-abuse facts come in the commands; refusals are ServiceErrors.
 */
import type { Decider, DomainEvent } from '../../platform/event-sourcing/decider.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import {
  registrableDomain,
  txtProves,
  verificationRecord,
  type VerificationRecord,
} from './business-domain.js';
import { can, isRole, isStaff, type Capability, type Role } from './roles.js';

export const TRIAL_DAYS = 14;
export const TRIAL_CREDITS = 1_000;
export const MAX_ORGANIZATION_NAME_LENGTH = 120;
export const MAX_MEMBERS = 500;

export function organizationStreamId(organizationId: string): string {
  return `organization-${organizationId}`;
}

/**
 * Statuses. `pending_verification` (a trial waiting for its DNS proof) is ours; `pending_approval`, `inactive`
 * and `awaiting_payment` are the contract's restricted conditions (rule 14). Only `active` is open.
 */
export const ORGANIZATION_STATUSES = [
  'pending_verification',
  'pending_approval',
  'awaiting_payment',
  'inactive',
  'active',
] as const;
export type OrganizationStatus = (typeof ORGANIZATION_STATUSES)[number];

/** Organization plans: the trial, then Teams or Business (rule 7: those show every WHOIS field). */
export type OrganizationPlan = 'trial' | 'teams' | 'business';
export const PAID_ORGANIZATION_PLANS = ['teams', 'business'] as const;
export type PaidOrganizationPlan = (typeof PAID_ORGANIZATION_PLANS)[number];

export type StartMode = 'trial' | 'subscription';

// ---- Commands ----

export interface CreateOrganization {
  readonly type: 'CreateOrganization';
  readonly organizationId: string;
  readonly name: string;
  readonly ownerAccountId: string;
  readonly start: StartMode;
  /** Trial only: the business domain to verify (already checked: not a personal mailbox domain). */
  readonly domain: string | null;
  readonly verificationToken: string;
  readonly generalSpaceId: string;
  /** Purchased personal credits moving in (0 allowed); the transfer id ties the ledger legs together. */
  readonly transfer: { readonly transferId: string; readonly credits: number };
}
export interface CompleteAccountTransition {
  readonly type: 'CompleteAccountTransition';
  readonly transferId: string;
}
export interface VerifyDomain {
  readonly type: 'VerifyDomain';
  /** TXT records found at the verification name (each a list of character strings). */
  readonly txt: ReadonlyArray<readonly string[]>;
  /** Anti-abuse facts established by the application (claims on the domain and on the account). */
  readonly domainAlreadyUsedForTrial: boolean;
  readonly accountAlreadyHadTrial: boolean;
  /** The account is flagged for administrator approval before the organization opens. */
  readonly approvalRequired: boolean;
}
export interface ApproveOrganization {
  readonly type: 'ApproveOrganization';
}
export interface CompleteCheckout {
  readonly type: 'CompleteCheckout';
  readonly plan: PaidOrganizationPlan;
}
export interface RequestPlan {
  readonly type: 'RequestPlan';
  readonly plan: PaidOrganizationPlan;
}
export interface SetInactive {
  readonly type: 'SetInactive';
  readonly inactive: boolean;
}
export interface EndTrial {
  readonly type: 'EndTrial';
  /** An operator ends the trial before its 14 days (abuse, or the customer asks); otherwise only once due. */
  readonly early?: boolean;
}
export interface RenameOrganization {
  readonly type: 'RenameOrganization';
  readonly name: string;
}
export interface InviteMember {
  readonly type: 'InviteMember';
  readonly invitationId: string;
  readonly email: string;
  readonly role: Role;
  readonly spaces: readonly string[];
  readonly portion: number | null;
}
export interface AcceptInvitation {
  readonly type: 'AcceptInvitation';
  readonly invitationId: string;
  readonly accountId: string;
  readonly email: string;
}
export interface RevokeInvitation {
  readonly type: 'RevokeInvitation';
  readonly invitationId: string;
}
export interface RemoveMember {
  readonly type: 'RemoveMember';
  readonly accountId: string;
}
export interface ChangeRole {
  readonly type: 'ChangeRole';
  readonly accountId: string;
  readonly role: Role;
}
export interface AssignSpace {
  readonly type: 'AssignSpace';
  readonly accountId: string;
  readonly spaceId: string;
}
export interface UnassignSpace {
  readonly type: 'UnassignSpace';
  readonly accountId: string;
  readonly spaceId: string;
}
export interface SetPortion {
  readonly type: 'SetPortion';
  readonly accountId: string;
  readonly portion: number | null;
}
export interface OfferOwnership {
  readonly type: 'OfferOwnership';
  readonly toAccountId: string;
}
export interface AcceptOwnership {
  readonly type: 'AcceptOwnership';
}
export interface DeclineOwnership {
  readonly type: 'DeclineOwnership';
}

export type OrganizationCommand =
  | CreateOrganization
  | CompleteAccountTransition
  | VerifyDomain
  | ApproveOrganization
  | CompleteCheckout
  | RequestPlan
  | SetInactive
  | EndTrial
  | RenameOrganization
  | InviteMember
  | AcceptInvitation
  | RevokeInvitation
  | RemoveMember
  | ChangeRole
  | AssignSpace
  | UnassignSpace
  | SetPortion
  | OfferOwnership
  | AcceptOwnership
  | DeclineOwnership;

// ---- Events ----

export type OrganizationCreated = DomainEvent<
  'OrganizationCreated',
  {
    organizationId: string;
    name: string;
    ownerAccountId: string;
    start: StartMode;
    status: OrganizationStatus;
    generalSpaceId: string;
    transfer: { transferId: string; credits: number };
    createdAt: string;
  }
>;
export type DomainVerificationRequested = DomainEvent<
  'DomainVerificationRequested',
  { domain: string; record: VerificationRecord; requestedAt: string }
>;
export type AccountTransitionCompleted = DomainEvent<
  'AccountTransitionCompleted',
  { transferId: string; credits: number; completedAt: string }
>;
export type DomainVerified = DomainEvent<'DomainVerified', { domain: string; verifiedAt: string }>;
export type ApprovalRequested = DomainEvent<'ApprovalRequested', { requestedAt: string }>;
export type ApprovalGranted = DomainEvent<'ApprovalGranted', { grantedAt: string }>;
export type TrialStarted = DomainEvent<
  'TrialStarted',
  { domain: string; credits: number; startedAt: string; endsAt: string }
>;
export type TrialEnded = DomainEvent<'TrialEnded', { endedAt: string }>;
export type PlanRequested = DomainEvent<'PlanRequested', { plan: PaidOrganizationPlan; requestedAt: string }>;
export type CheckoutCompleted = DomainEvent<
  'CheckoutCompleted',
  { plan: PaidOrganizationPlan; completedAt: string }
>;
export type OrganizationStatusChanged = DomainEvent<
  'OrganizationStatusChanged',
  { from: OrganizationStatus; to: OrganizationStatus; changedAt: string }
>;
export type OrganizationRenamed = DomainEvent<'OrganizationRenamed', { from: string; to: string }>;
export type MemberInvited = DomainEvent<
  'MemberInvited',
  {
    invitationId: string;
    email: string;
    role: Role;
    spaces: string[];
    portion: number | null;
    invitedBy: string;
    invitedAt: string;
  }
>;
export type InvitationRevoked = DomainEvent<'InvitationRevoked', { invitationId: string }>;
export type MemberAdded = DomainEvent<
  'MemberAdded',
  {
    accountId: string;
    role: Role;
    spaces: string[];
    portion: number | null;
    invitationId: string | null;
    addedAt: string;
  }
>;
export type MemberRemoved = DomainEvent<'MemberRemoved', { accountId: string; removedAt: string }>;
export type MemberRoleChanged = DomainEvent<'MemberRoleChanged', { accountId: string; from: Role; to: Role }>;
export type SpaceAssigned = DomainEvent<'SpaceAssigned', { accountId: string; spaceId: string }>;
export type SpaceUnassigned = DomainEvent<'SpaceUnassigned', { accountId: string; spaceId: string }>;
export type PortionSet = DomainEvent<'PortionSet', { accountId: string; portion: number | null }>;
export type OwnershipTransferOffered = DomainEvent<
  'OwnershipTransferOffered',
  { from: string; to: string; offeredAt: string }
>;
export type OwnershipTransferDeclined = DomainEvent<'OwnershipTransferDeclined', { to: string }>;
export type OwnershipTransferAccepted = DomainEvent<
  'OwnershipTransferAccepted',
  { from: string; to: string; acceptedAt: string }
>;

export type OrganizationEvent =
  | OrganizationCreated
  | DomainVerificationRequested
  | AccountTransitionCompleted
  | DomainVerified
  | ApprovalRequested
  | ApprovalGranted
  | TrialStarted
  | TrialEnded
  | PlanRequested
  | CheckoutCompleted
  | OrganizationStatusChanged
  | OrganizationRenamed
  | MemberInvited
  | InvitationRevoked
  | MemberAdded
  | MemberRemoved
  | MemberRoleChanged
  | SpaceAssigned
  | SpaceUnassigned
  | PortionSet
  | OwnershipTransferOffered
  | OwnershipTransferDeclined
  | OwnershipTransferAccepted;

// ---- State ----

export interface Member {
  readonly role: Role;
  /** Assigned spaces (analysts and external clients reach only these; managers reach every space). */
  readonly spaces: readonly string[];
  /** An external user's own envelope inside the shared balance (rule 8); null: no own limit. */
  readonly portion: number | null;
  readonly addedAt: string;
}

export interface Invitation {
  readonly email: string;
  readonly role: Role;
  readonly spaces: readonly string[];
  readonly portion: number | null;
  readonly invitedAt: string;
}

export interface OrganizationState {
  readonly exists: boolean;
  readonly organizationId: string | null;
  readonly name: string;
  readonly ownerAccountId: string | null;
  readonly status: OrganizationStatus;
  readonly start: StartMode | null;
  readonly plan: OrganizationPlan | null;
  readonly requestedPlan: PaidOrganizationPlan | null;
  readonly generalSpaceId: string | null;
  readonly transition: {
    readonly transferId: string;
    readonly credits: number;
    readonly completed: boolean;
  } | null;
  readonly verification: {
    readonly domain: string;
    readonly record: VerificationRecord;
    readonly verifiedAt: string | null;
  } | null;
  readonly approvalRequested: boolean;
  /** Set once a trial started: renaming or transferring never makes a new one. */
  readonly trial: {
    readonly domain: string;
    readonly startedAt: string;
    readonly endsAt: string;
    readonly ended: boolean;
  } | null;
  readonly members: Readonly<Record<string, Member>>;
  readonly invitations: Readonly<Record<string, Invitation>>;
  readonly ownershipOffer: { readonly to: string; readonly offeredAt: string } | null;
  // Staff single sign-on (rule 12) is not kept here: its one source is the `sso-<id>` stream (sso/domain/sso.ts).
}

export const initialOrganizationState: OrganizationState = {
  exists: false,
  organizationId: null,
  name: '',
  ownerAccountId: null,
  status: 'pending_verification',
  start: null,
  plan: null,
  requestedPlan: null,
  generalSpaceId: null,
  transition: null,
  verification: null,
  approvalRequested: false,
  trial: null,
  members: {},
  invitations: {},
  ownershipOffer: null,
};

export interface OrganizationContext {
  readonly now: Date;
  /** The account acting, or null for the service's own operators and processes. */
  readonly actorAccountId: string | null;
}

// ---- Policies on the state (also used by the access check) ----

export function memberOf(state: OrganizationState, accountId: string): Member | undefined {
  return Object.hasOwn(state.members, accountId) ? state.members[accountId] : undefined;
}

/** Rule 14: pending approval, inactive or awaiting payment (and a trial awaiting its proof) restrict everyone. */
export function isRestricted(state: OrganizationState): boolean {
  return state.status !== 'active';
}

/** What the owner must do (or wait for) to lift the restriction: shown with every refusal. */
export function restrictionAction(state: OrganizationState): string | null {
  switch (state.status) {
    case 'active':
      return null;
    case 'pending_verification':
      return 'publish the DNS TXT record and verify the domain';
    case 'pending_approval':
      return 'wait for an administrator of the service to approve the organization';
    case 'awaiting_payment':
      return 'complete checkout in billing';
    case 'inactive':
      return 'the organization is inactive; contact support to reactivate it';
  }
}

export function restrictedError(state: OrganizationState): ServiceError {
  return new ServiceError(
    'organization_restricted',
    `the organization is ${state.status.replace('_', ' ')}: ${restrictionAction(state)}`,
    { status: state.status, action: restrictionAction(state) },
  );
}

/** Whether a member reaches a space: managers every space, others their assignments. */
export function reachesSpace(state: OrganizationState, accountId: string, spaceId: string): boolean {
  const member = memberOf(state, accountId);
  if (!member) return false;
  if (can(member.role, 'spaces.all')) return true;
  if (spaceId === state.generalSpaceId) return isStaff(member.role);
  return member.spaces.includes(spaceId);
}

// ---- Decider ----

export const organizationDecider: Decider<
  OrganizationCommand,
  OrganizationEvent,
  OrganizationState,
  OrganizationContext
> = {
  initialState: initialOrganizationState,
  decide(command, state, context) {
    if (command.type === 'CreateOrganization') return create(command, state, context);
    if (!state.exists) throw new ServiceError('not_found', 'no such organization');
    const now = context.now.toISOString();
    switch (command.type) {
      case 'CompleteAccountTransition': {
        if (!state.transition || state.transition.transferId !== command.transferId) {
          throw new ServiceError('not_found', 'no such account transition');
        }
        if (state.transition.completed) return [];
        return [
          {
            type: 'AccountTransitionCompleted',
            data: { transferId: command.transferId, credits: state.transition.credits, completedAt: now },
          },
        ];
      }
      case 'VerifyDomain':
        return verifyDomain(command, state, context);
      case 'ApproveOrganization': {
        requireOperator(context);
        if (state.status !== 'pending_approval') return [];
        const events: OrganizationEvent[] = [{ type: 'ApprovalGranted', data: { grantedAt: now } }];
        if (state.start === 'trial' && state.verification?.verifiedAt && !state.trial) {
          events.push(trialStarted(state.verification.domain, context.now));
        }
        events.push(statusChange(state, state.start === 'trial' ? 'active' : 'awaiting_payment', now));
        return events;
      }
      case 'RequestPlan': {
        requireCapability(state, context, 'billing.manage');
        if (!(['teams', 'business'] as const).includes(command.plan)) {
          throw new ServiceError('invalid_input', 'plan must be teams or business', {
            fields: [{ field: 'plan', problems: ['must be teams or business'] }],
          });
        }
        if (state.status === 'pending_approval' || state.status === 'inactive') throw restrictedError(state);
        if (state.plan === command.plan) return [];
        return [{ type: 'PlanRequested', data: { plan: command.plan, requestedAt: now } }];
      }
      case 'CompleteCheckout': {
        // Checkout itself is "not shown": the billing system reports completion through the operator path.
        requireOperator(context);
        if (state.status === 'pending_approval' || state.status === 'inactive') throw restrictedError(state);
        const events: OrganizationEvent[] = [];
        if (state.plan !== command.plan) {
          events.push({ type: 'CheckoutCompleted', data: { plan: command.plan, completedAt: now } });
        }
        if (state.status !== 'active') events.push(statusChange(state, 'active', now));
        return events;
      }
      case 'SetInactive': {
        requireOperator(context);
        if (command.inactive)
          return state.status === 'inactive' ? [] : [statusChange(state, 'inactive', now)];
        if (state.status !== 'inactive') return [];
        const back: OrganizationStatus =
          state.plan === 'teams' || state.plan === 'business' || (state.trial && !state.trial.ended)
            ? 'active'
            : state.plan === null && state.start === 'trial' && !state.trial
              ? state.verification?.verifiedAt
                ? 'pending_approval'
                : 'pending_verification'
              : 'awaiting_payment';
        return [statusChange(state, back, now)];
      }
      case 'EndTrial': {
        requireOperator(context);
        if (!state.trial || state.trial.ended || state.plan !== 'trial') return [];
        if (!command.early && Date.parse(state.trial.endsAt) > context.now.getTime()) return [];
        const events: OrganizationEvent[] = [{ type: 'TrialEnded', data: { endedAt: now } }];
        if (state.status === 'active') events.push(statusChange(state, 'awaiting_payment', now));
        return events;
      }
      case 'RenameOrganization': {
        requireCapability(state, context, 'organization.settings');
        requireOpen(state);
        const name = checkedName(command.name);
        if (name === state.name) return [];
        // Renaming is only a name: it never touches the trial (rule 5).
        return [{ type: 'OrganizationRenamed', data: { from: state.name, to: name } }];
      }
      case 'InviteMember':
        return invite(command, state, context);
      case 'AcceptInvitation': {
        requireOpen(state);
        const invitation = Object.hasOwn(state.invitations, command.invitationId)
          ? state.invitations[command.invitationId]
          : undefined;
        if (!invitation || invitation.email !== command.email.trim().toLowerCase()) {
          throw new ServiceError('not_found', 'no such invitation for this account');
        }
        if (memberOf(state, command.accountId)) {
          throw new ServiceError('already_exists', 'this account is already a member');
        }
        return [
          {
            type: 'MemberAdded',
            data: {
              accountId: command.accountId,
              role: invitation.role,
              spaces: [...invitation.spaces],
              portion: invitation.portion,
              invitationId: command.invitationId,
              addedAt: now,
            },
          },
        ];
      }
      case 'RevokeInvitation': {
        requireCapability(state, context, 'members.manage');
        if (!Object.hasOwn(state.invitations, command.invitationId)) {
          throw new ServiceError('not_found', 'no such invitation');
        }
        return [{ type: 'InvitationRevoked', data: { invitationId: command.invitationId } }];
      }
      case 'RemoveMember': {
        requireCapability(state, context, 'members.manage');
        requireOpen(state);
        const member = requireMember(state, command.accountId);
        if (member.role === 'owner') {
          throw new ServiceError('forbidden', 'the owner cannot be removed; transfer the ownership first');
        }
        if (member.role === 'administrator' && actorRole(state, context) !== 'owner') {
          throw new ServiceError('forbidden', 'only the owner removes an administrator');
        }
        return [{ type: 'MemberRemoved', data: { accountId: command.accountId, removedAt: now } }];
      }
      case 'ChangeRole': {
        requireCapability(state, context, 'members.manage');
        requireOpen(state);
        const member = requireMember(state, command.accountId);
        if (!isRole(command.role))
          throw invalidField('role', 'must be administrator, analyst or external_client');
        if (command.role === 'owner' || member.role === 'owner') {
          throw new ServiceError(
            'forbidden',
            'the ownership changes only by a transfer the recipient accepts',
          );
        }
        if (
          (command.role === 'administrator' || member.role === 'administrator') &&
          actorRole(state, context) !== 'owner'
        ) {
          throw new ServiceError('forbidden', 'only the owner grants or withdraws the administrator role');
        }
        if (member.role === command.role) return [];
        return [
          {
            type: 'MemberRoleChanged',
            data: { accountId: command.accountId, from: member.role, to: command.role },
          },
        ];
      }
      case 'AssignSpace': {
        requireCapability(state, context, 'members.manage');
        requireOpen(state);
        const member = requireMember(state, command.accountId);
        requireId(command.spaceId, 'space_id');
        if (member.spaces.includes(command.spaceId)) return [];
        return [{ type: 'SpaceAssigned', data: { accountId: command.accountId, spaceId: command.spaceId } }];
      }
      case 'UnassignSpace': {
        requireCapability(state, context, 'members.manage');
        requireOpen(state);
        const member = requireMember(state, command.accountId);
        if (!member.spaces.includes(command.spaceId)) return [];
        return [
          { type: 'SpaceUnassigned', data: { accountId: command.accountId, spaceId: command.spaceId } },
        ];
      }
      case 'SetPortion': {
        requireCapability(state, context, 'members.manage');
        requireOpen(state);
        const member = requireMember(state, command.accountId);
        const portion = checkedPortion(command.portion);
        if (member.role !== 'external_client' && portion !== null) {
          throw invalidField('portion', 'a portion applies to external users only');
        }
        if (member.portion === portion) return [];
        return [{ type: 'PortionSet', data: { accountId: command.accountId, portion } }];
      }
      case 'OfferOwnership': {
        requireCapability(state, context, 'ownership.transfer');
        requireOpen(state);
        const recipient = requireMember(state, command.toAccountId);
        if (!isStaff(recipient.role) || command.toAccountId === state.ownerAccountId) {
          throw invalidField('account_id', 'the ownership goes to another staff member');
        }
        return [
          {
            type: 'OwnershipTransferOffered',
            data: { from: state.ownerAccountId!, to: command.toAccountId, offeredAt: now },
          },
        ];
      }
      case 'AcceptOwnership': {
        // Explicit acceptance by the recipient (rule 12): nobody else can accept for them.
        if (!state.ownershipOffer || state.ownershipOffer.to !== context.actorAccountId) {
          throw new ServiceError('not_found', 'no ownership transfer is offered to you');
        }
        requireOpen(state);
        if (!memberOf(state, context.actorAccountId)) throw new ServiceError('not_found', 'no such member');
        return [
          {
            type: 'OwnershipTransferAccepted',
            data: { from: state.ownerAccountId!, to: context.actorAccountId, acceptedAt: now },
          },
        ];
      }
      case 'DeclineOwnership': {
        if (!state.ownershipOffer || state.ownershipOffer.to !== context.actorAccountId) {
          throw new ServiceError('not_found', 'no ownership transfer is offered to you');
        }
        return [{ type: 'OwnershipTransferDeclined', data: { to: context.actorAccountId } }];
      }
    }
  },
  evolve,
};

function create(
  command: CreateOrganization,
  state: OrganizationState,
  context: OrganizationContext,
): OrganizationEvent[] {
  if (state.exists) throw new ServiceError('already_exists', 'the organization exists');
  requireId(command.organizationId, 'organizationId');
  requireId(command.ownerAccountId, 'ownerAccountId');
  requireId(command.generalSpaceId, 'generalSpaceId');
  const name = checkedName(command.name);
  if (command.start !== 'trial' && command.start !== 'subscription') {
    throw invalidField('start', 'must be trial or subscription');
  }
  if (!Number.isSafeInteger(command.transfer.credits) || command.transfer.credits < 0) {
    throw invalidField('expected_transfer', 'must be a non-negative integer');
  }
  const now = context.now.toISOString();
  const status: OrganizationStatus = command.start === 'trial' ? 'pending_verification' : 'awaiting_payment';
  const events: OrganizationEvent[] = [
    {
      type: 'OrganizationCreated',
      data: {
        organizationId: command.organizationId,
        name,
        ownerAccountId: command.ownerAccountId,
        start: command.start,
        status,
        generalSpaceId: command.generalSpaceId,
        transfer: { ...command.transfer },
        createdAt: now,
      },
    },
  ];
  if (command.start === 'trial') {
    if (!command.domain) throw invalidField('domain', 'a trial needs the business domain to verify');
    requireId(command.verificationToken, 'verificationToken');
    events.push({
      type: 'DomainVerificationRequested',
      data: {
        domain: command.domain,
        record: verificationRecord(command.domain, command.verificationToken),
        requestedAt: now,
      },
    });
  }
  events.push({
    type: 'MemberAdded',
    data: {
      accountId: command.ownerAccountId,
      role: 'owner',
      spaces: [],
      portion: null,
      invitationId: null,
      addedAt: now,
    },
  });
  return events;
}

function verifyDomain(
  command: VerifyDomain,
  state: OrganizationState,
  context: OrganizationContext,
): OrganizationEvent[] {
  requireCapability(state, context, 'billing.manage');
  if (state.start !== 'trial' || !state.verification) {
    throw new ServiceError('invalid_input', 'this organization did not ask for a trial');
  }
  if (state.verification.verifiedAt) return [];
  if (state.status === 'inactive') throw restrictedError(state);
  if (!txtProves(command.txt, state.verification.record)) {
    throw new ServiceError(
      'domain_not_verified',
      `no TXT record ${state.verification.record.name} with the value ${state.verification.record.value} was found; publish it and retry`,
      { record: state.verification.record },
    );
  }
  if (command.domainAlreadyUsedForTrial) {
    // A trial is granted once per registrable domain (a subdomain shares its domain's trial).
    const registrable = registrableDomain(state.verification.domain) ?? state.verification.domain;
    throw new ServiceError(
      'trial_ineligible',
      `${registrable} already admitted a trial (once per registrable domain); subscribe instead`,
      { reason: 'domain_already_used', registrable_domain: registrable },
    );
  }
  if (command.accountAlreadyHadTrial) {
    throw new ServiceError('trial_ineligible', 'this account already had a trial; subscribe instead', {
      reason: 'account_already_used',
    });
  }
  const now = context.now.toISOString();
  const domain = state.verification.domain;
  const events: OrganizationEvent[] = [{ type: 'DomainVerified', data: { domain, verifiedAt: now } }];
  if (command.approvalRequired) {
    events.push({ type: 'ApprovalRequested', data: { requestedAt: now } });
    events.push(statusChange(state, 'pending_approval', now));
    return events;
  }
  events.push(trialStarted(domain, context.now));
  events.push(statusChange(state, 'active', now));
  return events;
}

function invite(
  command: InviteMember,
  state: OrganizationState,
  context: OrganizationContext,
): OrganizationEvent[] {
  requireCapability(state, context, 'members.manage');
  requireOpen(state);
  requireId(command.invitationId, 'invitationId');
  const email = typeof command.email === 'string' ? command.email.trim().toLowerCase() : '';
  if (!/^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/.test(email) || email.length > 254) {
    throw invalidField('email', 'must look like name@domain.tld');
  }
  if (!isRole(command.role) || command.role === 'owner') {
    throw invalidField('role', 'must be administrator, analyst or external_client');
  }
  if (command.role === 'administrator' && actorRole(state, context) !== 'owner') {
    throw new ServiceError('forbidden', 'only the owner invites an administrator');
  }
  const portion = checkedPortion(command.portion);
  if (portion !== null && command.role !== 'external_client') {
    throw invalidField('portion', 'a portion applies to external users only');
  }
  if (Object.keys(state.members).length + Object.keys(state.invitations).length >= MAX_MEMBERS) {
    throw new ServiceError(
      'capacity_conflict',
      `an organization holds at most ${MAX_MEMBERS} members and invitations`,
    );
  }
  return [
    {
      type: 'MemberInvited',
      data: {
        invitationId: command.invitationId,
        email,
        role: command.role,
        spaces: [...new Set(command.spaces)],
        portion,
        invitedBy: context.actorAccountId ?? 'operator',
        invitedAt: context.now.toISOString(),
      },
    },
  ];
}

function trialStarted(domain: string, now: Date): TrialStarted {
  return {
    type: 'TrialStarted',
    data: {
      domain,
      credits: TRIAL_CREDITS,
      startedAt: now.toISOString(),
      endsAt: new Date(now.getTime() + TRIAL_DAYS * 24 * 60 * 60 * 1000).toISOString(),
    },
  };
}

function statusChange(
  state: OrganizationState,
  to: OrganizationStatus,
  at: string,
): OrganizationStatusChanged {
  return { type: 'OrganizationStatusChanged', data: { from: state.status, to, changedAt: at } };
}

function evolve(state: OrganizationState, event: OrganizationEvent): OrganizationState {
  switch (event.type) {
    case 'OrganizationCreated': {
      const d = event.data;
      return {
        ...state,
        exists: true,
        organizationId: d.organizationId,
        name: d.name,
        ownerAccountId: d.ownerAccountId,
        status: d.status,
        start: d.start,
        generalSpaceId: d.generalSpaceId,
        transition: { transferId: d.transfer.transferId, credits: d.transfer.credits, completed: false },
      };
    }
    case 'DomainVerificationRequested':
      return {
        ...state,
        verification: { domain: event.data.domain, record: event.data.record, verifiedAt: null },
      };
    case 'AccountTransitionCompleted':
      return state.transition ? { ...state, transition: { ...state.transition, completed: true } } : state;
    case 'DomainVerified':
      return state.verification
        ? { ...state, verification: { ...state.verification, verifiedAt: event.data.verifiedAt } }
        : state;
    case 'ApprovalRequested':
      return { ...state, approvalRequested: true };
    case 'ApprovalGranted':
      return { ...state, approvalRequested: false };
    case 'TrialStarted':
      return {
        ...state,
        plan: 'trial',
        trial: {
          domain: event.data.domain,
          startedAt: event.data.startedAt,
          endsAt: event.data.endsAt,
          ended: false,
        },
      };
    case 'TrialEnded':
      return state.trial ? { ...state, trial: { ...state.trial, ended: true } } : state;
    case 'PlanRequested':
      return { ...state, requestedPlan: event.data.plan };
    case 'CheckoutCompleted':
      return { ...state, plan: event.data.plan, requestedPlan: null };
    case 'OrganizationStatusChanged':
      return { ...state, status: event.data.to };
    case 'OrganizationRenamed':
      return { ...state, name: event.data.to };
    case 'MemberInvited': {
      const { invitationId, email, role, spaces, portion, invitedAt } = event.data;
      return {
        ...state,
        invitations: { ...state.invitations, [invitationId]: { email, role, spaces, portion, invitedAt } },
      };
    }
    case 'InvitationRevoked':
      return { ...state, invitations: without(state.invitations, event.data.invitationId) };
    case 'MemberAdded': {
      const { accountId, role, spaces, portion, invitationId, addedAt } = event.data;
      return {
        ...state,
        members: { ...state.members, [accountId]: { role, spaces, portion, addedAt } },
        invitations: invitationId ? without(state.invitations, invitationId) : state.invitations,
      };
    }
    case 'MemberRemoved':
      return {
        ...state,
        members: without(state.members, event.data.accountId),
        ownershipOffer: state.ownershipOffer?.to === event.data.accountId ? null : state.ownershipOffer,
      };
    case 'MemberRoleChanged':
      return patchMember(state, event.data.accountId, { role: event.data.to });
    case 'SpaceAssigned': {
      const member = memberOf(state, event.data.accountId);
      return member
        ? patchMember(state, event.data.accountId, { spaces: [...member.spaces, event.data.spaceId] })
        : state;
    }
    case 'SpaceUnassigned': {
      const member = memberOf(state, event.data.accountId);
      return member
        ? patchMember(state, event.data.accountId, {
            spaces: member.spaces.filter((s) => s !== event.data.spaceId),
          })
        : state;
    }
    case 'PortionSet':
      return patchMember(state, event.data.accountId, { portion: event.data.portion });
    case 'OwnershipTransferOffered':
      return { ...state, ownershipOffer: { to: event.data.to, offeredAt: event.data.offeredAt } };
    case 'OwnershipTransferDeclined':
      return { ...state, ownershipOffer: null };
    case 'OwnershipTransferAccepted': {
      const withNew = patchMember(state, event.data.to, { role: 'owner', spaces: [], portion: null });
      const withOld = patchMember(withNew, event.data.from, { role: 'administrator' });
      return { ...withOld, ownerAccountId: event.data.to, ownershipOffer: null };
    }
    default:
      return state;
  }
}

// ---- Helpers ----

function patchMember(
  state: OrganizationState,
  accountId: string,
  fields: Partial<Member>,
): OrganizationState {
  const member = memberOf(state, accountId);
  if (!member) return state;
  return { ...state, members: { ...state.members, [accountId]: { ...member, ...fields } } };
}

function actorRole(state: OrganizationState, context: OrganizationContext): Role | 'operator' | null {
  if (context.actorAccountId === null) return 'operator';
  return memberOf(state, context.actorAccountId)?.role ?? null;
}

/** A member lacking the capability gets 403; a non-member 404 (the organization is not theirs to see). */
export function requireCapability(
  state: OrganizationState,
  context: OrganizationContext,
  capability: Capability,
): void {
  const role = actorRole(state, context);
  if (role === 'operator') return;
  if (role === null) throw new ServiceError('not_found', 'no such organization');
  if (!can(role, capability)) {
    throw new ServiceError('forbidden', `the ${role.replace('_', ' ')} role cannot do this`, {
      role,
      needs: capability,
    });
  }
}

/** Rule 14: nothing moves in a restricted organization; the owner role does not bypass it. */
export function requireOpen(state: OrganizationState): void {
  if (isRestricted(state)) throw restrictedError(state);
}

function requireOperator(context: OrganizationContext): void {
  if (context.actorAccountId !== null) {
    throw new ServiceError('forbidden', 'only the service operators do this');
  }
}

function requireMember(state: OrganizationState, accountId: string): Member {
  const member = memberOf(state, accountId);
  if (!member) throw new ServiceError('not_found', 'no such member');
  return member;
}

function checkedName(raw: unknown): string {
  const name = typeof raw === 'string' ? raw.trim() : '';
  if (name.length === 0 || [...name].length > MAX_ORGANIZATION_NAME_LENGTH) {
    throw invalidField('name', `must be 1 to ${MAX_ORGANIZATION_NAME_LENGTH} characters`);
  }
  return name;
}

function checkedPortion(raw: unknown): number | null {
  if (raw === null || raw === undefined) return null;
  if (typeof raw !== 'number' || !Number.isSafeInteger(raw) || raw < 0 || raw > 1_000_000_000) {
    throw invalidField('portion', 'must be an integer from 0 or null');
  }
  return raw;
}

function requireId(value: unknown, field: string): void {
  if (typeof value !== 'string' || value.length === 0)
    throw invalidField(field, 'must be a non-empty string');
}

export function invalidField(field: string, problem: string): ServiceError {
  return new ServiceError('invalid_input', `${field} ${problem}`, {
    fields: [{ field, problems: [problem] }],
  });
}

function without<T>(record: Readonly<Record<string, T>>, key: string): Readonly<Record<string, T>> {
  if (!Object.hasOwn(record, key)) return record;
  const copy = { ...record };
  delete copy[key];
  return copy;
}
