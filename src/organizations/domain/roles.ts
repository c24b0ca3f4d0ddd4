/**
 * The contract's Roles table (Authentication 7), as capabilities. One place decides what a role may do; the
 * deciders and the access check ask `can(role, capability)`.
 *
 * | Role           | Access                                                                          |
 * |----------------|---------------------------------------------------------------------------------|
 * | Owner          | organization settings, billing, SSO, staff, all spaces                          |
 * | Administrator  | organization operations and all spaces; billing and ownership transfer: owner   |
 * | Analyst        | assigned spaces and their internal work                                         |
 * | External client| assigned spaces, explicitly shared content, searches within the permitted envelope |
 */
export const ROLES = ['owner', 'administrator', 'analyst', 'external_client'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

export const CAPABILITIES = [
  /** See the organization, its own membership and the spaces it can reach. */
  'organization.read',
  /** The member list (who the staff are): internal members only, never external clients (rule 11). */
  'members.read',
  /** Organization settings, the name included: owner only (Roles: "Owner: organization settings"). */
  'organization.settings',
  /** Plan, checkout: owner only. */
  'billing.manage',
  /** Single sign-on configuration and enforcement (the SSO seam): owner only. */
  'sso.manage',
  /** Offer the ownership to another member: owner only. */
  'ownership.transfer',
  /** Invite, remove, change roles, assign spaces, set portions. */
  'members.manage',
  /** Every space, without an assignment. */
  'spaces.all',
  /** Create, rename, archive, restore spaces; set credit limits. */
  'spaces.manage',
  /** Internal work in an accessible space: cases, internal evidence, review queue, reports. */
  'work.internal',
  /** The shared organization balance (others see their permitted envelope). */
  'balance.shared',
  // Exposure scopes (Authentication 6): staff only, and only in an Exposition organization (PRODUCT_OF).
  /** Create exposure scopes and change their settings: timezone, monitoring, the email preference. */
  'exposure.scopes.manage',
  /** Read a scope's inventory, history, control records and frozen reports. */
  'exposure.scopes.read',
  /** Record decisions on a scope's subjects and enrich its stored observations. */
  'exposure.decisions.record',
  /** Refresh a scope from stored observations (cadence, quota and billing apply). */
  'exposure.refresh.run',
  /** Freeze a scope's current view as a report. */
  'exposure.reports.create',
  /** The organization's audit log (who did what, when, on whose behalf): owners and administrators. */
  'organization.audit.read',
] as const;
export type Capability = (typeof CAPABILITIES)[number];

/** Exposure work in an assigned scope: every staff role; settings stay with managers (Authentication 6). */
const EXPOSURE_WORK: readonly Capability[] = [
  'exposure.scopes.read',
  'exposure.decisions.record',
  'exposure.refresh.run',
  'exposure.reports.create',
];

/** The products an organization is enabled for by operators; Exposition opens the exposure routes. */
export type OrganizationProduct = 'exposition';

/** A capability that exists only in an organization enabled for a product (else 403 before the role check). */
const PRODUCT_OF: Readonly<Partial<Record<Capability, OrganizationProduct>>> = {
  'exposure.scopes.manage': 'exposition',
  'exposure.scopes.read': 'exposition',
  'exposure.decisions.record': 'exposition',
  'exposure.refresh.run': 'exposition',
  'exposure.reports.create': 'exposition',
};

export function productOf(capability: Capability): OrganizationProduct | null {
  return PRODUCT_OF[capability] ?? null;
}

const GRANTS: Readonly<Record<Role, ReadonlySet<Capability>>> = {
  owner: new Set(CAPABILITIES),
  // Organization settings (the name included) are the owner's; administrators run operations.
  administrator: new Set<Capability>([
    'organization.read',
    'members.read',
    'members.manage',
    'spaces.all',
    'spaces.manage',
    'work.internal',
    'balance.shared',
    ...EXPOSURE_WORK,
    'exposure.scopes.manage',
    'organization.audit.read',
  ]),
  analyst: new Set<Capability>(['organization.read', 'members.read', 'work.internal', ...EXPOSURE_WORK]),
  // External clients cannot use exposure routes at all (Authentication 6).
  external_client: new Set<Capability>(['organization.read']),
};

export function can(role: Role, capability: Capability): boolean {
  return GRANTS[role].has(capability);
}

/** Staff are the internal roles; external clients are not staff (rule 2, rule 6). */
export function isStaff(role: Role): boolean {
  return role !== 'external_client';
}

/** Managers see the shared balance (rule 8). */
export function isManager(role: Role): boolean {
  return role === 'owner' || role === 'administrator';
}
