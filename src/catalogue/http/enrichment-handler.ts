import type { AccountDirectory } from '../../accounts/queries/account-directory.js';
import { hasCpeEntitlement } from '../../accounts/domain/entitlements.js';
import type { Principal } from '../../platform/auth/access.js';
import type { Clock } from '../../platform/clock/clock.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import {
  enforce,
  type ConcurrencyRule,
  type RateLimiter,
  type RateLimitRule,
} from '../../platform/rate-limit/rate-limiter.port.js';
import type { VulnerabilityRefs } from '../../search/vulnerability-ref.js';
import type { ObservationIndex } from '../../search/observation-index/observation-index.port.js';
import { BadgeEvidenceReader } from '../badges/badge-evidence.js';
import { badgesFor, validateBadgeItems, type Badge, type BadgeItem } from '../badges/badges.js';
import type { CatalogueService } from '../catalogue-service.js';
import { tryParseCpe } from '../domain/cpe.js';
import type { CatalogueMatcher, Evaluation } from '../domain/matching.js';
import type { BadgeEnrichmentBody, VulnerabilityEnrichmentBody } from './enrichment.dtos.js';

/** "60 requests per minute per account across personal and organization enrichment" (contract, Limits). */
export const VULNERABILITY_ENRICHMENT_RATE: RateLimitRule = {
  name: 'enrich-vulnerabilities',
  limit: 60,
  windowSeconds: 60,
};
/** A badge batch answers within this (a lookup still running then reads `unavailable`). */
export const BADGE_BATCH_DEADLINE_MS = 10_000;
/**
 * "At most two concurrent batches per account across surfaces" (contract, Limits). A slot is leased for the batch
 * deadline and renewed while its batch runs, so the soonest lease end of the holders, what a refusal's
 * Retry-After says, is when a slot is expected to free.
 */
export const BADGE_BATCH_CONCURRENCY: ConcurrencyRule = {
  name: 'enrich-badges',
  max: 2,
  leaseSeconds: BADGE_BATCH_DEADLINE_MS / 1000,
};
/** A slot's lease is renewed every third of the deadline... */
const BADGE_LEASE_RENEWALS_PER_DEADLINE = 3;
/**
 * ...for at most this many batch deadlines: a batch still running then (a lookup that ignores its abort signal)
 * lets its lease lapse, so it cannot hold one of the account's two slots until a restart.
 */
export const BADGE_SLOT_HELD_AT_MOST_DEADLINES = 3;
const BADGE_PARALLELISM = 4;

export const ENRICHMENT_NOTICE =
  'Catalogue association of observed software versions with published advisories. No asset was contacted; a ' +
  'finding does not confirm configuration, exploitability, ownership or current state, and a no_match is not a ' +
  'security assessment. KEV shows known exploitation of an advisory, not of this asset.';

/** The enrichment routes of both surfaces (personal API and browser session), once. */
export class EnrichmentHandler {
  private readonly evidence: BadgeEvidenceReader;

  constructor(
    private readonly catalogue: CatalogueService,
    observations: ObservationIndex,
    private readonly refs: VulnerabilityRefs,
    private readonly accounts: AccountDirectory,
    private readonly limiter: RateLimiter,
    private readonly clock: Clock,
    /** BADGE_BATCH_DEADLINE_MS; the slot's lease and its renewals follow it. */
    private readonly badgeDeadlineMs: number = BADGE_BATCH_DEADLINE_MS,
  ) {
    this.evidence = new BadgeEvidenceReader(observations, catalogue.store);
  }

  async vulnerabilities(principal: Principal, body: VulnerabilityEnrichmentBody) {
    enforce(
      await this.limiter.consume(VULNERABILITY_ENRICHMENT_RATE, principal.accountId),
      'vulnerability enrichment is limited to 60 requests per minute per account',
    );
    const request = parseVulnerabilityRequest(body);
    if (request.kind === 'cpes') {
      const account = await this.accounts.account(principal.accountId);
      if (!account) throw new ServiceError('unauthenticated', 'the credential belongs to no account');
      if (!hasCpeEntitlement(this.accounts.plan(account)))
        throw new ServiceError('forbidden', 'raw CPE input needs the CPE field entitlement (Enterprise)', {
          entitlement: 'cpe',
        });
    }
    // The reference is opened before any lookup: an invalid one is 422 invalid_reference, never retried.
    const identities =
      request.kind === 'reference' ? this.refs.open(request.reference, this.clock.now()) : null;
    const matcher = await this.lookup();
    let evaluations: Evaluation[];
    if (request.kind === 'reference' && identities) {
      evaluations = identities.map((identity, i) =>
        matcher.evaluateObservation(
          identity,
          identities.filter((_, j) => j !== i).flatMap((other) => other.cpe),
        ),
      );
    } else if (request.kind === 'cpes') evaluations = matcher.evaluateCpes(request.cpes);
    else evaluations = [];
    return {
      evaluated_at: matcher.version.evaluated_at,
      kev_source: matcher.version.kev_source,
      catalogue_version: matcher.version.version,
      cpes: request.kind === 'cpes' ? request.cpes : null,
      evaluations,
      notice: ENRICHMENT_NOTICE,
    };
  }

