/**
 * Pure policies of the organization workspace: who may create an organization (rule 6), what the trial hides
 * in WHOIS (rule 7), and the research context rules (rules 1, 2, 8).
 */
import { ServiceError } from '../../platform/errors/service-error.js';
import type { PlanId } from '../../accounts/domain/plans.js';
import type { OrganizationPlan } from './organization.js';
import { can, isStaff, type Role } from './roles.js';

export const CREATION_REFUSALS = [
  'owns_organization',
  'staff_in_organization',
  'organization_session',
  'personal_plan_active',
  'personal_payment_processing',
] as const;
export type CreationRefusal = (typeof CREATION_REFUSALS)[number];

export interface CreationFacts {
  readonly personalPlan: PlanId;
  /** A personal checkout or payment not settled yet. */
  readonly personalPaymentProcessing: boolean;
  readonly ownsOrganization: boolean;
  readonly staffInOrganization: boolean;
  /**
   * The request comes through a session switched to an organization (Authentication 1: it stays restricted to
   * that organization), so it cannot found another one; an external client creates from a personal session.
   */
  readonly organizationSession: boolean;
}

const REASONS: Readonly<Record<CreationRefusal, string>> = {
  personal_plan_active:
    'a personal plan, trial or subscription is active; end it before creating an organization',
  personal_payment_processing: 'a personal payment is processing; wait until it completes',
  owns_organization: 'this account already owns an organization',
  staff_in_organization: 'this account is staff in an organization',
  organization_session:
    'this session is switched to an organization and stays restricted to it: create an organization from a personal session',
};

/** Rule 6: null when creation is allowed, else the refusal. */
export function creationRefusal(facts: CreationFacts): { code: CreationRefusal; reason: string } | null {
  // The Free plan is no subscription: it is the only personal plan that is not "active" in the rule's sense.
  const order: Array<[boolean, CreationRefusal]> = [
    [facts.ownsOrganization, 'owns_organization'],
    [facts.staffInOrganization, 'staff_in_organization'],
    [facts.organizationSession, 'organization_session'],
    [facts.personalPlan !== 'free', 'personal_plan_active'],
    [facts.personalPaymentProcessing, 'personal_payment_processing'],
  ];
  const found = order.find(([applies]) => applies);
  return found ? { code: found[1], reason: REASONS[found[1]] } : null;
}

/** Rule 7: natural-person contacts the trial omits from WHOIS. */
export const TRIAL_OMITTED_WHOIS_FIELDS = [
  'registrant.name',
  'registrant.email',
  'admin.name',
  'admin.email',
  'tech.name',
  'tech.email',
] as const;

/** Teams and Business show every field; only the trial omits contacts. */
export function whoisContactsOmitted(plan: OrganizationPlan | null): boolean {
  return plan === 'trial';
}

/** Refused before any credit is reserved: a search, watch or export filtering or sorting on an omitted contact. */
export function refuseOmittedWhoisFields(fields: Iterable<string>): void {
  const omitted = new Set<string>(TRIAL_OMITTED_WHOIS_FIELDS);
  const used = [...new Set([...fields].filter((field) => omitted.has(field)))].sort();
  if (used.length > 0) {
    throw new ServiceError(
      'trial_field_omitted',
      `during the trial WHOIS natural-person contacts are omitted; ${used.join(', ')} cannot be searched, sorted or exported`,
      { fields: used },
    );
  }
}

/** Removes the omitted contacts from a WHOIS record (registrant organization, registrar, name servers stay). */
export function redactWhoisRecord(record: Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...record };
  for (const path of TRIAL_OMITTED_WHOIS_FIELDS) {
    const [parent, child] = path.split('.') as [string, string];
    const node = copy[parent];
    if (node && typeof node === 'object' && !Array.isArray(node)) {
      const rest = { ...(node as Record<string, unknown>) };
      delete rest[child];
      copy[parent] = rest;
    }
    delete copy[path];
  }
  return copy;
}

/** One envelope a member spends within (rule 8): a space's credit_limit or an external user's portion. */
export interface EnvelopeView {
  readonly key: string;
  readonly limit: number;
  readonly available: number;
}

export type CreditView =
  | { readonly scope: 'shared'; readonly available: number }
  | { readonly scope: 'envelope'; readonly available: number; readonly envelopes: readonly EnvelopeView[] };

/**
 * Rule 8: what a member sees of the organization's credits. Managers see the shared balance; every other member
 * sees only what they may spend: the tightest of their envelopes, never more than the shared balance allows.
 * The credits route and the `service_credits` of every session answer both show this, never more.
 */
export function creditView(
  role: Role,
  sharedAvailable: number,
  envelopes: readonly EnvelopeView[],
): CreditView {
  if (can(role, 'balance.shared')) return { scope: 'shared', available: sharedAvailable };
  return {
    scope: 'envelope',
    available: Math.min(sharedAvailable, ...envelopes.map((envelope) => envelope.available)),
    envelopes,
  };
}

/**
 * Rule 11: external clients keep only their explicitly published view. Who the staff are (the member list, the
 * owner, who opened a case or saved evidence) and internal content stay internal; counts cover only what the
 * viewer may see.
 */
export function seesStaff(viewer: Role): boolean {
  return isStaff(viewer);
}

/** Staff see all evidence; external clients only client-visible evidence (rule 4). */
export function seesEvidence(viewer: Role, visibility: unknown): boolean {
  return isStaff(viewer) || visibility === 'client';
}

/** An author's account id as the viewer may see it: staff see everyone; an external client only themselves. */
export function visibleAuthor(viewer: Role, viewerAccountId: string, author: unknown): unknown {
  return seesStaff(viewer) || author === viewerAccountId ? author : null;
}
