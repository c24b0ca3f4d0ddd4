import { Inject, Injectable } from '@nestjs/common';
import type { Principal } from '../../platform/auth/access.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import { StreamWriter } from '../../platform/event-sourcing/stream-writer.js';
import { EVENT_STORE, type EventStore } from '../../platform/event-store/event-store.port.js';
import { caseDecider, caseStreamId, type CaseState } from '../domain/case.js';
import {
  memberOf,
  organizationDecider,
  organizationStreamId,
  reachesSpace,
  requireOpen,
  type Member,
  type OrganizationState,
} from '../domain/organization.js';
import { comparisonStreamId, completedSearchDecider, researchStreamId } from '../domain/review.js';
import { can, isStaff, type Capability, type Role } from '../domain/roles.js';
import { spaceDecider, spaceStreamId, type SpaceState } from '../domain/space.js';
import {
  passwordRefusedFor,
  ssoDecider,
  ssoRequired,
  ssoStreamId,
  type SsoState,
} from '../sso/domain/sso.js';

export interface OrganizationAccess {
  readonly organizationId: string;
  readonly accountId: string;
  readonly state: OrganizationState;
  readonly version: number | null;
  readonly member: Member;
}

const notFound = (what = 'organization'): ServiceError => new ServiceError('not_found', `no such ${what}`);

/**
 * The one access check of every organization route. It folds the organization stream (cached, then the newer
 * events), so removing a member or an assignment revokes at once, never after a projection catches up.
 *
 * - Only a browser session reaches an organization (a personal API key or OAuth token grants nothing).
 * - A session switched to an organization stays restricted to it: any other organization is 404.
 * - A non-member gets 404 and learns nothing.
 * - Rule 12: a staff member of an organization enforcing single sign-on enters it only with a session its
 *   provider (or the owner's recovery code) opened, which is switched to it; any other session gets 403
 *   `sso_required` with the sign-in address (switching a password session into it included).
 * - A member without the capability gets 403 `forbidden`.
 * - `open`: the organization must not be restricted (rule 14); the owner role does not bypass it.
 */
@Injectable()
export class OrganizationGate {
  constructor(
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
  ) {}

  async require(
    principal: Principal,
    organizationId: string,
    options: { readonly capability?: Capability; readonly open?: boolean } = {},
  ): Promise<OrganizationAccess> {
    if (principal.via !== 'session') throw notFound();
    if (principal.organizationId && principal.organizationId !== organizationId) throw notFound();
    const loaded = await this.organization(organizationId);
    const member = loaded.state.exists ? memberOf(loaded.state, principal.accountId) : undefined;
    if (!member) throw notFound();
    if (principal.organizationId !== organizationId) {
      const refusal = await this.ssoEntryRefusal(organizationId, member.role);
      if (refusal) throw refusal;
    }
    const access = { organizationId, accountId: principal.accountId, ...loaded, member };
    if (options.capability) this.authorize(access, options.capability);
    if (options.open) requireOpen(loaded.state);
    return access;
  }

  /** The Roles table (roles.ts): 403 `forbidden` when the member's role lacks the capability. */
  authorize(access: OrganizationAccess, capability: Capability): void {
    const role = access.member.role;
    if (!can(role, capability)) {
      throw new ServiceError('forbidden', `the ${role.replace('_', ' ')} role cannot do this`, { role });
    }
  }

  /** Rule 12: the refusal a staff member gets entering an organization that enforces SSO, else null. */
  async ssoEntryRefusal(organizationId: string, role: Role): Promise<ServiceError | null> {
    if (!isStaff(role)) return null;
    return passwordRefusedFor(await this.singleSignOn(organizationId), role)
      ? ssoRequired(organizationId)
      : null;
  }

  /** The organization's single sign-on, folded from `sso-<id>`: its one source, read by the gate and the overview. */
  async singleSignOn(organizationId: string): Promise<SsoState> {
    return (await this.writer.load(ssoStreamId(organizationId), ssoDecider)).state;
  }

  async organization(organizationId: string): Promise<{ state: OrganizationState; version: number | null }> {
    if (!isId(organizationId)) throw notFound();
    return this.writer.load(organizationStreamId(organizationId), organizationDecider);
  }

  /** A space of this organization the member reaches; otherwise 404, whether it exists elsewhere or not. */
  async space(
    access: OrganizationAccess,
    spaceId: string,
  ): Promise<{ state: SpaceState; version: number | null }> {
    if (!isId(spaceId)) throw notFound('space');
    const loaded = await this.writer.load(spaceStreamId(spaceId), spaceDecider);
    if (
      !loaded.state.exists ||
      // Deletion removes access at once (scope state table); only restoration reaches a deleted space.
      loaded.state.deleted ||
      loaded.state.organizationId !== access.organizationId ||
      !reachesSpace(access.state, access.accountId, spaceId)
    ) {
      throw notFound('space');
    }
    return loaded;
  }

  /** A case of this organization in a space the member reaches; otherwise 404. */
  async case(access: OrganizationAccess, caseId: string): Promise<CaseState> {
    if (!isId(caseId)) throw notFound('case');
    const found = await this.writer.load(caseStreamId(caseId), caseDecider);
    if (!found.state.exists || found.state.organizationId !== access.organizationId) throw notFound('case');
    if (!reachesSpace(access.state, access.accountId, found.state.spaceId!)) throw notFound('case');
    return found.state;
  }

  /** A completed search of this organization in a space the member reaches; otherwise 404. */
  async completedSearch(access: OrganizationAccess, searchId: string) {
    const found = await this.findCompletedSearch(access, searchId);
    if (!found) throw notFound('search');
    return found;
  }

  /** The same search, or null when the member reaches none by that id. */
  async findCompletedSearch(access: OrganizationAccess, searchId: string) {
    if (!isId(searchId)) return null;
    const { state } = await this.writer.load(researchStreamId(searchId), completedSearchDecider);
    if (!state.data || state.data.organizationId !== access.organizationId) return null;
    if (!reachesSpace(access.state, access.accountId, state.data.spaceId)) return null;
    return state.data;
  }

  /** The space of a comparison of this organization the member reaches; otherwise 404. */
  async comparisonSpace(access: OrganizationAccess, comparisonId: string): Promise<string> {
    if (!isId(comparisonId)) throw notFound('comparison');
    const [prepared] = await this.eventStore.readStream(comparisonStreamId(comparisonId), { maxCount: 1 });
    const data = prepared?.data as { organizationId?: string; spaceId?: string } | undefined;
    if (
      !data ||
      data.organizationId !== access.organizationId ||
      !reachesSpace(access.state, access.accountId, data.spaceId!)
    ) {
      throw notFound('comparison');
    }
    return data.spaceId!;
  }
}

/** Ids are UUIDs here; anything else is simply unknown (and never reaches a stream name). */
export function isId(value: unknown): value is string {
  return (
    typeof value === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)
  );
}
