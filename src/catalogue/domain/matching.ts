/**
 * NVD applicability, as NVD applies it: a CVE applies to an observation when one of its configurations is
 * satisfied by the observed CPE names and a *vulnerable* criterion matches the software being evaluated.
 *
 * - A criterion matches an observed CPE attribute by attribute (cpe.ts: ANY, NA, wildcards); its version is an
 *   exact version or the range versionStart/End Including/Excluding (version.ts orders real versions).
 * - A node combines its criteria with OR or AND; `negate` inverts it. A configuration combines its nodes with
 *   AND or OR (one node: that node).
 * - `vulnerable: false` criteria describe a platform the software must run on (a hardware model, an operating
 *   system). When every node is satisfied except platform nodes the observation does not show, the CVE is a
 *   conditional finding carrying `additional_conditions`, never a plain match.
 * - Three-valued logic: an observation that does not tell a compared attribute (version `*`) makes a criterion
 *   `unknown`, which never becomes a match: the evaluation is then incomplete.
 * - When the version is known and only another attribute of the software is missing (update, edition,
 *   sw_edition, target_sw, …), the CVE at stake is listed as a finding whose `additional_conditions` name the
 *   criteria it needs and the attributes the observation does not tell; the reason names the attribute
 *   (`sw_edition_unknown`, …), never `version_unknown`.
 *
 * Pure: no I/O. The matcher indexes advisories by the vendor:product of their criteria.
 */
import type { Advisory, CatalogueVersion, KevEntry } from './advisory.js';
import {
  CompileContext,
  compileAdvisory,
  type CompiledAdvisory,
  type CompiledConfiguration,
  type CompiledCriterion,
  evaluateConfiguration,
  inCpeOrder,
  NONE,
  type Outcome,
} from './applicability.js';
import { type Cpe, type CpeAttribute, literal, parseCpe, tryParseCpe } from './cpe.js';
import {
  criterionOn,
  evaluateConfigurationOn,
  type ObservedName,
  observe,
  versionOn,
} from './compiled-evaluation.js';
import type {
  AttributeUnknownReason,
  Evaluation,
  EvaluationReason,
  EvaluationStatus,
  Finding,
  ObservedProduct,
  SoftwareObservation,
} from './match-results.js';

export {
  type AdditionalCondition,
  type AttributeUnknownReason,
  type Evaluation,
  type EvaluationReason,
  type EvaluationStatus,
  type Finding,
  type ObservedProduct,
  type SoftwareObservation,
} from './match-results.js';
export { criterionMatches } from './applicability.js';

/**
 * The matching semantics the association index (`cve:`/`kev:`) was built with. Bump it whenever a change here (or
 * in applicability.ts / cpe.ts / version.ts) can change which CVEs an observation is associated with, or how: the service stores the
 * version beside the index and rebuilds an index built by another version at start.
 * 1: before issue 13 (never stored: an index without a version was built by it); 2: conditional associations for
 * CVEs undecided on a CPE attribute the observation lacks (update, edition, sw_edition, target_sw, ...).
 */
export const MATCHER_VERSION = 2;

function identityOf(cpe: Cpe): ObservedProduct {
  return {
    vendor: literal(cpe.values.vendor),
    product: literal(cpe.values.product),
    version: literal(cpe.values.version),
  };
}

interface TargetResult {
  readonly findings: ReadonlyMap<string, { outcome: Outcome; advisory: LoadedAdvisory }>;
  /** Undecided advisories and the attributes each hangs on. */
  readonly undetermined: ReadonlyMap<string, readonly CpeAttribute[]>;
  readonly candidates: number;
}

export interface Association {
  readonly cve_id: string;
  readonly kev: boolean | null;
  readonly conditional: boolean;
}

/** Target results a matcher remembers by default. */
const DEFAULT_MEMO_ENTRIES = 10_000;

/** A compiled advisory as the matcher keeps it: with its KEV entry and its place in the order of findings. */
interface LoadedAdvisory extends CompiledAdvisory {
  /** kevOf(advisory.id). */
  readonly kev: KevEntry | false | null;
  /** Its rank in byKevThenSeverity order among the catalogue's advisories, given once the catalogue is loaded. */
  order: number;
}

/** A vulnerable criterion of a non-negated node naming a vendor:product: what can bring its advisory into play. */
interface ProductCriterion {
  readonly criterion: CompiledCriterion;
  readonly advisory: LoadedAdvisory;
  readonly configuration: CompiledConfiguration;
}

