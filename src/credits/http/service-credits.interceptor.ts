import {
  Inject,
  Injectable,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { from, mergeMap, type Observable } from 'rxjs';
import { ACCESS_RULE, type AccessRule } from '../../platform/auth/access.js';
import type { AuthenticatedRequest } from '../../platform/auth/auth.guard.js';
import { CreditLedger } from '../commands/credit-ledger.js';

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
  ) {}

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
    const payer = request.principal.organizationId
      ? `organization:${request.principal.organizationId}`
      : `account:${request.principal.accountId}`;
    const available = await this.ledger.available(payer).catch(() => null);
    return { ...body, service_credits: { charged: request.creditsCharged ?? 0, available } };
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
