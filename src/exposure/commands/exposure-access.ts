import type { Principal } from '../../platform/auth/access.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import type { StreamWriter } from '../../platform/event-sourcing/stream-writer.js';
import type {
  OrganizationAccess,
  OrganizationGate,
} from '../../organizations/commands/organization-access.js';
import { isId } from '../../organizations/commands/organization-access.js';
import type { Capability } from '../../organizations/domain/roles.js';
import { spaceDecider, spaceStreamId, type SpaceState } from '../../organizations/domain/space.js';
import { expositionDecider, expositionStreamId, type ExpositionState } from '../domain/exposition.js';
import type { ExposureDeclaration } from '../domain/scope-declaration.js';

export interface ExposureAccess {
  readonly access: OrganizationAccess;
  readonly exposition: ExpositionState;
}

export interface ScopeAccess extends ExposureAccess {
  readonly scopeId: string;
  readonly space: SpaceState;
  readonly exposure: ExposureDeclaration;
  readonly version: number;
}

/**
 * Authentication 6, in one place: exposure routes need an Exposition organization and the selected scope;
 * external clients and General research cannot use them; writes need a writable organization; settings need a
 * manager; a member's assigned scopes limit everything else. Built on the organization gate (membership,
 * role, status, folded from the organization stream at every request).
 */
export class ExposureGate {
  constructor(
    private readonly writer: StreamWriter,
    private readonly organizations: OrganizationGate,
  ) {}

  organizationGate(): OrganizationGate {
    return this.organizations;
  }

  async exposition(organizationId: string): Promise<ExpositionState> {
    return (await this.writer.load(expositionStreamId(organizationId), expositionDecider)).state;
  }

  /**
   * The organization part. `capability`: `spaces.manage` for creation, lifecycle and settings (owner or
   * administrator), `work.internal` for the rest (external clients have neither). `write`: a writable
   * organization (rule 14).
   */
  async organization(
    principal: Principal,
    organizationId: string,
    options: { readonly capability: Capability; readonly write: boolean },
  ): Promise<ExposureAccess> {
    // Membership first: a non-member learns nothing, not even whether the product is on.
    await this.organizations.require(principal, organizationId, { open: false });
    const exposition = await this.exposition(organizationId);
    if (!exposition.enabled) {
      throw new ServiceError('exposure_not_enabled', 'exposure scopes need an Exposition organization', {
        organization_id: organizationId,
      });
    }
    // The role check after the product check: the same answer for every member of a non-Exposition org.
    const checked = await this.organizations.require(principal, organizationId, {
      capability: options.capability,
      open: options.write,
    });
    return { access: checked, exposition };
  }

  /** The organization part, then the scope: reachable by this member, a declared exposure scope, not deleted. */
  async scope(
    principal: Principal,
    organizationId: string,
    scopeId: string,
    options: { readonly capability: Capability; readonly write: boolean },
  ): Promise<ScopeAccess> {
    const organization = await this.organization(principal, organizationId, options);
    const loaded = await this.organizations.space(organization.access, scopeId);
    if (loaded.state.kind === 'general') {
      throw new ServiceError('forbidden', 'General research is not an exposure scope: select a scope');
    }
    if (!loaded.state.exposure) throw new ServiceError('not_found', 'no such exposure scope');
    return {
      ...organization,
      scopeId,
      space: loaded.state,
      exposure: loaded.state.exposure,
      version: loaded.version ?? -1,
    };
  }

  /**
   * A space of the organization in any lifecycle state, deleted included (restoration): managers only. Another
   * organization's space, or an erased one, is 404.
   */
  async anySpace(
    access: OrganizationAccess,
    spaceId: string,
  ): Promise<{ state: SpaceState; version: number | null }> {
    if (!isId(spaceId)) throw new ServiceError('not_found', 'no such space');
    const loaded = await this.writer.load(spaceStreamId(spaceId), spaceDecider);
    if (!loaded.state.exists || loaded.state.organizationId !== access.organizationId) {
      throw new ServiceError('not_found', 'no such space');
    }
    return loaded;
  }
}

/** Archived scopes keep their inventory and history readable; new work waits until they are active again. */
export function requireActiveScope(scope: ScopeAccess): void {
  if (scope.space.state !== 'active') {
    throw new ServiceError('forbidden', 'the scope is archived: reactivate it first', {
      state: scope.space.state,
    });
  }
}