/**
 * One product's criteria (in advisory, then configuration order) and, for a target whose version is a plain
 * literal, which of them can hold it: exact versions by versionKey, ranges by their tokenized bounds, the rest
 * (any version, NA, patterns, damaged bounds) always checked.
 */
class ProductCriteria {
  readonly entries: ProductCriterion[] = [];
  private readonly byVersion = new Map<number, number[]>();
  private readonly ranges: number[] = [];
  private readonly others: number[] = [];

  add(entry: ProductCriterion): void {
    const index = this.entries.push(entry) - 1;
    const { criterion } = entry;
    const version = criterion.cpe.values.version;
    const plain = typeof version !== 'symbol' && !version.pattern;
    if (criterion.hasRange) {
      // A damaged bound (stored corruption) must fail the evaluations that reach it, not the catalogue's load:
      // always a candidate, so versionMatches meets it and throws there, as it did before this index.
      if (criterion.bounds === null) this.others.push(index);
      else this.ranges.push(index);
    } else if (plain) {
      const key = criterion.versionId;
      const list = this.byVersion.get(key);
      if (list) list.push(index);
      else this.byVersion.set(key, [index]);
    } else this.others.push(index);
  }

  /**
   * The entries whose version constraint can hold the target's plain literal version, in entry order: a superset
   * of those versionOn does not find false, which criterionOn then decides.
   */
  candidates(target: ObservedName): readonly number[] {
    const found: number[] = [];
    for (const index of this.ranges) if (versionOn(this.entries[index]!.criterion, target)) found.push(index);
    return mergeSorted(mergeSorted(found, this.byVersion.get(target.version!.keyId)), this.others);
  }
}

/** Two ascending index lists as one. */
function mergeSorted(left: readonly number[], right: readonly number[] | undefined): readonly number[] {
  if (!right || right.length === 0) return left;
  if (left.length === 0) return right;
  const merged = new Array<number>(left.length + right.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < left.length && j < right.length) merged[k++] = left[i]! < right[j]! ? left[i++]! : right[j++]!;
  while (i < left.length) merged[k++] = left[i++]!;
  while (j < right.length) merged[k++] = right[j++]!;
  return merged;
}

/**
 * The loaded catalogue: advisories indexed by vendor:product, the KEV list, the version.
 *
 * A configuration can only give a target something other than `none` through a vulnerable criterion of a
 * non-negated node that is not false on the target itself (evaluateConfiguration). So each product keeps those
 * criteria with their advisory and configuration, and an evaluation checks them first and walks only the
 * configurations one of them keeps in play: at NVD scale a product hosts run is named by hundreds of advisories,
 * few of whose version ranges hold the observed version.
 */
export class CatalogueMatcher {
  /** How many advisories name each vendor:product in a vulnerable criterion (any node). */
  private readonly advisoriesByProduct = new Map<string, number>();
  private readonly criteriaByProduct = new Map<string, ProductCriteria>();
  /** Advisories with a wildcard vendor or product in a vulnerable criterion: checked for every target. */
  private readonly unindexed: LoadedAdvisory[] = [];
  /** Every advisory with a vulnerable criterion (every one that can be a finding), once. */
  private readonly indexed: LoadedAdvisory[] = [];
  private readonly kev: ReadonlyMap<string, KevEntry> | null;
  /** The catalogue's vendor:product and version integers, given when it loaded (ADR 105). */
  private readonly context = new CompileContext();

  /**
   * Target results by target and observed names: the catalogue never changes under a matcher, and hosts repeat the
   * same CPE names (5,000 generated hosts carry about 200 distinct ones). Bounded; oldest first out.
   */
  private readonly memo = new Map<string, TargetResult>();
  private readonly memoEntries: number;
  /** Whole evaluations of single names (`evaluateCpes` with one CPE), bounded the same way. */
  private readonly evaluations = new Map<string, Evaluation>();

