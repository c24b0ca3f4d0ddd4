/**
 * The walk of an advisory's configurations over the observed CPE names, in three-valued logic: criteria
 * (attributes, then version ranges), nodes, configurations, and the outcome with its conditions.
 */
import type { Advisory, Configuration, ConfigurationNode, CpeCriterion } from './advisory.js';
import {
  ANY,
  attributeMatches,
  type Cpe,
  CPE_ATTRIBUTES,
  type CpeAttribute,
  NA,
  productKey,
  tryParseCpe,
} from './cpe.js';
import type { AdditionalCondition } from './match-results.js';
import { compareVersions } from './version.js';
import { VersionTable } from './version-table.js';

export type Truth = true | false | 'unknown';

export interface CompiledCriterion {
  readonly source: CpeCriterion;
  readonly cpe: Cpe;
  readonly hasRange: boolean;
  /** The attributes other than the version the criterion constrains (not ANY): the only ones compared. */
  readonly constrained: readonly CpeAttribute[];
  readonly vulnerable: boolean;
  /** productKey of the criterion's name: the matcher's index key. */
  readonly product: string | null;
  /** The context's integer for a literal vendor and product (equal exactly when both are), else -1. */
  readonly productId: number;
  /** The constrained attributes other than part, vendor and product: all that is left when productId applies. */
  readonly otherAttributes: readonly CpeAttribute[];
  /** The criterion's position in its configuration (0, 1, … over its nodes in order). */
  readonly slot: number;
  /** The version table's integer for the name's version when a plain literal (no pattern), else -1. */
  readonly versionId: number;
  /** The range's bounds in the version table; null without a range, or when a bound is damaged (not a version). */
  readonly bounds: RangeBounds | null;
}

/** A range criterion's bounds as version table ids, -1 where the criterion does not give one. */
export interface RangeBounds {
  readonly startIncluding: number;
  readonly startExcluding: number;
  readonly endIncluding: number;
  readonly endExcluding: number;
}

/**
 * What compiling shares across a catalogue's advisories: the parsed criteria (Cpe values are immutable, and the same
 * criteria strings recur across an NVD-sized catalogue), what each parsed name gives its criteria, and the
 * versions table.
 */
export class CompileContext {
  readonly parsed = new Map<string, Cpe | null>();
  readonly names = new Map<Cpe, NameFacts>();
  readonly versions = new VersionTable();
  private readonly products = new Map<string, Map<string, number>>();
  private productCount = 0;

  /** Drops what only compiling needs (parsed names, their facts, bound texts): a matcher keeps the rest. */
  seal(): void {
    this.parsed.clear();
    this.names.clear();
    this.versions.seal();
  }

  /** The integer of a literal vendor and product, given once (-2 for a pair never given, when only looking). */
  productId(vendor: string, product: string, give: boolean): number {
    let products = this.products.get(vendor);
    if (!products) {
      if (!give) return -2;
      this.products.set(vendor, (products = new Map()));
    }
    let id = products.get(product);
    if (id === undefined) {
      if (!give) return -2;
      products.set(product, (id = this.productCount++));
    }
    return id;
  }
}

/** The integer of a name's literal vendor and product (no pattern); -1 when either is not one. */
export function productIdOf(cpe: Cpe, context: CompileContext, give = false): number {
  const vendor = cpe.values.vendor;
  const product = cpe.values.product;
  if (typeof vendor === 'symbol' || typeof product === 'symbol' || vendor.pattern || product.pattern)
    return -1;
  return context.productId(vendor.text, product.text, give);
}

export interface CompiledNode {
  readonly operator: 'AND' | 'OR';
  readonly negate: boolean;
  readonly criteria: readonly CompiledCriterion[];
  /** Every criterion is vulnerable:false and the node is not negated: a platform condition. */
  readonly platform: boolean;
}

export interface CompiledConfiguration {
  readonly operator: 'AND' | 'OR';
  readonly negate: boolean;
  readonly nodes: readonly CompiledNode[];
  /** How many criteria its nodes hold together (the slots). */
  readonly size: number;
}

