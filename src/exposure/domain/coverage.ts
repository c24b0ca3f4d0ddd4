/**
 * Service coverage, displayed result and processing (contract: Service coverage, States and transitions).
 * Pure: a stored host observation and the loaded catalogue in, a recorded evaluation out; and the read-time
 * rules that turn a recorded evaluation plus the scope's latest refresh into what the inventory shows.
 *
 * Nothing here contacts an asset: an evaluation associates observed software identities with catalogue
 * conditions. A missing observation is never evidence that an asset is secure or absent, so every state that
 * is not a complete catalogue evaluation reads `indeterminate`, never `no_match`.
 */
import { createHash } from 'node:crypto';
import { tryParseCpe } from '../../catalogue/domain/cpe.js';
import type { CatalogueMatcher, ObservedProduct } from '../../catalogue/domain/matching.js';

export const COVERAGE_STATES = [
  'evaluated',
  'no_identifiers',
  'imprecise_identifiers',
  'identifier_limit',
  'not_evaluated',
  'catalogue_unavailable',
  'catalogue_incomplete',
  'processing_error',
  'shared_edge',
] as const;
export type CoverageState = (typeof COVERAGE_STATES)[number];

export const RESULT_STATES = ['kev', 'matched', 'no_match', 'indeterminate'] as const;
export type ResultState = (typeof RESULT_STATES)[number];

export const PROCESSING_STATES = [
  'idle',
  'paused',
  'unknown',
  'queued',
  'retry_scheduled',
  'running',
  'interrupted',
  'failed',
  'cancelled',
] as const;
export type ProcessingState = (typeof PROCESSING_STATES)[number];

/** The same bound as vulnerability enrichment: 1 to 8 CPE names per evaluation (contract, Limits). */
export const MAX_SERVICE_IDENTIFIERS = 8;
/** Findings kept per service in the inventory (the enrich route gives them all). */
export const MAX_RECORDED_FINDINGS = 25;

export interface RecordedFinding {
  readonly cve: string;
  /** null: no KEV catalogue loaded (unknown, not false). */
  readonly kev: boolean | null;
  readonly conditional: boolean;
  readonly severity: string | null;
}

/** One evaluation of a service's stored observation, as a refresh or an asset enrichment records it. */
export interface ServiceEvaluation {
  readonly coverage: CoverageState;
  readonly reasons: readonly string[];
  /** Whether a refresh can evaluate this service at all (false: shared edge, no or too many identifiers). */
  readonly eligible: boolean;
  readonly result: ResultState;
  readonly findings: readonly RecordedFinding[];
  readonly findingsTotal: number;
  /** {vendor, product, version} entries associated with the findings (KEV subjects carry them). */
  readonly observedProducts: readonly ObservedProduct[];
  readonly catalogueVersion: number | null;
}

/** What the catalogue could offer to a refresh: the loaded matcher, or why there was none. */
export type CatalogueAvailability =
  | { readonly available: true; readonly matcher: CatalogueMatcher }
  | { readonly available: false; readonly reason: string };

/** A host observation (hosts dataset) as the inventory keeps it: one service. */
export interface ServiceObservation {
  readonly observationId: string;
  readonly host: string;
  readonly port: number | null;
  readonly transport: string | null;
  readonly hostnames: readonly string[];
  readonly product: string | null;
  readonly vendor: string | null;
  readonly version: string | null;
  readonly firstSeen: string;
  readonly lastSeen: string;
  readonly sharedEdge: boolean;
}

/** Subject ids are opaque and URL-safe: a hash of what the subject is about. */
export function serviceSubjectId(observationId: string): string {
  return `svc-${hash(observationId)}`;
}
export function domainExpirySubjectId(domain: string): string {
  return `dom-${hash(domain)}`;
}

function hash(value: string): string {
  return createHash('sha256').update(value).digest('hex').slice(0, 24);
}

const text = (value: unknown): string | null =>
  typeof value === 'string' && value.length > 0 ? value : null;

export function serviceObservationOf(record: Readonly<Record<string, unknown>>): ServiceObservation {
  return {
    observationId: String(record.id),
    host: String(record.ip ?? ''),
    port: typeof record.port === 'number' ? record.port : null,
    transport: text(record.transport),
    hostnames: Array.isArray(record.hostnames)
      ? record.hostnames.filter((name): name is string => typeof name === 'string').slice(0, 10)
      : [],
    product: text(record.product),
    vendor: text(record.vendor),
    version: text(record.version),
    firstSeen: String(record.first_seen),
    lastSeen: String(record.last_seen),
    sharedEdge: record.shared_edge === true,
  };
}

