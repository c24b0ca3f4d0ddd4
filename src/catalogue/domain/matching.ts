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
import type {
  Advisory,
  CatalogueVersion,
  Configuration,
  ConfigurationNode,
  CpeCriterion,
  KevEntry,
} from './advisory.js';
import {
  ANY,
  attributeMatches,
  CPE_ATTRIBUTES,
  literal,
  NA,
  parseCpe,
  productKey,
  tryParseCpe,
  type Cpe,
  type CpeAttribute,
} from './cpe.js';
import { compareVersions } from './version.js';

/**
 * The matching semantics the association index (`cve:`/`kev:`) was built with. Bump it whenever a change here (or
 * in cpe.ts / version.ts) can change which CVEs an observation is associated with, or how: the service stores the
 * version beside the index and rebuilds an index built by another version at start.
 * 1: before issue 13 (never stored: an index without a version was built by it); 2: conditional associations for
 * CVEs undecided on a CPE attribute the observation lacks (update, edition, sw_edition, target_sw, ...).
 */
export const MATCHER_VERSION = 2;

type Truth = true | false | 'unknown';

interface CompiledCriterion {
  readonly source: CpeCriterion;
  readonly cpe: Cpe;
  readonly hasRange: boolean;
}

interface CompiledNode {
  readonly operator: 'AND' | 'OR';
  readonly negate: boolean;
  readonly criteria: readonly CompiledCriterion[];
  /** Every criterion is vulnerable:false and the node is not negated: a platform condition. */
  readonly platform: boolean;
}

interface CompiledConfiguration {
  readonly operator: 'AND' | 'OR';
  readonly negate: boolean;
  readonly nodes: readonly CompiledNode[];
}

interface CompiledAdvisory {
  readonly advisory: Advisory;
  readonly configurations: readonly CompiledConfiguration[];
}

export interface ObservedProduct {
  readonly vendor: string | null;
  readonly product: string | null;
  readonly version: string | null;
}

export interface AdditionalCondition {
  /** How the criteria combine: one of them (OR) or all of them (AND) must also be present. */
  readonly operator: 'AND' | 'OR';
  readonly criteria: readonly string[];
  readonly note: string;
  /**
   * Present when the condition is on the observed software itself: the CPE attributes the observation does not
   * tell (one of `criteria` must match the software once they are known). Absent for platform conditions.
   */
  readonly unknown_attributes?: readonly CpeAttribute[];
}

export interface Finding {
  readonly id: string;
  readonly description: string | null;
  readonly published: string | null;
  readonly last_modified: string | null;
  readonly vuln_status: string | null;
  readonly cvss: Advisory['cvss'];
  readonly severity: string | null;
  readonly cwe: readonly string[];
  /** The KEV entry; false only when a KEV catalogue is loaded and does not list the CVE; null when unknown. */
  readonly kev: KevEntry | false | null;
  readonly additional_conditions: readonly AdditionalCondition[];
  readonly observed_products: readonly ObservedProduct[];
  readonly matched_criteria: readonly string[];
}

export type EvaluationStatus = 'matched' | 'no_match' | 'indeterminate';

/** `update_unknown`, `sw_edition_unknown`, …: the outcome hangs on that attribute, which the observation lacks. */
export type AttributeUnknownReason = `${Exclude<CpeAttribute, 'version'>}_unknown`;

export type EvaluationReason =
  | 'matched'
  | 'no_applicable_advisory'
  | 'product_not_in_catalogue'
  | 'version_unknown'
  | AttributeUnknownReason
  | 'additional_conditions'
  | 'no_cpe'
  | 'invalid_cpe'
  | 'catalogue_empty';

