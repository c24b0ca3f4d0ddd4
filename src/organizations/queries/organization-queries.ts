import { Inject, Injectable } from '@nestjs/common';
import {
  ORGANIZATIONS,
  ORGANIZATION_CASES,
  ORGANIZATION_COMPARISONS,
  ORGANIZATION_EVIDENCE,
  ORGANIZATION_MEMBERS,
  ORGANIZATION_REVIEW_ITEMS,
  ORGANIZATION_SPACES,
} from '../../../projections/organizations.projection.js';
import {
  envelopeAvailable,
  available,
  type LedgerContext,
  type LedgerState,
} from '../../credits/domain/ledger.js';
import { CreditLedger } from '../../credits/commands/credit-ledger.js';
import type { Principal } from '../../platform/auth/access.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import type { Collection, ReadDocument } from '../../platform/read-store/read-store.port.js';
import { ProjectionRunner } from '../../platform/projections/projection-runner.js';
import { OrganizationGate, type OrganizationAccess } from '../commands/organization-access.js';
import { WorkspaceSelections } from '../commands/workspace-selection.js';
import { isRestricted, reachesSpace, restrictionAction } from '../domain/organization.js';
import { creditView, seesEvidence, seesStaff, visibleAuthor, type EnvelopeView } from '../domain/policies.js';
import { can, isStaff } from '../domain/roles.js';

type Doc = ReadDocument & Record<string, unknown> & { id: string };

/** The organization's credits as they stood at a moment (`as_of`): its ledger then, and its spaces then. */
export interface CreditsThen {
  readonly ledger: LedgerState;
  readonly context: LedgerContext;
  readonly spaces: Pick<Collection<Doc>, 'get'>;
}

/**
 * Reads of the workspace from its read models. Every read is scoped by the organization id the gate accepted,
 * and by the spaces the member reaches. Reading an overview starts no collection and spends nothing (rule 2).
 */
@Injectable()
export class OrganizationQueries {
  constructor(
    @Inject(ProjectionRunner) private readonly projections: ProjectionRunner,
    @Inject(OrganizationGate) private readonly gate: OrganizationGate,
    @Inject(WorkspaceSelections) private readonly selections: WorkspaceSelections,
    @Inject(CreditLedger) private readonly ledger: CreditLedger,
  ) {}

  private collection(name: string) {
    return this.projections.collection<Doc>('organizations', name);
  }

  async list(principal: Principal) {
    const memberships = await this.collection(ORGANIZATION_MEMBERS).find({ accountId: principal.accountId });
    const visible = principal.organizationId
      ? memberships.filter((m) => m.organizationId === principal.organizationId)
      : memberships;
    const organizations = await this.collection(ORGANIZATIONS).getMany(
      visible.map((m) => m.organizationId as string),
    );
    const byId = new Map(organizations.map((o) => [o.id, o]));
    return {
      organizations: visible
        .map((m) => ({ organization: byId.get(m.organizationId as string), role: m.role }))
        .filter((entry) => entry.organization)
        .map(({ organization, role }) => ({
          id: organization!.id,
          name: organization!.name,
          status: organization!.status,
          role,
        })),
    };
  }

  /** The dashboard: the organization, the caller's role, status and billing action, reachable spaces. */
  async overview(access: OrganizationAccess) {
    const { state } = access;
    const [spaces, sso] = await Promise.all([
      this.spaces(access),
      // Enforcement lives on the SSO stream only; the gate decides entry from the same fold.
      this.gate.singleSignOn(access.organizationId),
    ]);
    return {
      id: access.organizationId,
      name: state.name,
      status: state.status,
      restricted: isRestricted(state),
      action: restrictionAction(state),
      plan: state.plan,
      requested_plan: state.requestedPlan,
      start: state.start,
      trial: state.trial
        ? {
            domain: state.trial.domain,
            started_at: state.trial.startedAt,
            ends_at: state.trial.endsAt,
            ended: state.trial.ended,
          }
        : null,
      verification:
        state.verification && can(access.member.role, 'billing.manage')
          ? {
              domain: state.verification.domain,
              record: state.verification.record,
              verified_at: state.verification.verifiedAt,
            }
          : null,
      // Who the staff are is internal (rule 11).
      owner_account_id: seesStaff(access.member.role) ? state.ownerAccountId : null,
      role: access.member.role,
      ownership_offer:
        state.ownershipOffer &&
        (state.ownershipOffer.to === access.accountId || can(access.member.role, 'ownership.transfer'))
          ? { to: state.ownershipOffer.to, offered_at: state.ownershipOffer.offeredAt }
          : null,
      general_space_id: isStaff(access.member.role) ? state.generalSpaceId : null,
      sso: { enforced: sso.enforced },
      spaces: spaces.spaces,
    };
  }

