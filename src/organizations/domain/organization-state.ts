/**
 * The organization stream's state, how events evolve it, and the policies read from it (also by the access
 * check).
 */
import { ServiceError } from '../../platform/errors/service-error.js';
import type { VerificationRecord } from './business-domain.js';
import type {
  OrganizationEvent,
  OrganizationPlan,
  OrganizationStatus,
  PaidOrganizationPlan,
  StartMode,
} from './organization-messages.js';
import { can, isStaff, type Role } from './roles.js';

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

export function evolve(state: OrganizationState, event: OrganizationEvent): OrganizationState {
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

function patchMember(
  state: OrganizationState,
  accountId: string,
  fields: Partial<Member>,
): OrganizationState {
  const member = memberOf(state, accountId);
  if (!member) return state;
  return { ...state, members: { ...state.members, [accountId]: { ...member, ...fields } } };
}

function without<T>(record: Readonly<Record<string, T>>, key: string): Readonly<Record<string, T>> {
  if (!Object.hasOwn(record, key)) return record;
  const copy = { ...record };
  delete copy[key];
  return copy;
}