function outcome(
  coverage: CoverageState,
  reasons: string[],
  eligible: boolean,
  catalogueVersion: number | null,
): ServiceEvaluation {
  return {
    coverage,
    reasons,
    eligible,
    result: 'indeterminate',
    findings: [],
    findingsTotal: 0,
    observedProducts: [],
    catalogueVersion,
  };
}

/**
 * A service the refresh observed but did not evaluate: its evaluation budget was spent (`evaluation_limit`).
 * No usable evaluation is recorded, so it never reads as a negative.
 */
export function unevaluatedService(reason: string, catalogueVersion: number | null): ServiceEvaluation {
  return outcome('not_evaluated', [reason], true, catalogueVersion);
}

/** Whether evaluating this observation consults the catalogue (it has parseable identifiers within the bound). */
export function needsCatalogue(record: Readonly<Record<string, unknown>>): boolean {
  if (record.shared_edge === true || !Array.isArray(record.cpe)) return false;
  const cpes = record.cpe.filter((cpe): cpe is string => typeof cpe === 'string' && cpe.length > 0);
  return (
    cpes.length > 0 && cpes.length <= MAX_SERVICE_IDENTIFIERS && cpes.some((cpe) => tryParseCpe(cpe) !== null)
  );
}

/** The coverage and result of one stored host observation against the catalogue. */
export function evaluateService(
  record: Readonly<Record<string, unknown>>,
  catalogue: CatalogueAvailability,
): ServiceEvaluation {
  const version = catalogue.available ? catalogue.matcher.version.version : null;
  if (record.shared_edge === true) return outcome('shared_edge', ['shared_edge'], false, version);
  const cpes = Array.isArray(record.cpe)
    ? record.cpe.filter((cpe): cpe is string => typeof cpe === 'string' && cpe.length > 0)
    : [];
  if (cpes.length === 0) return outcome('no_identifiers', ['no_cpe'], false, version);
  if (cpes.length > MAX_SERVICE_IDENTIFIERS) {
    return outcome('identifier_limit', ['too_many_identifiers'], false, version);
  }
  if (cpes.every((cpe) => tryParseCpe(cpe) === null)) {
    return outcome('imprecise_identifiers', ['invalid_cpe'], true, version);
  }
  if (!catalogue.available) return outcome('catalogue_unavailable', [catalogue.reason], true, null);
  const matcher = catalogue.matcher;
  if (matcher.advisoryCount === 0)
    return outcome('catalogue_unavailable', ['catalogue_empty'], true, version);
  let evaluation;
  try {
    evaluation = matcher.evaluateObservation({
      vendor: text(record.vendor),
      product: text(record.product),
      version: text(record.version),
      cpe: cpes,
    });
  } catch {
    return outcome('processing_error', ['evaluation_failed'], true, version);
  }
  const findings: RecordedFinding[] = evaluation.findings.map((finding) => ({
    cve: finding.id,
    kev: finding.kev === null ? null : finding.kev !== false,
    conditional: finding.additional_conditions.length > 0,
    severity: finding.severity,
  }));
  const plain = findings.filter((finding) => !finding.conditional);
  const kev = plain.some((finding) => finding.kev === true);
  const products: ObservedProduct[] = [];
  for (const finding of evaluation.findings) {
    if (finding.additional_conditions.length > 0) continue;
    for (const product of finding.observed_products) {
      if (
        !products.some(
          (p) =>
            p.vendor === product.vendor && p.product === product.product && p.version === product.version,
        )
      ) {
        products.push(product);
      }
    }
  }
  let coverage: CoverageState = 'evaluated';
  const reasons: string[] = [evaluation.reason];
  if (!matcher.kevLoaded) {
    coverage = 'catalogue_incomplete';
    reasons.push('kev_catalogue_missing');
  } else if (!evaluation.complete && plain.length === 0) {
    coverage = 'imprecise_identifiers';
  }
  let result: ResultState;
  if (plain.length > 0) result = kev ? 'kev' : 'matched';
  // Only a complete no_match over a complete catalogue is a negative; anything else stays indeterminate.
  else if (evaluation.status === 'no_match' && evaluation.complete && coverage === 'evaluated')
    result = 'no_match';
  else result = 'indeterminate';
  return {
    coverage,
    reasons,
    eligible: true,
    result,
    findings: findings.slice(0, MAX_RECORDED_FINDINGS),
    findingsTotal: findings.length,
    observedProducts: products,
    catalogueVersion: version,
  };
}

export function isPositive(result: ResultState | null | undefined): boolean {
  return result === 'kev' || result === 'matched';
}

