import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { ServiceError } from '../errors/service-error.js';
import type { Principal } from './access.js';
import type { AuthenticatedRequest } from './auth.guard.js';

/** The caller the AuthGuard accepted; only on routes whose surface takes a credential. */
export const CurrentPrincipal = createParamDecorator((_: unknown, context: ExecutionContext): Principal => {
  const principal = context.switchToHttp().getRequest<AuthenticatedRequest>().principal;
  if (!principal) throw new ServiceError('unauthenticated', 'this route needs a credential');
  return principal;
});
