import type { ScopeErased } from '../src/exposure/domain/scope-erasure.js';
import type { CaseEvent } from '../src/organizations/domain/case.js';
import type { OrganizationCreationEvent } from '../src/organizations/domain/organization-creation.js';
import type { ApprovalGranted, OrganizationEvent } from '../src/organizations/domain/organization.js';
import type { ComparisonEvent, ReviewItemEvent } from '../src/organizations/domain/review.js';
import type { SpaceEvent } from '../src/organizations/domain/space.js';
import type { RecordedEvent } from '../src/platform/event-store/event-store.port.js';
import type {
  DocumentRef,
  ProjectionDefinition,
  ProjectionView,
  RecordedEventOf,
} from '../src/platform/projections/projection-definition.js';
import { eventTypes, isOneOf } from './event-types.js';

/**
 * The organization workspace read models: organizations, members (one document per organization and account),
 * spaces, cases, evidence, the review queue, report comparisons and the creation processes. Authorization never
 * reads these (it folds the organization stream, so a removal revokes at once); lists and views do.
 */
export const ORGANIZATIONS = 'organizations';
export const ORGANIZATION_MEMBERS = 'organization_members';
export const ORGANIZATION_SPACES = 'organization_spaces';
export const ORGANIZATION_CASES = 'organization_cases';
export const ORGANIZATION_EVIDENCE = 'organization_evidence';
export const ORGANIZATION_REVIEW_ITEMS = 'organization_review_items';
export const ORGANIZATION_COMPARISONS = 'organization_comparisons';
export const ORGANIZATION_CREATIONS = 'organization_creations';

type Doc = Record<string, unknown> & { id: string };
type Data = Record<string, unknown>;

/**
 * ApprovalGranted is deliberately not followed: the organization decider emits it together with the
 * OrganizationStatusChanged that carries the new status (and TrialStarted when a trial begins), which is all
 * this read model shows; whether an approval was requested or granted lives in the organization stream,
 * which the access checks fold.
 */
type FollowedOrganizationEvent = Exclude<OrganizationEvent, ApprovalGranted>;
type WorkspaceEvent =
  | FollowedOrganizationEvent
  | SpaceEvent
  | CaseEvent
  | ReviewItemEvent
  | ComparisonEvent
  | OrganizationCreationEvent
  | ScopeErased;

const suffix = (event: Pick<RecordedEvent, 'streamId'>, prefix: string): string =>
  event.streamId.slice(prefix.length);
const memberId = (organizationId: string, accountId: string): string => `${organizationId}:${accountId}`;

const ORGANIZATION_EVENTS = eventTypes<FollowedOrganizationEvent>({
  OrganizationCreated: true,
  DomainVerificationRequested: true,
  AccountTransitionCompleted: true,
  DomainVerified: true,
  ApprovalRequested: true,
  TrialStarted: true,
  TrialEnded: true,
  PlanRequested: true,
  CheckoutCompleted: true,
  OrganizationStatusChanged: true,
  OrganizationRenamed: true,
  MemberInvited: true,
  InvitationRevoked: true,
  MemberAdded: true,
  MemberRemoved: true,
  MemberRoleChanged: true,
  SpaceAssigned: true,
  SpaceUnassigned: true,
  PortionSet: true,
  OwnershipTransferOffered: true,
  OwnershipTransferDeclined: true,
  OwnershipTransferAccepted: true,
});
const SPACE_EVENTS = eventTypes<SpaceEvent>({
  SpaceCreated: true,
  SpaceRenamed: true,
  SpaceArchived: true,
  SpaceRestored: true,
  CreditLimitSet: true,
  MonitoringActivated: true,
  MonitoringStopped: true,
  ShareCreated: true,
  ShareRevoked: true,
  ExposureScopeDeclared: true,
  ExposureTimezoneChanged: true,
  SpaceDeleted: true,
  SpaceDeletionCancelled: true,
  SpaceErasureStarted: true,
});
const CASE_EVENTS = eventTypes<CaseEvent>({
  CaseOpened: true,
  CaseArchived: true,
  EvidenceSaved: true,
});
const REVIEW_ITEM_EVENTS = eventTypes<ReviewItemEvent>({
  ReviewItemAdded: true,
  ReviewItemAssigned: true,
  ReviewItemDueDateSet: true,
  ReviewItemTiedToSource: true,
});
const COMPARISON_EVENTS = eventTypes<ComparisonEvent>({
  ComparisonPrepared: true,
  ComparisonPublished: true,
});
const CREATION_EVENTS = eventTypes<OrganizationCreationEvent>({
  OrganizationCreationStarted: true,
  OrganizationCreationAbandoned: true,
});