  async badges(principal: Principal, body: BadgeEnrichmentBody) {
    const items = validateBadgeItems(body.items);
    const attempt = await this.limiter.acquireSlot(
      { ...BADGE_BATCH_CONCURRENCY, leaseSeconds: this.badgeDeadlineMs / 1000 },
      principal.accountId,
    );
    if (!attempt.acquired)
      throw new ServiceError(
        'background_busy',
        'two badge batches of this account are already running; retry when one finishes',
        { max_concurrent: BADGE_BATCH_CONCURRENCY.max, retry_after_seconds: attempt.retryAfterSeconds },
        attempt.retryAfterSeconds,
      );
    // The lease lapses under a batch that outlives its deadline a few times over (a lookup ignoring it); until then
    // the slot stays taken, so Retry-After never promises a slot that is not free.
    let renewals = 0;
    const renewal = setInterval(() => {
      if (++renewals > BADGE_LEASE_RENEWALS_PER_DEADLINE * BADGE_SLOT_HELD_AT_MOST_DEADLINES) {
        clearInterval(renewal);
        return;
      }
      void attempt.renew().catch(() => undefined);
    }, this.badgeDeadlineMs / BADGE_LEASE_RENEWALS_PER_DEADLINE);
    renewal.unref();
    try {
      const catalogue = await this.lookup();
      const now = this.clock.now();
      const signal = AbortSignal.timeout(this.badgeDeadlineMs);
      const results = await mapLimited(items, BADGE_PARALLELISM, async (item) =>
        this.itemBadges(item, now, signal),
      );
      return {
        evaluated_at: catalogue.version.evaluated_at,
        kev_source: catalogue.version.kev_source,
        catalogue_version: catalogue.version.version,
        items: results,
      };
    } finally {
      clearInterval(renewal);
      await attempt.release();
    }
  }

  private async itemBadges(item: BadgeItem, now: Date, signal: AbortSignal) {
    try {
      const evidence = await this.evidence.gather(item, signal);
      const badges: Badge[] = badgesFor(item, evidence, now);
      return { key: item.key, type: item.type, value: item.value, status: 'ok' as const, badges };
    } catch {
      // One item's failed lookup is shown as such; it never reads as "no badges".
      return {
        key: item.key,
        type: item.type,
        value: item.value,
        status: 'unavailable' as const,
        badges: [],
      };
    }
  }

  /** The catalogue, or 503 lookup_unavailable when it cannot be read (retryable, unlike invalid_reference). */
  private async lookup(): Promise<CatalogueMatcher> {
    try {
      return await this.catalogue.matcher();
    } catch {
      throw new ServiceError(
        'lookup_unavailable',
        'the vulnerability catalogue cannot be read right now; retry later',
        {
          retryable: true,
        },
      );
    }
  }
}

type VulnerabilityRequest =
  | { readonly kind: 'reference'; readonly reference: string }
  | { readonly kind: 'cpes'; readonly cpes: string[] };

/**
 * "reference or cpes (1 to 8 CPE strings), never both" (contract, Vulnerability enrichment). The body's shape
 * (a non-empty reference, 1 to 8 cpes, no other field) is checked by its DTO.
 */
export function parseVulnerabilityRequest(body: VulnerabilityEnrichmentBody): VulnerabilityRequest {
  const fail = (field: string, problem: string): never => {
    throw new ServiceError('invalid_input', problem, { fields: [{ field, problems: [problem] }] });
  };
  const { reference, cpes } = body;
  if (reference !== undefined && cpes !== undefined)
    return fail('reference', 'send reference or cpes, never both');
  if (reference !== undefined) return { kind: 'reference', reference };
  if (cpes === undefined)
    return fail('reference', 'send reference (a vulnerability_ref) or cpes (1 to 8 CPE names)');
  cpes.forEach((cpe, i) => {
    if (typeof cpe !== 'string' || !tryParseCpe(cpe))
      fail(
        `cpes[${i}]`,
        `cpes[${i}] is not a CPE 2.3 formatted string (cpe:2.3:part:vendor:product:version:…)`,
      );
  });
  return { kind: 'cpes', cpes: cpes as string[] };
}

async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const runners = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  });
  await Promise.all(runners);
  return results;
}
