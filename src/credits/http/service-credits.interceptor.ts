import {
  Inject,
  Injectable,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { ModuleRef, Reflector } from '@nestjs/core';
import { from, mergeMap, type Observable } from 'rxjs';
import { ACCESS_RULE, type AccessRule, type Principal } from '../../platform/auth/access.js';
import type { AuthenticatedRequest } from '../../platform/auth/auth.guard.js';
import { CreditLedger } from '../commands/credit-ledger.js';

/**
 * Organization rule 8 for a session switched to an organization: what the member may see of its credits
 * (managers the shared balance, others their permitted envelope). Provided by the organizations context.
 */
export interface OrganizationServiceCredits {
  serviceCredits(principal: Principal): Promise<{ scope: string; available: number } | null>;
}

export const ORGANIZATION_SERVICE_CREDITS = Symbol('OrganizationServiceCredits');

/** What a request charged, set by the routes that charge (search, exports). */
export type ChargingRequest = AuthenticatedRequest & { creditsCharged?: number };

/**
 * "Eligible session JSON object responses may also carry a service_credits object. Streams and array
 * responses do not carry it." Ours: what this request charged and what the payer has available after it.
 */
@Injectable()
export class ServiceCreditsInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    @Inject(CreditLedger) private readonly ledger: CreditLedger,
    @Inject(ModuleRef) private readonly modules: ModuleRef,
  ) {}

  /** Looked up lazily: the organizations context depends on this one, so it cannot be injected here. */
  private organizationCredits(): OrganizationServiceCredits | null {
    try {
      return this.modules.get<OrganizationServiceCredits>(ORGANIZATION_SERVICE_CREDITS, { strict: false });
    } catch {
      return null;
    }
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const rule = this.reflector.getAllAndOverride<AccessRule | undefined>(ACCESS_RULE, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (rule?.surface !== 'session') return next.handle();
    const request = context.switchToHttp().getRequest<ChargingRequest>();
    return next.handle().pipe(mergeMap((body: unknown) => from(this.decorate(body, request))));
  }

  private async decorate(body: unknown, request: ChargingRequest): Promise<unknown> {
    if (!isPlainObject(body) || !request.principal) return body;
    const charged = request.creditsCharged ?? 0;
    if (request.principal.organizationId) {
      // Never the shared balance to a member who may only see an envelope (rule 8).
      const view = await (this.organizationCredits()?.serviceCredits(request.principal) ?? null)?.catch(
        () => null,
      );
      return {
        ...body,
        service_credits: { charged, available: view?.available ?? null, scope: view?.scope ?? null },
      };
    }
    const available = await this.ledger.available(`account:${request.principal.accountId}`).catch(() => null);
    return { ...body, service_credits: { charged, available } };
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.getPrototypeOf(value) === Object.prototype
  );
}