/** The accounts whose member documents an organization event may read or change. */
function accountsIn(event: RecordedEventOf<FollowedOrganizationEvent>): string[] {
  switch (event.type) {
    case 'OrganizationCreated':
      return [event.data.ownerAccountId];
    case 'MemberAdded':
    case 'MemberRemoved':
    case 'MemberRoleChanged':
    case 'SpaceAssigned':
    case 'SpaceUnassigned':
    case 'PortionSet':
      return [event.data.accountId];
    case 'OwnershipTransferOffered':
    case 'OwnershipTransferAccepted':
      return [event.data.from, event.data.to];
    case 'OwnershipTransferDeclined':
      return [event.data.to];
    default:
      return [];
  }
}

export const organizationsProjection: ProjectionDefinition<WorkspaceEvent> = {
  name: 'organizations',
  // 2: spaces carry their exposure declaration and erase_after; erasure purges cases, evidence and reviews.
  version: 2,
  collections: {
    [ORGANIZATIONS]: {},
    [ORGANIZATION_MEMBERS]: {
      indexes: [
        { name: 'by_account', fields: [['accountId', 1]] },
        { name: 'by_organization', fields: [['organizationId', 1]] },
      ],
    },
    [ORGANIZATION_SPACES]: { indexes: [{ name: 'by_organization', fields: [['organizationId', 1]] }] },
    [ORGANIZATION_CASES]: { indexes: [{ name: 'by_organization', fields: [['organizationId', 1]] }] },
    [ORGANIZATION_EVIDENCE]: {
      indexes: [
        { name: 'by_case', fields: [['caseId', 1]] },
        { name: 'by_organization', fields: [['organizationId', 1]] },
      ],
    },
    [ORGANIZATION_REVIEW_ITEMS]: { indexes: [{ name: 'by_organization', fields: [['organizationId', 1]] }] },
    [ORGANIZATION_COMPARISONS]: { indexes: [{ name: 'by_organization', fields: [['organizationId', 1]] }] },
    [ORGANIZATION_CREATIONS]: { indexes: [{ name: 'by_status', fields: [['status', 1]] }] },
  },
  handles: [
    ...ORGANIZATION_EVENTS,
    ...SPACE_EVENTS,
    ...CASE_EVENTS,
    ...REVIEW_ITEM_EVENTS,
    ...COMPARISON_EVENTS,
    ...CREATION_EVENTS,
    'ScopeErased',
  ],
  reads(event): DocumentRef[] {
    if (event.streamId.startsWith('organization-owner-')) {
      return [{ collection: ORGANIZATION_CREATIONS, id: suffix(event, 'organization-owner-') }];
    }
    if (event.streamId.startsWith('organization-') && isOneOf(event, ORGANIZATION_EVENTS)) {
      const organizationId = suffix(event, 'organization-');
      const refs: DocumentRef[] = [{ collection: ORGANIZATIONS, id: organizationId }];
      for (const accountId of accountsIn(event)) {
        refs.push({ collection: ORGANIZATION_MEMBERS, id: memberId(organizationId, accountId) });
      }
      if (event.type === 'OrganizationCreated') {
        refs.push({ collection: ORGANIZATION_CREATIONS, id: event.data.ownerAccountId });
      }
      return refs;
    }
    if (event.streamId.startsWith('client-'))
      return [{ collection: ORGANIZATION_SPACES, id: suffix(event, 'client-') }];
    if (event.type === 'ScopeErased') return [];
    if (event.streamId.startsWith('case-'))
      return [{ collection: ORGANIZATION_CASES, id: suffix(event, 'case-') }];
    if (event.streamId.startsWith('review-item-')) {
      return [{ collection: ORGANIZATION_REVIEW_ITEMS, id: suffix(event, 'review-item-') }];
    }
    if (event.streamId.startsWith('comparison-')) {
      return [{ collection: ORGANIZATION_COMPARISONS, id: suffix(event, 'comparison-') }];
    }
    return [];
  },
  apply(event, view) {
    // Erasure of a deleted space (issue 8): its streams are gone, so are its documents.
    if (event.type === 'ScopeErased') {
      const { scopeId: spaceId, organizationId } = event.data;
      view.delete(ORGANIZATION_SPACES, spaceId);
      for (const collection of [
        ORGANIZATION_CASES,
        ORGANIZATION_EVIDENCE,
        ORGANIZATION_REVIEW_ITEMS,
        ORGANIZATION_COMPARISONS,
      ]) {
        view.deleteWhere(collection, { organizationId, spaceId });
      }
      return;
    }
    const stream = event.streamId;
    if (stream.startsWith('organization-owner-')) {
      if (isOneOf(event, CREATION_EVENTS)) applyCreation(event, view);
      return;
    }
    if (stream.startsWith('organization-') && isOneOf(event, ORGANIZATION_EVENTS))
      return applyOrganization(event, view);
    if (stream.startsWith('client-') && isOneOf(event, SPACE_EVENTS)) return applySpace(event, view);
    if (stream.startsWith('case-') && isOneOf(event, CASE_EVENTS)) return applyCase(event, view);
    if (stream.startsWith('review-item-') && isOneOf(event, REVIEW_ITEM_EVENTS))
      return applyReviewItem(event, view);
    if (stream.startsWith('comparison-') && isOneOf(event, COMPARISON_EVENTS))
      return applyComparison(event, view);
  },
};