  constructor(
    advisories: Iterable<Advisory>,
    kev: Iterable<KevEntry> | null,
    readonly version: CatalogueVersion,
    options: { readonly memoEntries?: number } = {},
  ) {
    this.memoEntries = options.memoEntries ?? DEFAULT_MEMO_ENTRIES;
    this.kev = kev ? new Map([...kev].map((entry) => [entry.cve_id, entry])) : null;
    let count = 0;
    for (const advisory of advisories) {
      count++;
      const compiled: LoadedAdvisory = {
        ...compileAdvisory(advisory, this.context),
        kev: this.kevOf(advisory.id),
        order: 0,
      };
      const keys = new Set<string>();
      let wildcard = false;
      for (const configuration of compiled.configurations)
        for (const node of configuration.nodes)
          for (const criterion of node.criteria) {
            if (!criterion.source.vulnerable) continue;
            const key = criterion.product;
            if (key) keys.add(key);
            else wildcard = true;
          }
      if (wildcard || keys.size > 0) this.indexed.push(compiled);
      for (const key of keys) this.advisoriesByProduct.set(key, (this.advisoriesByProduct.get(key) ?? 0) + 1);
      // An advisory with a wildcard criterion is evaluated whole for every target.
      if (wildcard) {
        this.unindexed.push(compiled);
        continue;
      }
      for (const configuration of compiled.configurations)
        for (const node of configuration.nodes) {
          if (node.negate) continue;
          for (const criterion of node.criteria) {
            if (!criterion.source.vulnerable) continue;
            const key = criterion.product!;
            let criteria = this.criteriaByProduct.get(key);
            if (!criteria) this.criteriaByProduct.set(key, (criteria = new ProductCriteria()));
            criteria.add({ criterion, advisory: compiled, configuration });
          }
        }
    }
    this.advisoryCount = count;
    this.context.seal();
    // Findings are listed KEV first, then by severity, then by id: ranked once here, sorted by rank per evaluation.
    const ranked = [...this.indexed].sort((a, b) => byKevThenSeverity(a.kev, a.advisory, b.kev, b.advisory));
    ranked.forEach((loaded, order) => (loaded.order = order));
  }

  readonly advisoryCount: number;

  get kevLoaded(): boolean {
    return this.kev !== null;
  }

  kevOf(id: string): KevEntry | false | null {
    if (!this.kev) return null;
    return this.kev.get(id) ?? false;
  }

  /** Evaluations of caller-supplied CPE names: one per name; the names together are the observed platform. */
  evaluateCpes(cpes: readonly string[]): Evaluation[] {
    if (cpes.length === 1 && this.memoEntries > 0) return [this.evaluateCpe(cpes[0]!)];
    const parsed = cpes.map((raw) => tryParseCpe(raw));
    const observed = parsed.filter((cpe): cpe is Cpe => cpe !== null);
    return cpes.map((raw, i) => {
      const cpe = parsed[i];
      if (!cpe) return this.empty('cpe', raw, 'invalid_cpe');
      return this.assemble('cpe', raw, [cpe], observed, () => [identityOf(cpe)]);
    });
  }

  /** One name alone, remembered whole (frozen: every caller gets the same evaluation). */
  private evaluateCpe(raw: string): Evaluation {
    const remembered = this.evaluations.get(raw);
    if (remembered) return remembered;
    const cpe = tryParseCpe(raw);
    const evaluation = deepFreeze(
      cpe
        ? this.assemble('cpe', raw, [cpe], [cpe], () => [identityOf(cpe)])
        : this.empty('cpe', raw, 'invalid_cpe'),
    );
    if (this.evaluations.size >= this.memoEntries)
      this.evaluations.delete(this.evaluations.keys().next().value!);
    this.evaluations.set(raw, evaluation);
    return evaluation;
  }

  /**
   * The evaluation of one software observation (a vulnerability_ref identity): its CPE names are evaluated
   * together, `platform` adds the names of the other software seen on the same observation.
   */
  evaluateObservation(identity: SoftwareObservation, platform: readonly string[] = []): Evaluation {
    const targets = identity.cpe.map((raw) => tryParseCpe(raw)).filter((cpe): cpe is Cpe => cpe !== null);
    if (targets.length === 0) return this.empty('observation', '', 'no_cpe');
    const others = platform.map((raw) => tryParseCpe(raw)).filter((cpe): cpe is Cpe => cpe !== null);
    const observed = [...targets, ...others];
    const product = { vendor: identity.vendor, product: identity.product, version: identity.version };
    return this.assemble('observation', '', targets, observed, () => [product]);
  }

  /** The associations of a host observation's CPE names, for the cve:/kev: association index. */
  associationsOf(cpes: readonly string[]): Association[] {
    if (this.advisoryCount === 0 || cpes.length === 0) return [];
    const observed = cpes.map((raw) => tryParseCpe(raw)).filter((cpe): cpe is Cpe => cpe !== null);
    const associations = new Map<string, Association>();
    for (const target of observed) {
      const result = this.evaluateTarget(target, observed);
      for (const [id, { outcome }] of result.findings) {
        const conditional = outcome.kind === 'conditional';
        const previous = associations.get(id);
        if (previous && !previous.conditional) continue;
        const kev = this.kevOf(id);
        associations.set(id, { cve_id: id, kev: kev === null ? null : kev !== false, conditional });
      }
    }
    return [...associations.values()].sort((a, b) => (a.cve_id < b.cve_id ? -1 : 1));
  }