  async members(access: OrganizationAccess) {
    const { state } = access;
    const manager = can(access.member.role, 'members.manage');
    return {
      members: Object.entries(state.members)
        .map(([accountId, member]) => ({
          account_id: accountId,
          role: member.role,
          ...(manager ? { space_ids: member.spaces, portion: member.portion } : {}),
          added_at: member.addedAt,
        }))
        .sort((a, b) => (a.added_at < b.added_at ? -1 : a.added_at > b.added_at ? 1 : 0)),
      invitations: manager
        ? Object.entries(state.invitations).map(([id, invitation]) => ({
            id,
            email: invitation.email,
            role: invitation.role,
            space_ids: invitation.spaces,
            portion: invitation.portion,
            invited_at: invitation.invitedAt,
          }))
        : [],
    };
  }

  async spaces(access: OrganizationAccess) {
    const spaces = await this.collection(ORGANIZATION_SPACES).find({ organizationId: access.organizationId });
    return {
      spaces: spaces
        // A deleted space is gone for everyone at once; managers find it under GET …/clients/deleted.
        .filter(
          (space) => space.state !== 'deleted' && reachesSpace(access.state, access.accountId, space.id),
        )
        .map((space) => spaceView(space, access)),
    };
  }

  /** `spaces`: where the space documents are read (an `as_of` replay's, or the live read model). */
  async space(
    access: OrganizationAccess,
    spaceId: string,
    spaces: Pick<Collection<Doc>, 'get'> = this.collection(ORGANIZATION_SPACES),
  ) {
    await this.gate.space(access, spaceId);
    const space = await spaces.get(spaceId);
    if (!space) throw new ServiceError('not_found', 'no such space');
    return spaceView(space, access);
  }

  async cases(access: OrganizationAccess) {
    const cases = await this.collection(ORGANIZATION_CASES).find({ organizationId: access.organizationId });
    const reachable = cases.filter((c) => reachesSpace(access.state, access.accountId, c.spaceId as string));
    return {
      cases: await Promise.all(
        // Staff count every item (the stored count); an external client only what it may see.
        reachable.map(async (c) =>
          caseView(c, access, seesStaff(access.member.role) ? null : await this.visibleEvidence(access, c)),
        ),
      ),
    };
  }

  async caseDetail(access: OrganizationAccess, caseId: string) {
    await this.gate.case(access, caseId);
    const found = await this.collection(ORGANIZATION_CASES).get(caseId);
    if (!found) throw new ServiceError('not_found', 'no such case');
    const evidence = await this.visibleEvidence(access, found);
    return {
      ...caseView(found, access, evidence),
      evidence: evidence.map((e) => evidenceView(e, access)),
    };
  }

  /** The case's evidence the member may see (staff: all; external clients: client-visible only). */
  private async visibleEvidence(access: OrganizationAccess, found: Doc): Promise<Doc[]> {
    const evidence = await this.collection(ORGANIZATION_EVIDENCE).find({ caseId: found.id });
    return evidence.filter((e) => seesEvidence(access.member.role, e.visibility));
  }

  async evidence(access: OrganizationAccess, evidenceId: string) {
    const found = await this.collection(ORGANIZATION_EVIDENCE).get(evidenceId);
    if (
      !found ||
      found.organizationId !== access.organizationId ||
      !reachesSpace(access.state, access.accountId, found.spaceId as string) ||
      !seesEvidence(access.member.role, found.visibility)
    ) {
      throw new ServiceError('not_found', 'no such evidence');
    }
    return evidenceView(found, access);
  }

  /** Rule 11: every accessible space's queued observations, for internal members. */
  async reviewQueue(access: OrganizationAccess) {
    const items = await this.collection(ORGANIZATION_REVIEW_ITEMS).find({
      organizationId: access.organizationId,
    });
    return {
      items: items
        .filter((item) => reachesSpace(access.state, access.accountId, item.spaceId as string))
        .sort((a, b) => String(a.addedAt).localeCompare(String(b.addedAt)))
        .map((item) => ({
          id: item.id,
          space_id: item.spaceId,
          search_id: item.searchId,
          record: item.record,
          assignee: item.assignee,
          due_date: item.dueDate,
          source: item.source
            ? { case_id: (item.source as Doc).caseId, evidence_id: (item.source as Doc).evidenceId }
            : null,
          added_by: item.addedBy,
          added_at: item.addedAt,
        })),
    };
  }

  async comparison(access: OrganizationAccess, comparisonId: string) {
    await this.gate.comparisonSpace(access, comparisonId);
    const found = await this.collection(ORGANIZATION_COMPARISONS).get(comparisonId);
    if (!found || (!isStaff(access.member.role) && !found.published)) {
      throw new ServiceError('not_found', 'no such comparison');
    }
    return comparisonView(found);
  }