function applyCreation(event: RecordedEventOf<OrganizationCreationEvent>, view: ProjectionView): void {
  const accountId = suffix(event, 'organization-owner-');
  if (event.type === 'OrganizationCreationStarted') {
    view.put(ORGANIZATION_CREATIONS, {
      id: accountId,
      organizationId: event.data.organizationId,
      transferId: event.data.transferId,
      status: 'started',
      startedAt: event.recordedAt,
    });
  } else if (view.get(ORGANIZATION_CREATIONS, accountId)) {
    view.patch(ORGANIZATION_CREATIONS, accountId, { status: 'abandoned' });
  }
}

function applyOrganization(event: RecordedEventOf<FollowedOrganizationEvent>, view: ProjectionView): void {
  const organizationId = suffix(event, 'organization-');
  const organization = view.get<Doc>(ORGANIZATIONS, organizationId);
  const patchOrg = (fields: Data) => organization && view.patch(ORGANIZATIONS, organizationId, fields);
  const member = (accountId: string) =>
    view.get<Doc>(ORGANIZATION_MEMBERS, memberId(organizationId, accountId));
  const patchMember = (accountId: string, fields: Data) =>
    member(accountId) && view.patch(ORGANIZATION_MEMBERS, memberId(organizationId, accountId), fields);
  switch (event.type) {
    case 'OrganizationCreated': {
      const data = event.data;
      view.put(ORGANIZATIONS, {
        id: organizationId,
        name: data.name,
        ownerAccountId: data.ownerAccountId,
        status: data.status,
        start: data.start,
        plan: null,
        requestedPlan: null,
        generalSpaceId: data.generalSpaceId,
        transitionCompleted: false,
        domain: null,
        verification: null,
        trial: null,
        createdAt: data.createdAt,
      });
      return;
    }
    case 'DomainVerificationRequested':
      patchOrg({ domain: event.data.domain, verification: { record: event.data.record, verifiedAt: null } });
      return;
    case 'AccountTransitionCompleted': {
      patchOrg({ transitionCompleted: true, transferredCredits: event.data.credits });
      // The event does not name the owner, so the creation document is not prefetched: a blind patch (no-op
      // when absent) works whichever batch the organization's creation landed in.
      const owner = organization?.ownerAccountId as string | undefined;
      if (owner) view.patch(ORGANIZATION_CREATIONS, owner, { status: 'completed' });
      return;
    }
    case 'DomainVerified':
      patchOrg({
        verification: {
          ...((organization?.verification as Data | null) ?? {}),
          verifiedAt: event.data.verifiedAt,
        },
      });
      return;
    case 'TrialStarted':
      patchOrg({
        plan: 'trial',
        trial: { startedAt: event.data.startedAt, endsAt: event.data.endsAt, ended: false },
      });
      return;
    case 'TrialEnded':
      patchOrg({ trial: { ...((organization?.trial as Data | null) ?? {}), ended: true } });
      return;
    case 'PlanRequested':
      patchOrg({ requestedPlan: event.data.plan });
      return;
    case 'CheckoutCompleted':
      patchOrg({ plan: event.data.plan, requestedPlan: null });
      return;
    case 'OrganizationStatusChanged':
      patchOrg({ status: event.data.to });
      return;
    case 'OrganizationRenamed':
      patchOrg({ name: event.data.to });
      return;
    case 'MemberAdded': {
      const data = event.data;
      view.put(ORGANIZATION_MEMBERS, {
        id: memberId(organizationId, data.accountId),
        organizationId,
        accountId: data.accountId,
        role: data.role,
        spaces: data.spaces,
        portion: data.portion,
        addedAt: data.addedAt,
      });
      return;
    }
    case 'MemberRemoved':
      view.delete(ORGANIZATION_MEMBERS, memberId(organizationId, event.data.accountId));
      return;
    case 'MemberRoleChanged':
      patchMember(event.data.accountId, { role: event.data.to });
      return;
    case 'SpaceAssigned': {
      const { accountId, spaceId } = event.data;
      const current = member(accountId);
      if (current) patchMember(accountId, { spaces: [...(current.spaces as string[]), spaceId] });
      return;
    }
    case 'SpaceUnassigned': {
      const { accountId, spaceId } = event.data;
      const current = member(accountId);
      if (current) {
        patchMember(accountId, { spaces: (current.spaces as string[]).filter((space) => space !== spaceId) });
      }
      return;
    }
    case 'PortionSet':
      patchMember(event.data.accountId, { portion: event.data.portion });
      return;
    case 'OwnershipTransferAccepted':
      patchOrg({ ownerAccountId: event.data.to });
      patchMember(event.data.to, { role: 'owner', spaces: [], portion: null });
      patchMember(event.data.from, { role: 'administrator' });
      return;
    default:
      return;
  }
}

