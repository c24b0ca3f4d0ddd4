/** The organization stream's vocabulary: limits, statuses, plans, commands and events. */
import type { DomainEvent } from '../../platform/event-sourcing/decider.js';
import type { VerificationRecord } from './business-domain.js';
import type { Role } from './roles.js';

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
