import type { RecordedEvent } from '../src/platform/event-store/event-store.port.js';
import type {
  DocumentRef,
  ProjectionDefinition,
  ProjectionView,
} from '../src/platform/projections/projection-definition.js';
import { declarationOf } from '../src/exposure/domain/scope-declaration.js';

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

const suffix = (event: RecordedEvent, prefix: string): string => event.streamId.slice(prefix.length);
const memberId = (organizationId: string, accountId: string): string => `${organizationId}:${accountId}`;

const ORGANIZATION_EVENTS = [
  'OrganizationCreated',
  'DomainVerificationRequested',
  'AccountTransitionCompleted',
  'DomainVerified',
  'ApprovalRequested',
  'TrialStarted',
  'TrialEnded',
  'PlanRequested',
  'CheckoutCompleted',
  'OrganizationStatusChanged',
  'OrganizationRenamed',
  'MemberInvited',
  'InvitationRevoked',
  'MemberAdded',
  'MemberRemoved',
  'MemberRoleChanged',
  'SpaceAssigned',
  'SpaceUnassigned',
  'PortionSet',
  'OwnershipTransferOffered',
  'OwnershipTransferDeclined',
  'OwnershipTransferAccepted',
];
const SPACE_EVENTS = [
  'SpaceCreated',
  'SpaceRenamed',
  'SpaceArchived',
  'SpaceRestored',
  'CreditLimitSet',
  'MonitoringActivated',
  'MonitoringStopped',
  'ShareCreated',
  'ShareRevoked',
  'ExposureScopeDeclared',
  'ExposureTimezoneChanged',
  'SpaceDeleted',
  'SpaceDeletionCancelled',
  'SpaceErasureStarted',
];