function applySpace(event: RecordedEventOf<SpaceEvent>, view: ProjectionView): void {
  const spaceId = suffix(event, 'client-');
  const space = view.get<Doc>(ORGANIZATION_SPACES, spaceId);
  const patch = (fields: Data) => space && view.patch(ORGANIZATION_SPACES, spaceId, fields);
  const version = event.streamVersion;
  switch (event.type) {
    case 'SpaceCreated': {
      const data = event.data;
      view.put(ORGANIZATION_SPACES, {
        id: spaceId,
        organizationId: data.organizationId,
        kind: data.kind,
        name: data.name,
        state: 'active',
        creditLimit: data.creditLimit,
        monitoring: false,
        scheduleId: null,
        shares: {},
        version,
        createdAt: data.createdAt,
      });
      return;
    }
    case 'SpaceRenamed':
      patch({ name: event.data.to, version });
      return;
    case 'SpaceArchived':
      patch({ state: 'archived', version });
      return;
    case 'SpaceRestored':
      patch({ state: 'active', version });
      return;
    case 'CreditLimitSet':
      patch({ creditLimit: event.data.creditLimit, version });
      return;
    case 'MonitoringActivated':
      patch({ monitoring: true, scheduleId: event.data.scheduleId, version });
      return;
    case 'MonitoringStopped':
      patch({ monitoring: false, scheduleId: null, version });
      return;
    case 'ShareCreated':
      patch({
        shares: { ...((space?.shares as Data) ?? {}), [event.data.shareId]: { revoked: false } },
        version,
      });
      return;
    case 'ShareRevoked':
      patch({
        shares: { ...((space?.shares as Data) ?? {}), [event.data.shareId]: { revoked: true } },
        version,
      });
      return;
    case 'ExposureScopeDeclared': {
      const { domain, timezone, addresses, billing } = event.data;
      patch({ exposure: { domain, timezone, addresses, billing }, version });
      return;
    }
    case 'ExposureTimezoneChanged': {
      const exposure = space?.exposure as Data | undefined;
      patch({ ...(exposure && { exposure: { ...exposure, timezone: event.data.to } }), version });
      return;
    }
    case 'SpaceDeleted':
      patch({ state: 'deleted', eraseAfter: event.data.eraseAfter, version });
      return;
    case 'SpaceDeletionCancelled':
      patch({ state: 'archived', eraseAfter: null, version });
      return;
    default:
      // Exposure declarations and settings move the quoted version (If-Match) of the space.
      patch({ version });
  }
}