  /** The advisories naming the target's vendor:product, evaluated (remembered for the same names). */
  evaluateTarget(target: Cpe, observed: readonly Cpe[]): TargetResult {
    if (this.memoEntries <= 0) return this.computeTarget(target, observed);
    let key = target.raw;
    for (const cpe of observed) key += `\n${cpe.raw}`;
    const remembered = this.memo.get(key);
    if (remembered) return remembered;
    const result = this.computeTarget(target, observed);
    if (this.memo.size >= this.memoEntries) this.memo.delete(this.memo.keys().next().value!);
    this.memo.set(key, result);
    return result;
  }

  private computeTarget(cpe: Cpe, observedCpes: readonly Cpe[]): TargetResult {
    const target = observe(cpe, this.context);
    const observed = observedCpes.map((other) => (other === cpe ? target : observe(other, this.context)));
    const key = target.product;
    const findings = new Map<string, { outcome: Outcome; advisory: LoadedAdvisory }>();
    const undetermined = new Map<string, readonly CpeAttribute[]>();
    const record = (advisory: LoadedAdvisory, best: Outcome): void => {
      const id = advisory.advisory.id;
      if (best.kind === 'match' || best.kind === 'conditional') findings.set(id, { outcome: best, advisory });
      else if (best.kind === 'unknown') undetermined.set(id, best.unknownAttributes ?? ['version']);
      // A finding whose condition is on the software's own attributes is still undecided.
      if (best.kind === 'conditional' && best.unknownAttributes) undetermined.set(id, best.unknownAttributes);
    };
    const criteria = key ? this.criteriaByProduct.get(key) : undefined;
    if (criteria) {
      const { entries } = criteria;
      const version = cpe.values.version;
      // A plain version narrows the criteria to check; ANY, NA or a pattern checks them all.
      const indices = typeof version !== 'symbol' && !version.pattern ? criteria.candidates(target) : null;
      const count = indices ? indices.length : entries.length;
      // Entries come in advisory then configuration order: an advisory's configurations in play are consecutive.
      let advisory: LoadedAdvisory | null = null;
      let best: Outcome = NONE;
      let evaluated: CompiledConfiguration | null = null;
      for (let i = 0; i < count; i++) {
        const entry = entries[indices ? indices[i]! : i]!;
        if (entry.advisory !== advisory) {
          if (advisory) record(advisory, best);
          advisory = entry.advisory;
          best = NONE;
          evaluated = null;
        }
        if (best.kind === 'match' || entry.configuration === evaluated) continue;
        const truth = criterionOn(entry.criterion, target);
        if (truth === false) continue;
        evaluated = entry.configuration;
        const outcome = evaluateConfigurationOn(
          entry.configuration,
          target,
          observed,
          entry.criterion,
          truth,
        );
        if (rank(outcome) > rank(best)) best = outcome;
      }
      if (advisory) record(advisory, best);
    }
    for (const compiled of this.unindexed) {
      let best: Outcome = NONE;
      for (const configuration of compiled.configurations) {
        const outcome = evaluateConfigurationOn(configuration, target, observed);
        if (rank(outcome) > rank(best)) best = outcome;
        if (best.kind === 'match') break;
      }
      record(compiled, best);
    }
    return { findings, undetermined, candidates: key ? (this.advisoriesByProduct.get(key) ?? 0) : 0 };
  }

  /** Baseline for the benchmark: every configuration of every advisory, no product index. */
  evaluateByScan(target: Cpe): number {
    let found = 0;
    for (const compiled of this.indexed) {
      for (const configuration of compiled.configurations) {
        if (evaluateConfiguration(configuration, target, [target]).kind === 'match') {
          found++;
          break;
        }
      }
    }
    return found;
  }

