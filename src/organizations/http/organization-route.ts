import {
  applyDecorators,
  Controller,
  createParamDecorator,
  UseGuards,
  type ExecutionContext,
} from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Principal } from '../../platform/auth/access.js';
import type { AuthenticatedRequest } from '../../platform/auth/auth.guard.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import type { CommandEnvelope } from '../../platform/event-sourcing/command-metadata.js';
import { envelopeFor } from '../../platform/http/request-envelope.js';
import type { Capability } from '../domain/roles.js';
import { OrganizationAccessGuard } from './organization-access.guard.js';

export const READ = { surface: 'session', permission: 'organization.read' } as const;
export const MANAGE = { surface: 'session', permission: 'organization.manage' } as const;

/**
 * Who sends a command, and its envelope (the caller is the actor, the request id the command id), with the
 * route's path parameters named in `P` (documented from the route's path by @Route).
 */
export type Caller<P extends string = never> = {
  readonly principal: Principal;
  readonly envelope: CommandEnvelope;
} & { readonly [K in P]: string };

export const CurrentCaller = createParamDecorator((_: unknown, context: ExecutionContext): Caller => {
  const request = context
    .switchToHttp()
    .getRequest<AuthenticatedRequest & { params?: Record<string, string> }>();
  if (!request.principal) throw new ServiceError('unauthenticated', 'this route needs a credential');
  return {
    ...request.params,
    principal: request.principal,
    envelope: envelopeFor(request.principal, String(request.id)),
  };
});

const API_OPERATION = 'swagger/apiOperation';

/**
 * Keeps the OpenAPI operation ids these routes had when one `OrganizationsController` served them all:
 * clients generated from the document name their methods after them.
 */
export function OperationIdsOf(controllerName: string): ClassDecorator {
  return (target) => {
    const prototype = (target as unknown as { prototype: Record<string, unknown> }).prototype;
    for (const key of Object.getOwnPropertyNames(prototype)) {
      const method = prototype[key];
      if (typeof method !== 'function') continue;
      const operation = Reflect.getMetadata(API_OPERATION, method) as Record<string, unknown> | undefined;
      if (!operation || operation.operationId) continue;
      Reflect.defineMetadata(
        API_OPERATION,
        { ...operation, operationId: `${controllerName}_${key}` },
        method,
      );
    }
  };
}

/** A read of `:orgId` for members whose role has `capability` (checked by the OrganizationAccessGuard). */
export const readWith = (capability: Capability) => ({ ...READ, capability }) as const;
/** A change in `:orgId` by members whose role has `capability` (checked by the OrganizationAccessGuard). */
export const manageWith = (capability: Capability) => ({ ...MANAGE, capability }) as const;

export interface OrganizationRoutesOptions {
  /** The OpenAPI tag the routes are documented under. */
  readonly tag?: 'organizations' | 'exposure';
  /**
   * The controller name the operation ids keep (`<name>_<method>`); `null`: the controller's own name, as
   * Nest's default.
   */
  readonly operationIdsOf?: string | null;
}

/**
 * A controller of organization routes (exposure scopes and single sign-on settings included): under
 * /api/v2/organizations, documented under its tag, each route's capability checked by the
 * OrganizationAccessGuard before the route runs.
 */
export function OrganizationRoutes({
  tag = 'organizations',
  operationIdsOf = 'OrganizationsController',
}: OrganizationRoutesOptions = {}): ClassDecorator {
  return applyDecorators(
    ApiTags(tag),
    Controller('api/v2/organizations'),
    UseGuards(OrganizationAccessGuard),
    ...(operationIdsOf ? [OperationIdsOf(operationIdsOf)] : []),
  );
}