function applyCase(event: RecordedEventOf<CaseEvent>, view: ProjectionView): void {
  const caseId = suffix(event, 'case-');
  switch (event.type) {
    case 'CaseOpened': {
      const data = event.data;
      view.put(ORGANIZATION_CASES, {
        id: caseId,
        organizationId: data.organizationId,
        spaceId: data.spaceId,
        title: data.title,
        status: 'open',
        openedBy: data.openedBy,
        openedAt: data.openedAt,
        evidenceCount: 0,
      });
      return;
    }
    case 'CaseArchived':
      if (view.get(ORGANIZATION_CASES, caseId))
        view.patch(ORGANIZATION_CASES, caseId, { status: 'archived' });
      return;
    case 'EvidenceSaved': {
      const data = event.data;
      const found = view.get<Doc>(ORGANIZATION_CASES, caseId);
      if (found) {
        view.patch(ORGANIZATION_CASES, caseId, {
          evidenceCount: (found.evidenceCount as number) + data.records.length,
        });
      }
      view.put(ORGANIZATION_EVIDENCE, { id: data.evidenceId, ...data });
      return;
    }
  }
}

function applyReviewItem(event: RecordedEventOf<ReviewItemEvent>, view: ProjectionView): void {
  const itemId = suffix(event, 'review-item-');
  const exists = view.get(ORGANIZATION_REVIEW_ITEMS, itemId) !== null;
  switch (event.type) {
    case 'ReviewItemAdded':
      view.put(ORGANIZATION_REVIEW_ITEMS, {
        id: itemId,
        ...event.data,
        assignee: null,
        dueDate: null,
        source: null,
      });
      return;
    case 'ReviewItemAssigned':
      if (exists) view.patch(ORGANIZATION_REVIEW_ITEMS, itemId, { assignee: event.data.assignee });
      return;
    case 'ReviewItemDueDateSet':
      if (exists) view.patch(ORGANIZATION_REVIEW_ITEMS, itemId, { dueDate: event.data.dueDate });
      return;
    case 'ReviewItemTiedToSource':
      if (exists) view.patch(ORGANIZATION_REVIEW_ITEMS, itemId, { source: event.data.source });
      return;
  }
}

function applyComparison(event: RecordedEventOf<ComparisonEvent>, view: ProjectionView): void {
  const comparisonId = suffix(event, 'comparison-');
  if (event.type === 'ComparisonPrepared') {
    view.put(ORGANIZATION_COMPARISONS, {
      id: comparisonId,
      ...event.data,
      published: false,
      publishedAt: null,
    });
  } else if (view.get(ORGANIZATION_COMPARISONS, comparisonId)) {
    view.patch(ORGANIZATION_COMPARISONS, comparisonId, {
      published: true,
      publishedAt: event.data.publishedAt,
    });
  }
}