export const organizationsProjection: ProjectionDefinition = {
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
    'CaseOpened',
    'CaseArchived',
    'EvidenceSaved',
    'ReviewItemAdded',
    'ReviewItemAssigned',
    'ReviewItemDueDateSet',
    'ReviewItemTiedToSource',
    'ComparisonPrepared',
    'ComparisonPublished',
    'OrganizationCreationStarted',
    'OrganizationCreationAbandoned',
    'ScopeErased',
  ],
  reads(event): DocumentRef[] {
    const data = event.data as Data;
    if (event.streamId.startsWith('organization-owner-')) {
      return [{ collection: ORGANIZATION_CREATIONS, id: suffix(event, 'organization-owner-') }];
    }
    if (event.streamId.startsWith('organization-')) {
      const organizationId = suffix(event, 'organization-');
      const refs: DocumentRef[] = [{ collection: ORGANIZATIONS, id: organizationId }];
      for (const key of ['accountId', 'from', 'to', 'ownerAccountId']) {
        if (typeof data[key] === 'string') {
          refs.push({ collection: ORGANIZATION_MEMBERS, id: memberId(organizationId, data[key] as string) });
        }
      }
      if (event.type === 'AccountTransitionCompleted' || event.type === 'OrganizationCreated') {
        const owner = data.ownerAccountId;
        if (typeof owner === 'string') refs.push({ collection: ORGANIZATION_CREATIONS, id: owner });
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
  apply(event: RecordedEvent, view: ProjectionView): void {
    const data = event.data as Data;
    // Erasure of a deleted space (issue 8): its streams are gone, so are its documents.
    if (event.type === 'ScopeErased') {
      const spaceId = data.scopeId as string;
      view.delete(ORGANIZATION_SPACES, spaceId);
      for (const collection of [
        ORGANIZATION_CASES,
        ORGANIZATION_EVIDENCE,
        ORGANIZATION_REVIEW_ITEMS,
        ORGANIZATION_COMPARISONS,
      ]) {
        view.deleteWhere(collection, { organizationId: data.organizationId as string, spaceId });
      }
      return;
    }
    if (event.streamId.startsWith('organization-owner-')) return applyCreation(event, data, view);
    if (event.streamId.startsWith('organization-')) return applyOrganization(event, data, view);
    if (event.streamId.startsWith('client-')) return applySpace(event, data, view);
    if (event.streamId.startsWith('case-')) return applyCase(event, data, view);
    if (event.streamId.startsWith('review-item-')) return applyReviewItem(event, data, view);
    if (event.streamId.startsWith('comparison-')) return applyComparison(event, data, view);
  },
};

function applyCreation(event: RecordedEvent, data: Data, view: ProjectionView): void {
  const accountId = suffix(event, 'organization-owner-');
  if (event.type === 'OrganizationCreationStarted') {
    view.put(ORGANIZATION_CREATIONS, {
      id: accountId,
      organizationId: data.organizationId,
      transferId: data.transferId,
      status: 'started',
      startedAt: event.recordedAt,
    });
  } else if (event.type === 'OrganizationCreationAbandoned' && view.get(ORGANIZATION_CREATIONS, accountId)) {
    view.patch(ORGANIZATION_CREATIONS, accountId, { status: 'abandoned' });
  }
}

function applyOrganization(event: RecordedEvent, data: Data, view: ProjectionView): void {
  const organizationId = suffix(event, 'organization-');
  const organization = view.get<Doc>(ORGANIZATIONS, organizationId);
  const patchOrg = (fields: Data) => organization && view.patch(ORGANIZATIONS, organizationId, fields);
  const member = (accountId: string) =>
    view.get<Doc>(ORGANIZATION_MEMBERS, memberId(organizationId, accountId));
  const patchMember = (accountId: string, fields: Data) =>
    member(accountId) && view.patch(ORGANIZATION_MEMBERS, memberId(organizationId, accountId), fields);
  switch (event.type) {
    case 'OrganizationCreated':
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
    case 'DomainVerificationRequested':
      patchOrg({ domain: data.domain, verification: { record: data.record, verifiedAt: null } });
      return;
    case 'AccountTransitionCompleted': {
      patchOrg({ transitionCompleted: true, transferredCredits: data.credits });
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
          verifiedAt: data.verifiedAt,
        },
      });
      return;
    case 'TrialStarted':
      patchOrg({ plan: 'trial', trial: { startedAt: data.startedAt, endsAt: data.endsAt, ended: false } });
      return;
    case 'TrialEnded':
      patchOrg({ trial: { ...((organization?.trial as Data | null) ?? {}), ended: true } });
      return;
    case 'PlanRequested':
      patchOrg({ requestedPlan: data.plan });
      return;
    case 'CheckoutCompleted':
      patchOrg({ plan: data.plan, requestedPlan: null });
      return;
    case 'OrganizationStatusChanged':
      patchOrg({ status: data.to });
      return;
    case 'OrganizationRenamed':
      patchOrg({ name: data.to });
      return;
    case 'MemberAdded':
      view.put(ORGANIZATION_MEMBERS, {
        id: memberId(organizationId, data.accountId as string),
        organizationId,
        accountId: data.accountId,
        role: data.role,
        spaces: data.spaces,
        portion: data.portion,
        addedAt: data.addedAt,
      });
      return;
    case 'MemberRemoved':
      view.delete(ORGANIZATION_MEMBERS, memberId(organizationId, data.accountId as string));
      return;
    case 'MemberRoleChanged':
      patchMember(data.accountId as string, { role: data.to });
      return;
    case 'SpaceAssigned': {
      const current = member(data.accountId as string);
      if (current) {
        patchMember(data.accountId as string, { spaces: [...(current.spaces as string[]), data.spaceId] });
      }
      return;
    }
    case 'SpaceUnassigned': {
      const current = member(data.accountId as string);
      if (current) {
        patchMember(data.accountId as string, {
          spaces: (current.spaces as string[]).filter((space) => space !== data.spaceId),
        });
      }
      return;
    }
    case 'PortionSet':
      patchMember(data.accountId as string, { portion: data.portion });
      return;
    case 'OwnershipTransferAccepted':
      patchOrg({ ownerAccountId: data.to });
      patchMember(data.to as string, { role: 'owner', spaces: [], portion: null });
      patchMember(data.from as string, { role: 'administrator' });
      return;
    default:
      return;
  }
}

