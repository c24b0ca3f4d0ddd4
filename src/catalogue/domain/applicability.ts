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
  tryParseCpe,
} from './cpe.js';
import type { AdditionalCondition } from './match-results.js';
import { compareVersions } from './version.js';

export type Truth = true | false | 'unknown';

export interface CompiledCriterion {
  readonly source: CpeCriterion;
  readonly cpe: Cpe;
  readonly hasRange: boolean;
  /** The attributes other than the version the criterion constrains (not ANY): the only ones compared. */
  readonly constrained: readonly CpeAttribute[];
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
export function attributeOutcome(
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

/**
 * `parsed` shares the parsed criteria among advisories (Cpe values are immutable): across an NVD-sized catalogue
 * the same criteria strings recur, and parsing (which compiles wildcard patterns) dominates compiling.
 */
export function compileAdvisory(
  advisory: Advisory,
  parsed: Map<string, Cpe | null> = new Map(),
): CompiledAdvisory {
  const constrainedOf = constrainedAttributes;
  return {
    advisory,
    configurations: advisory.configurations.map((configuration: Configuration): CompiledConfiguration => ({
      operator: configuration.operator,
      negate: configuration.negate,
      nodes: configuration.nodes.map((node: ConfigurationNode): CompiledNode => {
        const criteria = node.cpeMatch.flatMap((source): CompiledCriterion[] => {
          let cpe = parsed.get(source.criteria);
          if (cpe === undefined) {
            cpe = tryParseCpe(source.criteria);
            parsed.set(source.criteria, cpe);
          }
          if (!cpe) return [];
          let constrained = constrainedOf.get(cpe);
          if (constrained === undefined) {
            const values = cpe.values;
            constrained = CPE_ATTRIBUTES.filter((a) => a !== 'version' && values[a] !== ANY);
            constrainedOf.set(cpe, constrained);
          }
          const hasRange =
            source.versionStartIncluding !== undefined ||
            source.versionStartExcluding !== undefined ||
            source.versionEndIncluding !== undefined ||
            source.versionEndExcluding !== undefined;
          return [{ source, cpe, hasRange, constrained }];
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

/** The constrained attributes of a parsed criterion, shared like the parsed criteria themselves. */
const constrainedAttributes = new WeakMap<Cpe, readonly CpeAttribute[]>();

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
 * One configuration for `target` (the software evaluated) among `observed` (everything the observation shows,
 * target included).
 */
export function evaluateConfiguration(
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