export interface Evaluation {
  readonly status: EvaluationStatus;
  /** Every advisory naming the product was decided (true / false). Only a complete no_match is a negative. */
  readonly complete: boolean;
  readonly reason: EvaluationReason;
  /** What was evaluated: a software observation (reference) or caller-supplied CPE names. */
  readonly source: 'observation' | 'cpe';
  readonly total: number;
  readonly findings: readonly Finding[];
  /** The CPE evaluated; empty for reference-based calls. */
  readonly cpe: string;
  /**
   * Advisories that could not be decided because the observation does not tell an attribute of the software (its
   * version, update, edition, …). Those undecided on an attribute other than the version are also findings,
   * their condition in `additional_conditions`.
   */
  readonly undetermined: readonly string[];
  /** The CPE attributes the undecided advisories hang on, in CPE order (empty when everything was decided). */
  readonly unknown_attributes: readonly CpeAttribute[];
}

/** A software identity of an observation, as sealed in a vulnerability_ref. */
export interface SoftwareObservation {
  readonly vendor: string | null;
  readonly product: string | null;
  readonly version: string | null;
  readonly cpe: readonly string[];
}

interface Outcome {
  readonly kind: 'match' | 'conditional' | 'unknown' | 'none';
  readonly matched: readonly string[];
  readonly conditions: readonly AdditionalCondition[];
  /** The attributes an `unknown` outcome, or a condition on the software itself, hangs on. */
  readonly unknownAttributes?: readonly CpeAttribute[];
}

const NONE: Outcome = { kind: 'none', matched: [], conditions: [] };

const ATTRIBUTE_NAMES: Readonly<Partial<Record<CpeAttribute, string>>> = {
  part: 'part',
  update: 'update',
  edition: 'edition',
  language: 'language',
  sw_edition: 'software edition (sw_edition)',
  target_sw: 'target software (target_sw)',
  target_hw: 'target hardware (target_hw)',
  other: 'other attribute (other)',
};

/** The attributes of `observed` that make `criterion` unknown (the observation leaves them ANY). */
function unknownAttributes(criterion: CompiledCriterion, observed: Cpe): CpeAttribute[] {
  const attributes: CpeAttribute[] = [];
  for (const attribute of CPE_ATTRIBUTES) {
    if (attribute === 'version') {
      if (versionMatches(criterion, observed) === 'unknown') attributes.push(attribute);
    } else if (attributeMatches(criterion.cpe.values[attribute], observed.values[attribute]) === 'unknown')
      attributes.push(attribute);
  }
  return attributes;
}

/** Attributes in CPE order, once each. */
function inCpeOrder(attributes: Iterable<CpeAttribute>): CpeAttribute[] {
  const set = new Set(attributes);
  return CPE_ATTRIBUTES.filter((attribute) => set.has(attribute));
}

/** The attributes behind every unknown criterion of a configuration, over the observed set. */
function unknownAttributesOver(
  configuration: CompiledConfiguration,
  observed: readonly Cpe[],
): CpeAttribute[] {
  const attributes: CpeAttribute[] = [];
  for (const node of configuration.nodes)
    for (const criterion of node.criteria)
      for (const cpe of observed)
        if (criterionMatches(criterion, cpe) === 'unknown')
          attributes.push(...unknownAttributes(criterion, cpe));
  return inCpeOrder(attributes);
}

function unknownOutcome(attributes: readonly CpeAttribute[], matched: readonly string[] = []): Outcome {
  return { kind: 'unknown', matched, conditions: [], unknownAttributes: attributes };
}

function platformConditions(nodes: readonly CompiledNode[]): AdditionalCondition[] {
  return nodes.map((node) => ({
    operator: node.operator,
    criteria: node.criteria.map((criterion) => criterion.source.criteria),
    note:
      node.operator === 'AND'
        ? 'applies only together with all of these platforms, which the observation does not show'
        : 'applies only on one of these platforms, which the observation does not show',
  }));
}

/**
 * A configuration whose vulnerable criteria on the target are undecided only because the observation does not
 * tell attributes other than the version: the CVE is at stake on that condition (plus any platform the
 * observation does not show), unless another (non-platform) node already rules it out.
 */