function applySpace(event: RecordedEvent, data: Data, view: ProjectionView): void {
  const spaceId = suffix(event, 'client-');
  const space = view.get<Doc>(ORGANIZATION_SPACES, spaceId);
  const patch = (fields: Data) => space && view.patch(ORGANIZATION_SPACES, spaceId, fields);
  switch (event.type) {
    case 'SpaceCreated':
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
        version: event.streamVersion,
        createdAt: data.createdAt,
      });
      return;
    case 'SpaceRenamed':
      patch({ name: data.to, version: event.streamVersion });
      return;
    case 'SpaceArchived':
      patch({ state: 'archived', version: event.streamVersion });
      return;
    case 'SpaceRestored':
      patch({ state: 'active', version: event.streamVersion });
      return;
    case 'CreditLimitSet':
      patch({ creditLimit: data.creditLimit, version: event.streamVersion });
      return;
    case 'MonitoringActivated':
      patch({ monitoring: true, scheduleId: data.scheduleId, version: event.streamVersion });
      return;
    case 'MonitoringStopped':
      patch({ monitoring: false, scheduleId: null, version: event.streamVersion });
      return;
    case 'ShareCreated':
      patch({
        shares: { ...((space?.shares as Data) ?? {}), [data.shareId as string]: { revoked: false } },
        version: event.streamVersion,
      });
      return;
    case 'ShareRevoked':
      patch({
        shares: { ...((space?.shares as Data) ?? {}), [data.shareId as string]: { revoked: true } },
        version: event.streamVersion,
      });
      return;
    case 'ExposureScopeDeclared':
      patch({ exposure: declarationOf(data), version: event.streamVersion });
      return;
    case 'ExposureTimezoneChanged': {
      const exposure = space?.exposure as Data | undefined;
      patch({
        ...(exposure && { exposure: { ...exposure, timezone: data.to } }),
        version: event.streamVersion,
      });
      return;
    }
    case 'SpaceDeleted':
      patch({ state: 'deleted', eraseAfter: data.eraseAfter, version: event.streamVersion });
      return;
    case 'SpaceDeletionCancelled':
      patch({ state: 'archived', eraseAfter: null, version: event.streamVersion });
      return;
    default:
      // Exposure declarations and settings move the quoted version (If-Match) of the space.
      patch({ version: event.streamVersion });
  }
}

function applyCase(event: RecordedEvent, data: Data, view: ProjectionView): void {
  const caseId = suffix(event, 'case-');
  switch (event.type) {
    case 'CaseOpened':
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
    case 'CaseArchived':
      if (view.get(ORGANIZATION_CASES, caseId))
        view.patch(ORGANIZATION_CASES, caseId, { status: 'archived' });
      return;
    case 'EvidenceSaved': {
      const found = view.get<Doc>(ORGANIZATION_CASES, caseId);
      if (found) {
        view.patch(ORGANIZATION_CASES, caseId, {
          evidenceCount: (found.evidenceCount as number) + (data.records as unknown[]).length,
        });
      }
      view.put(ORGANIZATION_EVIDENCE, { id: data.evidenceId as string, ...data });
      return;
    }
  }
}

function applyReviewItem(event: RecordedEvent, data: Data, view: ProjectionView): void {
  const itemId = suffix(event, 'review-item-');
  const exists = view.get(ORGANIZATION_REVIEW_ITEMS, itemId) !== null;
  switch (event.type) {
    case 'ReviewItemAdded':
      view.put(ORGANIZATION_REVIEW_ITEMS, {
        id: itemId,
        ...data,
        assignee: null,
        dueDate: null,
        source: null,
      });
      return;
    case 'ReviewItemAssigned':
      if (exists) view.patch(ORGANIZATION_REVIEW_ITEMS, itemId, { assignee: data.assignee });
      return;
    case 'ReviewItemDueDateSet':
      if (exists) view.patch(ORGANIZATION_REVIEW_ITEMS, itemId, { dueDate: data.dueDate });
      return;
    case 'ReviewItemTiedToSource':
      if (exists) view.patch(ORGANIZATION_REVIEW_ITEMS, itemId, { source: data.source });
      return;
  }
}

function applyComparison(event: RecordedEvent, data: Data, view: ProjectionView): void {
  const comparisonId = suffix(event, 'comparison-');
  if (event.type === 'ComparisonPrepared') {
    view.put(ORGANIZATION_COMPARISONS, { id: comparisonId, ...data, published: false, publishedAt: null });
  } else if (event.type === 'ComparisonPublished' && view.get(ORGANIZATION_COMPARISONS, comparisonId)) {
    view.patch(ORGANIZATION_COMPARISONS, comparisonId, { published: true, publishedAt: data.publishedAt });
  }
}
