import type { Principal } from '../../platform/auth/access.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import type { StreamWriter } from '../../platform/event-sourcing/stream-writer.js';
import type {
  OrganizationAccess,
  OrganizationGate,
} from '../../organizations/commands/organization-access.js';
import { isId } from '../../organizations/commands/organization-access.js';
import type { OrganizationProducts } from '../../organizations/commands/organization-products.js';
import { requireOpen } from '../../organizations/domain/organization.js';
import type { Capability, OrganizationProduct } from '../../organizations/domain/roles.js';
import { spaceDecider, spaceStreamId, type SpaceState } from '../../organizations/domain/space.js';
import { expositionDecider, expositionStreamId, type ExpositionState } from '../domain/exposition.js';
import type { ExposureDeclaration } from '../domain/scope-declaration.js';

export interface ExposureAccess {
  readonly access: OrganizationAccess;
  readonly exposition: ExpositionState;
}

export interface ExposureAccessOptions {
  /** Only where no route checked it first; routes declare theirs (roles.ts). */
  readonly capability?: Capability;
  /** A write: the organization must be writable (rule 14). */
  readonly write: boolean;
}

export interface ScopeAccess extends ExposureAccess {
  readonly scopeId: string;
  readonly space: SpaceState;
  readonly exposure: ExposureDeclaration;
  readonly version: number;
}

/**
 * Authentication 6, the exposure part: exposure routes need an Exposition organization and the selected scope;
 * General research cannot use them; writes need a writable organization; a member's assigned scopes limit
 * everything. Who may call which route (managers for settings, staff for the work, never external clients) is
 * each route's capability, checked by the organization access layer before the route runs (roles.ts). Built
 * on the organization gate (membership, role, status, folded from the organization stream at every request).
 */
export class ExposureGate implements OrganizationProducts {
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

  /** The product check of the organization access layer: 403 `exposure_not_enabled` without Exposition. */
  async requireEnabled(organizationId: string, product: OrganizationProduct): Promise<void> {
    if (product === 'exposition') await this.enabledExposition(organizationId);
  }

  private async enabledExposition(organizationId: string): Promise<ExpositionState> {
    const exposition = await this.exposition(organizationId);
    if (!exposition.enabled) {
      throw new ServiceError('exposure_not_enabled', 'exposure scopes need an Exposition organization', {
        organization_id: organizationId,
      });
    }
    return exposition;
  }

  /**
   * The organization part, in the access layer's order: membership (404), the product (403), the capability
   * when one is given (the routes' was checked before they ran), then `write`: a writable organization
   * (rule 14).
   */
  async organization(
    principal: Principal,
    organizationId: string,
    options: ExposureAccessOptions,
  ): Promise<ExposureAccess> {
    // Membership first: a non-member learns nothing, not even whether the product is on.
    const member = await this.organizations.require(principal, organizationId, { open: false });
    const exposition = await this.enabledExposition(organizationId);
    if (options.capability) this.organizations.authorize(member, options.capability);
    if (options.write) requireOpen(member.state);
    return { access: member, exposition };
  }

  /** The organization part, then the scope: reachable by this member, a declared exposure scope, not deleted. */
  async scope(
    principal: Principal,
    organizationId: string,
    scopeId: string,
    options: ExposureAccessOptions,
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