function attributeOutcome(
  configuration: CompiledConfiguration,
  pending: ReadonlyArray<{ criterion: CompiledCriterion; attributes: readonly CpeAttribute[] }>,
  observed: readonly Cpe[],
): Outcome {
  const attributes = inCpeOrder(pending.flatMap((p) => p.attributes));
  if (configuration.negate) return unknownOutcome(attributes);
  const names = attributes.map((attribute) => ATTRIBUTE_NAMES[attribute] ?? attribute).join(', ');
  const onSoftware: AdditionalCondition = {
    operator: 'OR',
    criteria: [...new Set(pending.map((p) => p.criterion.source.criteria))],
    note: `applies only if the software matches one of these criteria; the observation does not tell its ${names}`,
    unknown_attributes: attributes,
  };
  const conditional = (more: readonly AdditionalCondition[]): Outcome => ({
    kind: 'conditional',
    matched: [],
    conditions: [onSoftware, ...more],
    unknownAttributes: attributes,
  });
  if (configuration.operator === 'OR' && configuration.nodes.length > 1) return conditional([]);
  const holding = new Set(pending.map((p) => p.criterion));
  const others = configuration.nodes.filter((node) => !node.criteria.some((c) => holding.has(c)));
  // As for a match: the other nodes hold, or are platforms the observation does not show.
  const values = others.map((node) => nodeOverSet(node, observed));
  const missing = others.filter((_, i) => values[i] !== true);
  if (missing.every((node) => node.platform)) return conditional(platformConditions(missing));
  return values.some((value) => value === 'unknown')
    ? unknownOutcome(inCpeOrder([...attributes, ...unknownAttributesOver(configuration, observed)]))
    : NONE;
}

function compileAdvisory(advisory: Advisory): CompiledAdvisory {
  return {
    advisory,
    configurations: advisory.configurations.map((configuration: Configuration): CompiledConfiguration => ({
      operator: configuration.operator,
      negate: configuration.negate,
      nodes: configuration.nodes.map((node: ConfigurationNode): CompiledNode => {
        const criteria = node.cpeMatch.flatMap((source): CompiledCriterion[] => {
          const cpe = tryParseCpe(source.criteria);
          if (!cpe) return [];
          const hasRange =
            source.versionStartIncluding !== undefined ||
            source.versionStartExcluding !== undefined ||
            source.versionEndIncluding !== undefined ||
            source.versionEndExcluding !== undefined;
          return [{ source, cpe, hasRange }];
        });
        return {
          operator: node.operator,
          negate: node.negate,
          criteria,
          platform: !node.negate && criteria.length > 0 && criteria.every((c) => !c.source.vulnerable),
        };
      }),
    })),
  };
}

/** A criterion against one observed name. */
export function criterionMatches(criterion: CompiledCriterion, observed: Cpe): Truth {
  let unknown = false;
  for (const attribute of CPE_ATTRIBUTES) {
    if (attribute === 'version') continue;
    const result = attributeMatches(criterion.cpe.values[attribute], observed.values[attribute]);
    if (result === false) return false;
    if (result === 'unknown') unknown = true;
  }
  const version = versionMatches(criterion, observed);
  if (version === false) return false;
  return unknown || version === 'unknown' ? 'unknown' : true;
}

