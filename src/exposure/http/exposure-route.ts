import { OrganizationRoutes, type Caller } from '../../organizations/http/organization-route.js';

export {
  CurrentCaller,
  manageWith,
  readWith,
  type Caller,
} from '../../organizations/http/organization-route.js';

/** Where a scope's routes live, under /api/v2/organizations. */
export const SCOPE = ':orgId/clients/:clientId/exposure';

/** The caller of a scope route, with the organization and the scope (and any further `P`) from its path. */
export type ScopeCaller<P extends string = never> = Caller<'orgId' | 'clientId' | P>;

/**
 * A controller of exposure routes: organization routes documented under `exposure`, each route's capability
 * (Exposition first) checked by the organization access layer before it runs; Nest's own operation ids.
 */
export function ExposureRoutes(): ClassDecorator {
  return OrganizationRoutes({ tag: 'exposure', operationIdsOf: null });
}
