import {
  createParamDecorator,
  Inject,
  Injectable,
  Optional,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ACCESS_RULE, type AccessRule } from '../../platform/auth/access.js';
import type { AuthenticatedRequest } from '../../platform/auth/auth.guard.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import { OrganizationGate, type OrganizationAccess } from '../commands/organization-access.js';
import { ORGANIZATION_PRODUCTS, type OrganizationProducts } from '../commands/organization-products.js';
import { CAPABILITIES, productOf, type Capability } from '../domain/roles.js';

type OrganizationRequest = AuthenticatedRequest & {
  params: Record<string, string | undefined>;
  organizationAccess?: OrganizationAccess;
};

function isCapability(value: string): value is Capability {
  return (CAPABILITIES as readonly string[]).includes(value);
}

/**
 * The one access check of organization routes (exposure scopes and single sign-on included), before the route
 * loads anything: a route whose access rule names a `capability` is reached only by a member of `:orgId` whose
 * role has it. In order: not a member 404, staff entering an SSO organization with a password session 403
 * `sso_required` (OrganizationGate.require); a capability of a product the organization is not enabled for
 * 403 (Exposition: `exposure_not_enabled`, the same answer for every member); a role without the capability
 * 403 `forbidden` (the Roles table, roles.ts). Runs after the AuthGuard accepted the session.
 * A route without a capability (creating an organization, accepting an invitation) is the route's own check.
 */
@Injectable()
export class OrganizationAccessGuard implements CanActivate {
  constructor(
    @Inject(Reflector) private readonly reflector: Reflector,
    @Inject(OrganizationGate) private readonly gate: OrganizationGate,
    // Provided by the module of a product's routes (the exposure module); organizations import no product.
    @Optional() @Inject(ORGANIZATION_PRODUCTS) private readonly products?: OrganizationProducts,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const rule = this.reflector.getAllAndOverride<AccessRule | undefined>(ACCESS_RULE, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!rule?.capability) return true;
    if (!isCapability(rule.capability)) throw new Error(`unknown organization capability ${rule.capability}`);
    const request = context.switchToHttp().getRequest<OrganizationRequest>();
    const organizationId = request.params.orgId;
    if (!request.principal || organizationId === undefined) {
      throw new Error('an organization capability needs a session route with :orgId');
    }
    const access = await this.gate.require(request.principal, organizationId);
    const product = productOf(rule.capability);
    if (product) {
      if (!this.products) throw new Error(`no product check for ${product} where ${rule.capability} is used`);
      await this.products.requireEnabled(organizationId, product);
    }
    this.gate.authorize(access, rule.capability);
    request.organizationAccess = access;
    return true;
  }
}

/** The caller's access to `:orgId`, as the OrganizationAccessGuard admitted it (before the route ran). */
export const CurrentOrganization = createParamDecorator(
  (_: unknown, context: ExecutionContext): OrganizationAccess => {
    const access = context.switchToHttp().getRequest<OrganizationRequest>().organizationAccess;
    if (!access) throw new ServiceError('not_found', 'no such organization');
    return access;
  },
);