function versionMatches(criterion: CompiledCriterion, observed: Cpe): Truth {
  const source = criterion.cpe.values.version;
  const target = observed.values.version;
  if (!criterion.hasRange) {
    if (source === ANY) return true;
    if (target === ANY) return 'unknown';
    if (source === NA || target === NA) return source === target;
    if (source.pattern) return source.pattern.test(target.text);
    return compareVersions(source.text, target.text) === 0;
  }
  if (target === ANY) return 'unknown';
  if (target === NA) return false;
  // A range criterion's own version is `*` (any); a literal one narrows it further.
  if (source !== ANY && source !== NA && !source.pattern && compareVersions(source.text, target.text) !== 0)
    return false;
  const version = target.text;
  const c = criterion.source;
  if (c.versionStartIncluding !== undefined && compareVersions(version, c.versionStartIncluding) < 0)
    return false;
  if (c.versionStartExcluding !== undefined && compareVersions(version, c.versionStartExcluding) <= 0)
    return false;
  if (c.versionEndIncluding !== undefined && compareVersions(version, c.versionEndIncluding) > 0)
    return false;
  if (c.versionEndExcluding !== undefined && compareVersions(version, c.versionEndExcluding) >= 0)
    return false;
  return true;
}

function anyOf(values: Iterable<Truth>): Truth {
  let unknown = false;
  for (const value of values) {
    if (value === true) return true;
    if (value === 'unknown') unknown = true;
  }
  return unknown ? 'unknown' : false;
}

function allOf(values: Iterable<Truth>): Truth {
  let unknown = false;
  for (const value of values) {
    if (value === false) return false;
    if (value === 'unknown') unknown = true;
  }
  return unknown ? 'unknown' : true;
}

function not(value: Truth): Truth {
  return value === 'unknown' ? value : !value;
}

function criterionOverSet(criterion: CompiledCriterion, observed: readonly Cpe[]): Truth {
  return anyOf(observed.map((cpe) => criterionMatches(criterion, cpe)));
}

function nodeOverSet(node: CompiledNode, observed: readonly Cpe[]): Truth {
  const values = node.criteria.map((criterion) => criterionOverSet(criterion, observed));
  const combined = node.operator === 'AND' ? allOf(values) : anyOf(values);
  return node.negate ? not(combined) : combined;
}

/**
 * One configuration for `target` (the software evaluated) among `observed` (everything the observation shows,
 * target included).
 */
function evaluateConfiguration(
  configuration: CompiledConfiguration,
  target: Cpe,
  observed: readonly Cpe[],
): Outcome {
  // The vulnerable criteria that hit the target itself: without one the CVE is not about this software.
  const matched: string[] = [];
  // Undecided on the target: by its version, or only by other attributes the observation does not tell.
  let versionUnknown = false;
  const pending: Array<{ criterion: CompiledCriterion; attributes: CpeAttribute[] }> = [];
  for (const node of configuration.nodes) {
    if (node.negate) continue;
    for (const criterion of node.criteria) {
      if (!criterion.source.vulnerable) continue;
      const result = criterionMatches(criterion, target);
      if (result === true) matched.push(criterion.source.criteria);
      else if (result === 'unknown') {
        const attributes = unknownAttributes(criterion, target);
        if (attributes.includes('version')) versionUnknown = true;
        else pending.push({ criterion, attributes });
      }
    }
  }
  if (matched.length === 0) {
    if (versionUnknown) return unknownOutcome(['version']);
    return pending.length > 0 ? attributeOutcome(configuration, pending, observed) : NONE;
  }
  const nodeValues = configuration.nodes.map((node) => nodeOverSet(node, observed));
  const combine = configuration.operator === 'OR' && configuration.nodes.length > 1 ? anyOf : allOf;
  let value = combine(nodeValues);
  if (configuration.negate) value = not(value);
  if (value === true) return { kind: 'match', matched, conditions: [] };
  if (configuration.negate || (configuration.operator === 'OR' && configuration.nodes.length > 1))
    return value === 'unknown'
      ? unknownOutcome(unknownAttributesOver(configuration, observed), matched)
      : NONE;
  // AND: the nodes still missing. Only platform nodes can be left as conditions.
  const missing = configuration.nodes.filter((_, i) => nodeValues[i] !== true);
  if (missing.every((node) => node.platform))
    return { kind: 'conditional', matched, conditions: platformConditions(missing) };
  return nodeValues.some((v) => v === 'unknown')
    ? unknownOutcome(unknownAttributesOver(configuration, observed), matched)
    : NONE;
}