  private assemble(
    source: Evaluation['source'],
    cpe: string,
    targets: readonly Cpe[],
    observed: readonly Cpe[],
    observedProducts: (target: Cpe) => ObservedProduct[],
  ): Evaluation {
    if (this.advisoryCount === 0) return this.empty(source, cpe, 'catalogue_empty');
    const merged = new Map<
      string,
      { outcome: Outcome; advisory: LoadedAdvisory; products: readonly ObservedProduct[] }
    >();
    const undetermined = new Map<string, readonly CpeAttribute[]>();
    let candidates = 0;
    for (const target of targets) {
      const result = this.evaluateTarget(target, observed);
      candidates += result.candidates;
      // A target's attribute lists are in CPE order already: only lists merged from two targets need ordering.
      for (const [id, attributes] of result.undetermined) {
        const previous = undetermined.get(id);
        undetermined.set(id, previous ? inCpeOrder([...previous, ...attributes]) : attributes);
      }
      // The findings of one target share its observed products (readonly; a merge copies).
      let products: readonly ObservedProduct[] | null = null;
      for (const [id, found] of result.findings) {
        const previous = merged.get(id);
        products ??= observedProducts(target);
        if (!previous) merged.set(id, { outcome: found.outcome, advisory: found.advisory, products });
        else {
          if (rank(found.outcome) > rank(previous.outcome)) previous.outcome = found.outcome;
          for (const product of products)
            if (!previous.products.some((p) => sameProduct(p, product)))
              previous.products = [...previous.products, product];
        }
      }
    }
    // A finding decided by another target (a match, a platform condition) is no longer undecided.
    for (const [id, { outcome }] of merged) if (!outcome.unknownAttributes) undetermined.delete(id);
    const findings = [...merged.values()]
      .sort((a, b) => a.advisory.order - b.advisory.order)
      .map(({ outcome, advisory, products }) => this.finding(advisory, outcome, products));
    const plain = findings.some((finding) => finding.additional_conditions.length === 0);
    const complete = undetermined.size === 0;
    const unknownSet = new Set<CpeAttribute>();
    for (const attributes of undetermined.values())
      for (const attribute of attributes) unknownSet.add(attribute);
    const unknown = inCpeOrder(unknownSet);
    let status: EvaluationStatus;
    let reason: EvaluationReason;
    if (plain) [status, reason] = ['matched', 'matched'];
    else if (!complete) [status, reason] = ['indeterminate', attributeReason(unknown)];
    else if (findings.length > 0) [status, reason] = ['indeterminate', 'additional_conditions'];
    else
      [status, reason] = [
        'no_match',
        candidates === 0 ? 'product_not_in_catalogue' : 'no_applicable_advisory',
      ];
    return {
      status,
      complete: complete && (plain || findings.length === 0),
      reason,
      source,
      total: findings.length,
      findings,
      cpe,
      undetermined: [...undetermined.keys()].sort(),
      unknown_attributes: unknown,
    };
  }

  private finding(loaded: LoadedAdvisory, outcome: Outcome, products: readonly ObservedProduct[]): Finding {
    const advisory = loaded.advisory;
    return {
      id: advisory.id,
      description: advisory.description,
      published: advisory.published,
      last_modified: advisory.last_modified,
      vuln_status: advisory.vuln_status,
      cvss: advisory.cvss,
      severity: advisory.cvss?.base_severity ?? null,
      cwe: advisory.cwe,
      kev: loaded.kev,
      additional_conditions: outcome.kind === 'conditional' ? outcome.conditions : [],
      observed_products: products,
      matched_criteria: outcome.matched,
    };
  }

  private empty(source: Evaluation['source'], cpe: string, reason: EvaluationReason): Evaluation {
    return {
      status: 'indeterminate',
      complete: false,
      reason,
      source,
      total: 0,
      findings: [],
      cpe,
      undetermined: [],
      unknown_attributes: [],
    };
  }
}

/** Freezes a remembered evaluation and everything in it: a caller cannot change what the next one gets. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/** The reason of an undecided evaluation: the version first (nothing is decided without it), else the attribute. */
function attributeReason(attributes: readonly CpeAttribute[]): EvaluationReason {
  const first = attributes.includes('version') ? undefined : attributes[0];
  return first ? (`${first}_unknown` as AttributeUnknownReason) : 'version_unknown';
}

const RANKS: Readonly<Record<Outcome['kind'], number>> = { none: 0, unknown: 1, conditional: 2, match: 3 };

function rank(outcome: Outcome): number {
  return RANKS[outcome.kind];
}

function sameProduct(a: ObservedProduct, b: ObservedProduct): boolean {
  return a.vendor === b.vendor && a.product === b.product && a.version === b.version;
}

/** The order of findings: KEV first, then by CVSS base score (highest first), then by id. */
function byKevThenSeverity(
  aKev: KevEntry | false | null,
  a: Advisory,
  bKev: KevEntry | false | null,
  b: Advisory,
): number {
  const kev = Number(Boolean(bKev)) - Number(Boolean(aKev));
  if (kev !== 0) return kev;
  const score = (b.cvss?.base_score ?? -1) - (a.cvss?.base_score ?? -1);
  if (score !== 0) return score;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Re-exported for callers validating input. */
export { parseCpe };