/** Inventory order: KEV first, then matches, indeterminate, negatives; inside, by asset. */
export function resultRank(result: ResultState | null): number {
  switch (result) {
    case 'kev':
      return 0;
    case 'matched':
      return 1;
    case 'indeterminate':
    case null:
      return 2;
    case 'no_match':
      return 3;
  }
}

// ---- Read-time rules ---------------------------------------------------------------------------------------

/** The scope's latest refresh task as the runs read model holds it. */
export interface LatestRefresh {
  readonly runId: string;
  readonly status: 'queued' | 'running' | 'retry_scheduled' | 'completed' | 'failed' | 'cancelled';
  /** What the task evaluates: the scope declaration it was requested for (see declarationKey). */
  readonly input: string;
  readonly attempt: number;
  readonly requestedAt: string;
  readonly availableAt: string | null;
  readonly startedAt: string | null;
  readonly leaseUntil: string | null;
  readonly finishedAt: string | null;
  readonly lastAttemptAt: string | null;
  readonly error: string | null;
}

/** A service's recorded evaluation as the inventory read model holds it. */
export interface RecordedService {
  readonly result: ResultState;
  readonly resultAt: string;
  readonly runId: string | null;
  /** The evaluation input's scope declaration (null: a legacy evaluation that no task can be matched to). */
  readonly input: string | null;
  readonly evaluatedAt: string;
}

export interface DisplayedResult {
  readonly result_state: ResultState;
  readonly result_at: string;
  readonly retained_result: boolean;
  readonly reasons: readonly string[];
}

/**
 * "When a refresh fails, a previous negative becomes indeterminate. Positive evidence may remain visible with
 * retained_result true" and keeps its own result_at, distinct from the failed attempt.
 */
export function displayedResult(service: RecordedService, latest: LatestRefresh | null): DisplayedResult {
  const failedSince =
    latest !== null &&
    latest.runId !== service.runId &&
    (latest.status === 'failed' || latest.status === 'retry_scheduled') &&
    latest.lastAttemptAt !== null &&
    latest.lastAttemptAt > service.evaluatedAt;
  if (!failedSince) {
    return { result_state: service.result, result_at: service.resultAt, retained_result: false, reasons: [] };
  }
  if (isPositive(service.result)) {
    return {
      result_state: service.result,
      result_at: service.resultAt,
      retained_result: true,
      reasons: ['refresh_failed'],
    };
  }
  return {
    result_state: 'indeterminate',
    result_at: latest.lastAttemptAt!,
    retained_result: false,
    reasons: ['refresh_failed'],
  };
}

export interface ProcessingView {
  readonly state: ProcessingState;
  readonly job_id?: string;
  readonly attempt?: number;
  readonly queued_at?: string;
  /** Eligibility time of a queued or retried task, not a completion deadline. */
  readonly available_at?: string | null;
  readonly started_at?: string | null;
  readonly finished_at?: string | null;
  readonly error?: string | null;
}

/**
 * The processing state of a service. Queue and job fields come only from an actual task whose input matches
 * the service's current evaluation input; a service no task can be associated with is `unknown`. Reading
 * creates no job: an expired lease reads `interrupted` until a worker takes the task over.
 */
export function processingOf(
  service: RecordedService | null,
  latest: LatestRefresh | null,
  scope: { readonly archived: boolean },
  now: Date,
): ProcessingView {
  if (scope.archived) return { state: 'paused' };
  if (latest === null) return { state: service?.runId ? 'unknown' : 'idle' };
  if (service !== null && service.input !== latest.input) return { state: 'unknown' };
  const job = { job_id: latest.runId, attempt: latest.attempt };
  switch (latest.status) {
    case 'queued':
      return { state: 'queued', ...job, queued_at: latest.requestedAt, available_at: latest.availableAt };
    case 'retry_scheduled':
      return { state: 'retry_scheduled', ...job, available_at: latest.availableAt, error: latest.error };
    case 'running':
      return latest.leaseUntil !== null && latest.leaseUntil < now.toISOString()
        ? { state: 'interrupted', ...job, started_at: latest.startedAt }
        : { state: 'running', ...job, started_at: latest.startedAt };
    case 'failed':
      return { state: 'failed', ...job, finished_at: latest.finishedAt, error: latest.error };
    case 'cancelled':
      return { state: 'cancelled', ...job, finished_at: latest.finishedAt };
    case 'completed':
      return { state: 'idle' };
  }
}

/** The evaluation input a task covers: the scope's declaration (domain and addresses) it was requested for. */
export function declarationKey(domain: string, addresses: readonly string[]): string {
  return hash(`${domain}|${[...addresses].sort().join(',')}`);
}