function identityOf(cpe: Cpe): ObservedProduct {
  return {
    vendor: literal(cpe.values.vendor),
    product: literal(cpe.values.product),
    version: literal(cpe.values.version),
  };
}

interface TargetResult {
  readonly findings: Map<string, { outcome: Outcome; advisory: Advisory }>;
  /** Undecided advisories and the attributes each hangs on. */
  readonly undetermined: Map<string, readonly CpeAttribute[]>;
  readonly candidates: number;
}

export interface Association {
  readonly cve_id: string;
  readonly kev: boolean | null;
  readonly conditional: boolean;
}

/** The loaded catalogue: advisories indexed by vendor:product, the KEV list, the version. */
export class CatalogueMatcher {
  private readonly byProduct = new Map<string, CompiledAdvisory[]>();
  /** Advisories with a wildcard vendor or product in a vulnerable criterion: checked for every target. */
  private readonly unindexed: CompiledAdvisory[] = [];
  private readonly kev: ReadonlyMap<string, KevEntry> | null;

  constructor(
    advisories: Iterable<Advisory>,
    kev: Iterable<KevEntry> | null,
    readonly version: CatalogueVersion,
  ) {
    let count = 0;
    for (const advisory of advisories) {
      count++;
      const compiled = compileAdvisory(advisory);
      const keys = new Set<string>();
      let wildcard = false;
      for (const configuration of compiled.configurations)
        for (const node of configuration.nodes)
          for (const criterion of node.criteria) {
            if (!criterion.source.vulnerable) continue;
            const key = productKey(criterion.cpe);
            if (key) keys.add(key);
            else wildcard = true;
          }
      if (wildcard) this.unindexed.push(compiled);
      for (const key of keys) {
        const list = this.byProduct.get(key);
        if (list) list.push(compiled);
        else this.byProduct.set(key, [compiled]);
      }
    }
    this.advisoryCount = count;
    this.kev = kev ? new Map([...kev].map((entry) => [entry.cve_id, entry])) : null;
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
    const parsed = cpes.map((raw) => tryParseCpe(raw));
    const observed = parsed.filter((cpe): cpe is Cpe => cpe !== null);
    return cpes.map((raw, i) => {
      const cpe = parsed[i];
      if (!cpe) return this.empty('cpe', raw, 'invalid_cpe');
      return this.assemble('cpe', raw, [cpe], observed, () => [identityOf(cpe)]);
    });
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

  /** The advisories naming the target's vendor:product, evaluated. */
  evaluateTarget(target: Cpe, observed: readonly Cpe[]): TargetResult {
    const key = productKey(target);
    const candidates = [...(key ? (this.byProduct.get(key) ?? []) : []), ...this.unindexed];
    const findings = new Map<string, { outcome: Outcome; advisory: Advisory }>();
    const undetermined = new Map<string, readonly CpeAttribute[]>();
    for (const compiled of candidates) {
      let best: Outcome = NONE;
      for (const configuration of compiled.configurations) {
        const outcome = evaluateConfiguration(configuration, target, observed);
        if (rank(outcome) > rank(best)) best = outcome;
        if (best.kind === 'match') break;
      }
      if (best.kind === 'match' || best.kind === 'conditional')
        findings.set(compiled.advisory.id, { outcome: best, advisory: compiled.advisory });
      else if (best.kind === 'unknown')
        undetermined.set(compiled.advisory.id, best.unknownAttributes ?? ['version']);
      // A finding whose condition is on the software's own attributes is still undecided.
      if (best.kind === 'conditional' && best.unknownAttributes)
        undetermined.set(compiled.advisory.id, best.unknownAttributes);
    }
    return { findings, undetermined, candidates: key ? (this.byProduct.get(key)?.length ?? 0) : 0 };
  }

  /** Baseline for the benchmark: every configuration of every advisory, no product index. */
  evaluateByScan(target: Cpe): number {
    let found = 0;
    for (const list of this.allAdvisories()) {
      for (const configuration of list.configurations) {
        if (evaluateConfiguration(configuration, target, [target]).kind === 'match') {
          found++;
          break;
        }
      }
    }
    return found;
  }

  private *allAdvisories(): Iterable<CompiledAdvisory> {
    const seen = new Set<string>();
    for (const list of [...this.byProduct.values(), this.unindexed])
      for (const compiled of list) {
        if (seen.has(compiled.advisory.id)) continue;
        seen.add(compiled.advisory.id);
        yield compiled;
      }
  }

  private assemble(
    source: Evaluation['source'],
    cpe: string,
    targets: readonly Cpe[],
    observed: readonly Cpe[],
    observedProducts: (target: Cpe) => ObservedProduct[],
  ): Evaluation {
    if (this.advisoryCount === 0) return this.empty(source, cpe, 'catalogue_empty');
    const merged = new Map<string, { outcome: Outcome; advisory: Advisory; products: ObservedProduct[] }>();
    const undetermined = new Map<string, readonly CpeAttribute[]>();
    let candidates = 0;
    for (const target of targets) {
      const result = this.evaluateTarget(target, observed);
      candidates += result.candidates;
      for (const [id, attributes] of result.undetermined)
        undetermined.set(id, inCpeOrder([...(undetermined.get(id) ?? []), ...attributes]));
      for (const [id, found] of result.findings) {
        const previous = merged.get(id);
        const products = observedProducts(target);
        if (!previous) merged.set(id, { ...found, products });
        else {
          if (rank(found.outcome) > rank(previous.outcome)) previous.outcome = found.outcome;
          for (const product of products)
            if (!previous.products.some((p) => sameProduct(p, product))) previous.products.push(product);
        }
      }
    }
    // A finding decided by another target (a match, a platform condition) is no longer undecided.
    for (const [id, { outcome }] of merged) if (!outcome.unknownAttributes) undetermined.delete(id);
    const findings = [...merged.values()]
      .map(({ outcome, advisory, products }) => this.finding(advisory, outcome, products))
      .sort(byKevThenSeverity);
    const plain = findings.some((finding) => finding.additional_conditions.length === 0);
    const complete = undetermined.size === 0;
    const unknown = inCpeOrder([...undetermined.values()].flat());
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

  private finding(advisory: Advisory, outcome: Outcome, products: ObservedProduct[]): Finding {
    return {
      id: advisory.id,
      description: advisory.description,
      published: advisory.published,
      last_modified: advisory.last_modified,
      vuln_status: advisory.vuln_status,
      cvss: advisory.cvss,
      severity: advisory.cvss?.base_severity ?? null,
      cwe: advisory.cwe,
      kev: this.kevOf(advisory.id),
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

/** The reason of an undecided evaluation: the version first (nothing is decided without it), else the attribute. */
function attributeReason(attributes: readonly CpeAttribute[]): EvaluationReason {
  const first = attributes.includes('version') ? undefined : attributes[0];
  return first ? (`${first}_unknown` as AttributeUnknownReason) : 'version_unknown';
}

function rank(outcome: Outcome): number {
  return { none: 0, unknown: 1, conditional: 2, match: 3 }[outcome.kind];
}

function sameProduct(a: ObservedProduct, b: ObservedProduct): boolean {
  return a.vendor === b.vendor && a.product === b.product && a.version === b.version;
}

function byKevThenSeverity(a: Finding, b: Finding): number {
  const kev = Number(Boolean(b.kev)) - Number(Boolean(a.kev));
  if (kev !== 0) return kev;
  const score = (b.cvss?.base_score ?? -1) - (a.cvss?.base_score ?? -1);
  if (score !== 0) return score;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Re-exported for callers validating input. */
export { parseCpe };