export interface CompiledAdvisory {
  readonly advisory: Advisory;
  readonly configurations: readonly CompiledConfiguration[];
}

export interface Outcome {
  readonly kind: 'match' | 'conditional' | 'unknown' | 'none';
  readonly matched: readonly string[];
  readonly conditions: readonly AdditionalCondition[];
  /** The attributes an `unknown` outcome, or a condition on the software itself, hangs on. */
  readonly unknownAttributes?: readonly CpeAttribute[];
}

export const NONE: Outcome = { kind: 'none', matched: [], conditions: [] };

export const ATTRIBUTE_NAMES: Readonly<Partial<Record<CpeAttribute, string>>> = {
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
export function unknownAttributes(criterion: CompiledCriterion, observed: Cpe): CpeAttribute[] {
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
export function inCpeOrder(attributes: Iterable<CpeAttribute>): CpeAttribute[] {
  const set = new Set(attributes);
  return CPE_ATTRIBUTES.filter((attribute) => set.has(attribute));
}

/** The attributes behind every unknown criterion of a configuration, over the observed set. */
export function unknownAttributesOver(
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

export function unknownOutcome(
  attributes: readonly CpeAttribute[],
  matched: readonly string[] = [],
): Outcome {
  return { kind: 'unknown', matched, conditions: [], unknownAttributes: attributes };
}

export function platformConditions(nodes: readonly CompiledNode[]): AdditionalCondition[] {
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
function attributeOutcomeBy(
  configuration: CompiledConfiguration,
  pending: ReadonlyArray<{ criterion: CompiledCriterion; attributes: readonly CpeAttribute[] }>,
  nodeHolds: (node: CompiledNode) => Truth,
  unknownOfOthers: () => readonly CpeAttribute[],
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
  const values = others.map(nodeHolds);
  const missing = others.filter((_, i) => values[i] !== true);
  if (missing.every((node) => node.platform)) return conditional(platformConditions(missing));
  return values.some((value) => value === 'unknown')
    ? unknownOutcome(inCpeOrder([...attributes, ...unknownOfOthers()]))
    : NONE;
}

export function compileAdvisory(advisory: Advisory, context = new CompileContext()): CompiledAdvisory {
  return {
    advisory,
    configurations: advisory.configurations.map((configuration: Configuration): CompiledConfiguration => {
      let slot = 0;
      const nodes = configuration.nodes.map((node: ConfigurationNode): CompiledNode => {
        const criteria = node.cpeMatch.flatMap((source): CompiledCriterion[] => {
          let cpe = context.parsed.get(source.criteria);
          if (cpe === undefined) {
            cpe = tryParseCpe(source.criteria);
            context.parsed.set(source.criteria, cpe);
          }
          if (!cpe) return [];
          const facts = factsOf(cpe, context);
          const hasRange =
            source.versionStartIncluding !== undefined ||
            source.versionStartExcluding !== undefined ||
            source.versionEndIncluding !== undefined ||
            source.versionEndExcluding !== undefined;
          return [
            {
              source,
              cpe,
              hasRange,
              constrained: facts.constrained,
              vulnerable: source.vulnerable,
              product: facts.product,
              productId: facts.productId,
              otherAttributes: facts.otherAttributes,
              slot: slot++,
              versionId: facts.versionId,
              bounds: hasRange ? boundsOf(source, context.versions) : null,
            },
          ];
        });
        return {
          operator: node.operator,
          negate: node.negate,
          criteria,
          platform: !node.negate && criteria.length > 0 && criteria.every((c) => !c.source.vulnerable),
        };
      });
      return { operator: configuration.operator, negate: configuration.negate, nodes, size: slot };
    }),
  };
}

interface NameFacts {
  readonly constrained: readonly CpeAttribute[];
  readonly otherAttributes: readonly CpeAttribute[];
  readonly product: string | null;
  readonly productId: number;
  readonly versionId: number;
}

const DECIDED_BY_PRODUCT_ID: ReadonlySet<CpeAttribute> = new Set(['part', 'vendor', 'product']);

/** What a parsed criterion's name gives every criterion using it, computed once per name. */
function factsOf(cpe: Cpe, context: CompileContext): NameFacts {
  let facts = context.names.get(cpe);
  if (facts === undefined) {
    const values = cpe.values;
    const version = values.version;
    const constrained = CPE_ATTRIBUTES.filter((a) => a !== 'version' && values[a] !== ANY);
    facts = {
      constrained,
      otherAttributes: constrained.filter((a) => !DECIDED_BY_PRODUCT_ID.has(a)),
      product: productKey(cpe),
      productId: productIdOf(cpe, context, true),
      versionId: typeof version !== 'symbol' && !version.pattern ? context.versions.exact(version.text) : -1,
    };
    context.names.set(cpe, facts);
  }
  return facts;
}

/**
 * The bounds in the version table, or null when one is not a version (stored corruption, e.g. an object where a
 * version belongs): such a criterion is decided by versionMatches, which fails the evaluations that reach it
 * (ADR 96), not the catalogue's load.
 */
function boundsOf(source: CpeCriterion, versions: VersionTable): RangeBounds | null {
  const bound = (text: string | undefined): number => (text === undefined ? -1 : versions.bound(text));
  try {
    return {
      startIncluding: bound(source.versionStartIncluding),
      startExcluding: bound(source.versionStartExcluding),
      endIncluding: bound(source.versionEndIncluding),
      endExcluding: bound(source.versionEndExcluding),
    };
  } catch {
    return null;
  }
}

/** A criterion against one observed name. */
export function criterionMatches(criterion: CompiledCriterion, observed: Cpe): Truth {
  let unknown = false;
  // An attribute the criterion leaves ANY matches anything: only the constrained ones can decide.
  for (const attribute of criterion.constrained) {
    const result = attributeMatches(criterion.cpe.values[attribute], observed.values[attribute]);
    if (result === false) return false;
    if (result === 'unknown') unknown = true;
  }
  const version = versionMatches(criterion, observed);
  if (version === false) return false;
  return unknown || version === 'unknown' ? 'unknown' : true;
}

export function versionMatches(criterion: CompiledCriterion, observed: Cpe): Truth {
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

export function anyOf(values: Iterable<Truth>): Truth {
  let unknown = false;
  for (const value of values) {
    if (value === true) return true;
    if (value === 'unknown') unknown = true;
  }
  return unknown ? 'unknown' : false;
}

export function allOf(values: Iterable<Truth>): Truth {
  let unknown = false;
  for (const value of values) {
    if (value === false) return false;
    if (value === 'unknown') unknown = true;
  }
  return unknown ? 'unknown' : true;
}

export function not(value: Truth): Truth {
  return value === 'unknown' ? value : !value;
}

export function criterionOverSet(criterion: CompiledCriterion, observed: readonly Cpe[]): Truth {
  let unknown = false;
  for (const cpe of observed) {
    const value = criterionMatches(criterion, cpe);
    if (value === true) return true;
    if (value === 'unknown') unknown = true;
  }
  return unknown ? 'unknown' : false;
}

export function nodeOverSet(node: CompiledNode, observed: readonly Cpe[]): Truth {
  // allOf / anyOf over the criteria, stopping at the first value that decides.
  const all = node.operator === 'AND';
  let unknown = false;
  let combined: Truth | null = null;
  for (const criterion of node.criteria) {
    const value = criterionOverSet(criterion, observed);
    if (value === 'unknown') unknown = true;
    else if (value !== all) {
      combined = value;
      break;
    }
  }
  combined ??= unknown ? 'unknown' : all;
  return node.negate ? not(combined) : combined;
}

/**
 * How an evaluation reads criteria and nodes for one configuration's target: on Cpe values here (the definition),
 * on names prepared once in compiled-evaluation.ts. The rule that combines them is evaluateWith, written once.
 */
export interface CriteriaReading {
  /** criterionMatches(criterion, target). */
  onTarget(criterion: CompiledCriterion): Truth;
  /** versionMatches(criterion, target) is unknown. */
  versionUnknownOnTarget(criterion: CompiledCriterion): boolean;
  /** unknownAttributes(criterion, target). */
  unknownOnTarget(criterion: CompiledCriterion): CpeAttribute[];
  /** nodeOverSet(node, observed). */
  nodeOverSet(node: CompiledNode): Truth;
  /** unknownAttributesOver(configuration, observed). */
  unknownAttributesOver(configuration: CompiledConfiguration): CpeAttribute[];
}

const VERSION_ONLY: readonly CpeAttribute[] = Object.freeze(['version'] as CpeAttribute[]);
/** The version found `unknown` and nothing else: shared, never changed. */
const VERSION_UNKNOWN: Outcome = Object.freeze(unknownOutcome(VERSION_ONLY));

/** One configuration's outcome for the target `reading` reads. */
export function evaluateWith(configuration: CompiledConfiguration, reading: CriteriaReading): Outcome {
  // The vulnerable criteria that hit the target itself: without one the CVE is not about this software.
  let matched: string[] | null = null;
  // Undecided on the target: by its version, or only by other attributes the observation does not tell.
  let versionUnknown = false;
  let pending: Array<{ criterion: CompiledCriterion; attributes: CpeAttribute[] }> | null = null;
  for (const node of configuration.nodes) {
    if (node.negate) continue;
    for (const criterion of node.criteria) {
      if (!criterion.vulnerable) continue;
      const result = reading.onTarget(criterion);
      if (result === true) (matched ??= []).push(criterion.source.criteria);
      else if (result === 'unknown') {
        if (reading.versionUnknownOnTarget(criterion)) versionUnknown = true;
        else (pending ??= []).push({ criterion, attributes: reading.unknownOnTarget(criterion) });
      }
    }
  }
  if (matched === null) {
    if (versionUnknown) return VERSION_UNKNOWN;
    return pending !== null
      ? attributeOutcomeBy(configuration, pending, reading.nodeOverSet, () =>
          reading.unknownAttributesOver(configuration),
        )
      : NONE;
  }
  const nodeValues = configuration.nodes.map((node) => reading.nodeOverSet(node));
  const combine = configuration.operator === 'OR' && configuration.nodes.length > 1 ? anyOf : allOf;
  let value = combine(nodeValues);
  if (configuration.negate) value = not(value);
  if (value === true) return { kind: 'match', matched, conditions: [] };
  if (configuration.negate || (configuration.operator === 'OR' && configuration.nodes.length > 1))
    return value === 'unknown' ? unknownOutcome(reading.unknownAttributesOver(configuration), matched) : NONE;
  // AND: the nodes still missing. Only platform nodes can be left as conditions.
  const missing = configuration.nodes.filter((_, i) => nodeValues[i] !== true);
  if (missing.every((node) => node.platform))
    return { kind: 'conditional', matched, conditions: platformConditions(missing) };
  return nodeValues.some((v) => v === 'unknown')
    ? unknownOutcome(reading.unknownAttributesOver(configuration), matched)
    : NONE;
}

/**
 * One configuration for `target` (the software evaluated) among `observed` (everything the observation shows,
 * target included).
 */
export function evaluateConfiguration(
  configuration: CompiledConfiguration,
  target: Cpe,
  observed: readonly Cpe[],
): Outcome {
  return evaluateWith(configuration, {
    onTarget: (criterion) => criterionMatches(criterion, target),
    versionUnknownOnTarget: (criterion) => versionMatches(criterion, target) === 'unknown',
    unknownOnTarget: (criterion) => unknownAttributes(criterion, target),
    nodeOverSet: (node) => nodeOverSet(node, observed),
    unknownAttributesOver: (over) => unknownAttributesOver(over, observed),
  });
}