  /** What an external client keeps: the explicitly published view of a space (rule 11). */
  async publishedView(access: OrganizationAccess, spaceId: string) {
    await this.gate.space(access, spaceId);
    const comparisons = await this.collection(ORGANIZATION_COMPARISONS).find({
      organizationId: access.organizationId,
    });
    return {
      space_id: spaceId,
      comparisons: comparisons
        .filter((c) => c.spaceId === spaceId && c.published)
        .map((c) => comparisonView(c)),
    };
  }

  /** Rule 8: managers see the shared balance; other members their permitted envelope. */
  async credits(access: OrganizationAccess, principal: Principal, then?: CreditsThen) {
    const payer = `organization:${access.organizationId}`;
    const [state, ledgerContext] = then
      ? [then.ledger, then.context]
      : await Promise.all([this.ledger.state(payer), this.ledger.ledgerContext(payer)]);
    const shared = available(state, ledgerContext);
    if (can(access.member.role, 'balance.shared')) {
      return {
        ...creditView(access.member.role, shared, []),
        balance: state.purchasedBalance,
        reserved: Object.values(state.openReservations).reduce((sum, r) => sum + r.amount, 0),
      };
    }
    const selection = principal.sessionId
      ? await this.selections.get(principal.sessionId, access.organizationId)
      : null;
    const limits: EnvelopeView[] = [];
    if (selection?.spaceId && reachesSpace(access.state, access.accountId, selection.spaceId)) {
      const space = await (then?.spaces ?? this.collection(ORGANIZATION_SPACES)).get(selection.spaceId);
      if (space && typeof space.creditLimit === 'number') {
        const envelope = { key: `space:${selection.spaceId}`, limit: space.creditLimit };
        limits.push({ ...envelope, available: envelopeAvailable(state, envelope) });
      }
    }
    if (access.member.role === 'external_client' && access.member.portion !== null) {
      const envelope = { key: `member:${access.accountId}`, limit: access.member.portion };
      limits.push({ ...envelope, available: envelopeAvailable(state, envelope) });
    }
    return creditView(access.member.role, shared, limits);
  }

  /**
   * The `service_credits` of a session switched to the organization (rule 8): what the member may see, the
   * same view as the credits route. Null when the session no longer reaches the organization.
   */
  async serviceCredits(principal: Principal): Promise<{ scope: string; available: number } | null> {
    if (!principal.organizationId) return null;
    const access = await this.gate.require(principal, principal.organizationId).catch(() => null);
    if (!access) return null;
    const view = await this.credits(access, principal);
    return { scope: view.scope, available: view.available };
  }
}

/** The client view; an exposure scope's declaration (domain, timezone, addresses) is part of it. */
function spaceView(space: Doc, access: OrganizationAccess) {
  const exposure = space.exposure as { domain: string; timezone: string; addresses: string[] } | undefined;
  return {
    id: space.id,
    kind: space.kind,
    name: space.name,
    domain: exposure?.domain ?? null,
    timezone: exposure?.timezone ?? null,
    addresses: exposure?.addresses ?? [],
    state: space.state,
    credit_limit: space.creditLimit,
    monitoring: space.monitoring,
    erase_after: space.eraseAfter ?? null,
    // Guest share links are the staff's to hand out; an external client keeps the published view (rule 11).
    shares: seesStaff(access.member.role)
      ? Object.entries((space.shares as Record<string, { revoked: boolean }>) ?? {}).map(([id, share]) => ({
          id,
          revoked: share.revoked,
        }))
      : [],
    version: `"${String(space.version)}"`,
  };
}

/** `visible`: the evidence an external client may see (its count is theirs); null for staff (every item). */
function caseView(c: Doc, access: OrganizationAccess, visible: readonly Doc[] | null) {
  return {
    id: c.id,
    space_id: c.spaceId,
    title: c.title,
    status: c.status,
    // Records saved into the case, counting only evidence the viewer may see (rule 11).
    evidence_count:
      visible === null
        ? c.evidenceCount
        : visible.reduce((sum, e) => sum + ((e.records as unknown[] | undefined)?.length ?? 0), 0),
    opened_by: visibleAuthor(access.member.role, access.accountId, c.openedBy),
    opened_at: c.openedAt,
  };
}

function evidenceView(e: Doc, access: OrganizationAccess) {
  return {
    id: e.evidenceId,
    case_id: e.caseId,
    space_id: e.spaceId,
    search_id: e.searchId,
    records: e.records,
    note: e.note,
    visibility: e.visibility,
    saved_by: visibleAuthor(access.member.role, access.accountId, e.savedBy),
    saved_at: e.savedAt,
  };
}

function comparisonView(c: Doc) {
  return {
    id: c.comparisonId,
    space_id: c.spaceId,
    title: c.title,
    evidence: c.evidence,
    rows: c.rows,
    differing_fields: c.differingFields,
    published: c.published,
    prepared_at: c.preparedAt,
  };
}
