import {
  createParamDecorator,
  Inject,
  Injectable,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ACCESS_RULE, type AccessRule } from '../../platform/auth/access.js';
import type { AuthenticatedRequest } from '../../platform/auth/auth.guard.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import { OrganizationGate, type OrganizationAccess } from '../commands/organization-access.js';
import { CAPABILITIES, type Capability } from '../domain/roles.js';

type OrganizationRequest = AuthenticatedRequest & {
  params: Record<string, string | undefined>;
  organizationAccess?: OrganizationAccess;
};

function isCapability(value: string): value is Capability {
  return (CAPABILITIES as readonly string[]).includes(value);
}

/**
 * The one access check of organization routes, before the route loads anything: a route whose access rule
 * names a `capability` is reached only by a member of `:orgId` whose role has it (404 for anyone else, 403
 * `sso_required` for staff entering an SSO organization with a password session, 403 `forbidden` for a role
 * without the capability: OrganizationGate.require). Runs after the AuthGuard accepted the session.
 * A route without a capability (creating an organization, accepting an invitation) is the route's own check.
 */
@Injectable()
export class OrganizationAccessGuard implements CanActivate {
  constructor(
    @Inject(Reflector) private readonly reflector: Reflector,
    @Inject(OrganizationGate) private readonly gate: OrganizationGate,
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
    request.organizationAccess = await this.gate.require(request.principal, organizationId, {
      capability: rule.capability,
    });
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
