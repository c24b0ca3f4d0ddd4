import type { Principal } from '../platform/auth/access.js';
import type { CreditEnvelope } from '../credits/domain/ledger.js';

/**
 * Where research runs and who pays (rules 1, 2, 7, 8): the payer, the space (scope) and the envelopes a
 * reservation must also fit, and whether the trial omits WHOIS contacts. Resolved once per request by the
 * organizations context; an account outside any organization researches for itself.
 */
export interface ResearchContext {
  readonly payer: string;
  /** The selected space, recorded on every event as the scope. */
  readonly scope: string | null;
  readonly envelopes: readonly CreditEnvelope[];
  readonly whoisContactsOmitted: boolean;
  readonly organization: { readonly organizationId: string; readonly spaceId: string } | null;
}

export interface ResearchContexts {
  /** Refuses (personal_research_unavailable, space_required, organization_restricted…) rather than switch payer. */
  resolve(principal: Principal): Promise<ResearchContext>;
  /** Records a completed organization search so its records can be saved as evidence; answers its id. */
  recordCompletedSearch(
    principal: Principal,
    context: ResearchContext,
    search: {
      readonly rawQuery: string;
      readonly timeFrame: string;
      readonly creditsCharged: number;
      readonly records: ReadonlyArray<{ dataset: string; id: string; raw: Record<string, unknown> }>;
    },
  ): Promise<string | null>;
}

export const RESEARCH_CONTEXTS = Symbol('ResearchContexts');

/** An account's own research: the personal payer, no scope, no envelope. */
export function personalResearch(principal: Principal): ResearchContext {
  return {
    payer: `account:${principal.accountId}`,
    scope: null,
    envelopes: [],
    whoisContactsOmitted: false,
    organization: null,
  };
}
