import type { OrganizationProduct } from '../domain/roles.js';

/**
 * Whether an organization is enabled for a product, asked by the organization access layer between membership
 * and the role check. The product's own module provides it (Exposition: the exposure module), so organizations
 * import no product.
 */
export interface OrganizationProducts {
  /** Throws the product's refusal (Exposition: 403 `exposure_not_enabled`) unless it is enabled. */
  requireEnabled(organizationId: string, product: OrganizationProduct): Promise<void>;
}

export const ORGANIZATION_PRODUCTS = Symbol('OrganizationProducts');
