/**
 * The matcher's evaluation of a configuration, on what was prepared once (ADR 105): criteria carry integers for
 * their vendor:product and exact version and their range bounds in the catalogue's version table (compileAdvisory,
 * at load); an observed name carries its own (observe, once per evaluation). The configuration rule is
 * applicability.ts's evaluateWith, shared; what this file gives it is how a criterion and a node read on prepared
 * names, which answers exactly what applicability.ts reads on the same Cpe values, failures included (the tests
 * hold the two to each other); only the work differs: another product is one integer comparison, an exact version
 * another, a range bound a loop over numbers, and when the target is the only observed name each criterion is
 * decided at most once per configuration.
 */
import {
  type CompileContext,
  type CompiledConfiguration,
  type CompiledCriterion,
  type CompiledNode,
  type CriteriaReading,
  evaluateWith,
  inCpeOrder,
  not,
  type Outcome,
  productIdOf,
  type Truth,
  versionMatches,
} from './applicability.js';
import { ANY, attributeMatches, type Cpe, CPE_ATTRIBUTES, type CpeAttribute, NA, productKey } from './cpe.js';
import type { EncodedVersion, VersionTable } from './version-table.js';

/** An observed CPE name and what comparing it with one catalogue needs, prepared once per evaluation. */
export interface ObservedName {
  readonly cpe: Cpe;
  /** productKey: the matcher's index key. */
  readonly product: string | null;
  /** The catalogue's integer for its literal vendor and product (-2: none of its criteria names them; -1: not literal). */
  readonly productId: number;
  /** The version's text (a pattern's text too, as compareVersions reads it) encoded; null for ANY and NA. */
  readonly version: EncodedVersion | null;
  readonly versions: VersionTable;
}

export function observe(cpe: Cpe, context: CompileContext): ObservedName {
  const version = cpe.values.version;
  return {
    cpe,
    product: productKey(cpe),
    productId: productIdOf(cpe, context),
    version: typeof version === 'symbol' ? null : context.versions.observe(version.text),
    versions: context.versions,
  };
}

/** criterionMatches(criterion, name.cpe). */
export function criterionOn(criterion: CompiledCriterion, name: ObservedName): Truth {
  let unknown = false;
  const values = criterion.cpe.values;
  const observed = name.cpe.values;
  if (criterion.productId >= 0 && name.productId !== -1) {
    // Both literal: equal integers exactly when vendor and product are both equal.
    if (criterion.productId !== name.productId) return false;
    const part = criterion.cpe.part;
    if (part !== ANY) {
      // A part is ANY or one of a, o, h (never NA or a pattern: parseCpe refuses them).
      const observedPart = name.cpe.part;
      if (observedPart === ANY) unknown = true;
      else if (observedPart !== part) return false;
    }
    for (const attribute of criterion.otherAttributes) {
      const result = attributeMatches(values[attribute], observed[attribute]);
      if (result === false) return false;
      if (result === 'unknown') unknown = true;
    }
  } else
    for (const attribute of criterion.constrained) {
      const result = attributeMatches(values[attribute], observed[attribute]);
      if (result === false) return false;
      if (result === 'unknown') unknown = true;
    }
  const version = versionOn(criterion, name);
  if (version === false) return false;
  return unknown || version === 'unknown' ? 'unknown' : true;
}

/** versionMatches(criterion, name.cpe). */
export function versionOn(criterion: CompiledCriterion, name: ObservedName): Truth {
  const source = criterion.cpe.values.version;
  const target = name.cpe.values.version;
  if (!criterion.hasRange) {
    if (source === ANY) return true;
    if (target === ANY) return 'unknown';
    if (source === NA || target === NA) return source === target;
    if (source.pattern) return source.pattern.test(target.text);
    // Equal version keys (ids) exactly when compareVersions finds two versions equal.
    return criterion.versionId === name.version!.keyId;
  }
  if (target === ANY) return 'unknown';
  if (target === NA) return false;
  const bounds = criterion.bounds;
  // A damaged bound: versionMatches meets it and fails this evaluation, as it always did.
  if (bounds === null) return versionMatches(criterion, name.cpe);
  const version = name.version!;
  if (criterion.versionId >= 0 && criterion.versionId !== version.keyId) return false;
  const versions = name.versions;
  if (bounds.startIncluding >= 0 && versions.compare(version, bounds.startIncluding) < 0) return false;
  if (bounds.startExcluding >= 0 && versions.compare(version, bounds.startExcluding) <= 0) return false;
  if (bounds.endIncluding >= 0 && versions.compare(version, bounds.endIncluding) > 0) return false;
  if (bounds.endExcluding >= 0 && versions.compare(version, bounds.endExcluding) >= 0) return false;
  return true;
}

/** The attributes after the version in CPE order. */
const AFTER_VERSION: ReadonlySet<CpeAttribute> = new Set(
  CPE_ATTRIBUTES.slice(CPE_ATTRIBUTES.indexOf('version') + 1),
);

/**
 * unknownAttributes(criterion, name.cpe): the attributes of the name that make the criterion unknown, in CPE order.
 * Only the version and the attributes the criterion constrains can be unknown (an ANY attribute matches anything).
 */
function unknownAttributesOn(criterion: CompiledCriterion, name: ObservedName): CpeAttribute[] {
  const attributes: CpeAttribute[] = [];
  const values = criterion.cpe.values;
  const observed = name.cpe.values;
  let versionChecked = false;
  for (const attribute of criterion.constrained) {
    if (!versionChecked && AFTER_VERSION.has(attribute)) {
      versionChecked = true;
      if (versionOn(criterion, name) === 'unknown') attributes.push('version');
    }
    if (attributeMatches(values[attribute], observed[attribute]) === 'unknown') attributes.push(attribute);
  }
  if (!versionChecked && versionOn(criterion, name) === 'unknown') attributes.push('version');
  return attributes;
}

/*
 * The configuration being evaluated: its target and observed names, and when the target is the only observed
 * name, each criterion's truth once decided (by slot). Module state because an evaluation is synchronous and never
 * nested, and a closure or object per configuration is what this path avoids.
 */
let target!: ObservedName;
let observedNames: readonly ObservedName[] = [];
let alone = false;
const UNDECIDED = 3;
let truths = new Int8Array(64);

function encodeTruth(value: Truth): number {
  return value === true ? 1 : value === false ? 0 : 2;
}

function decodeTruth(code: number): Truth {
  return code === 1 ? true : code === 0 ? false : 'unknown';
}

/** criterionOn(criterion, target), decided once per configuration when the target is alone. */
function onTarget(criterion: CompiledCriterion): Truth {
  if (!alone) return criterionOn(criterion, target);
  const code = truths[criterion.slot]!;
  if (code !== UNDECIDED) return decodeTruth(code);
  const value = criterionOn(criterion, target);
  truths[criterion.slot] = encodeTruth(value);
  return value;
}

/** criterionOverSet: true on one of the observed names, else unknown on one, else false. */
function overSet(criterion: CompiledCriterion): Truth {
  if (alone) return onTarget(criterion);
  let unknown = false;
  for (const name of observedNames) {
    const value = criterionOn(criterion, name);
    if (value === true) return true;
    if (value === 'unknown') unknown = true;
  }
  return unknown ? 'unknown' : false;
}

function nodeOverSet(node: CompiledNode): Truth {
  const all = node.operator === 'AND';
  let unknown = false;
  let combined: Truth | null = null;
  for (const criterion of node.criteria) {
    const value = overSet(criterion);
    if (value === 'unknown') unknown = true;
    else if (value !== all) {
      combined = value;
      break;
    }
  }
  combined ??= unknown ? 'unknown' : all;
  return node.negate ? not(combined) : combined;
}

function unknownAttributesOver(configuration: CompiledConfiguration): CpeAttribute[] {
  const attributes: CpeAttribute[] = [];
  for (const node of configuration.nodes)
    for (const criterion of node.criteria) {
      if (alone) {
        if (onTarget(criterion) === 'unknown') attributes.push(...unknownAttributesOn(criterion, target));
        continue;
      }
      for (const name of observedNames)
        if (criterionOn(criterion, name) === 'unknown')
          attributes.push(...unknownAttributesOn(criterion, name));
    }
  return inCpeOrder(attributes);
}

/** The prepared reading of the configuration being evaluated (module state above): one object, no closures. */
const PREPARED: CriteriaReading = {
  onTarget,
  versionUnknownOnTarget: (criterion) => versionOn(criterion, target) === 'unknown',
  unknownOnTarget: (criterion) => unknownAttributesOn(criterion, target),
  nodeOverSet,
  unknownAttributesOver,
};

/**
 * evaluateConfiguration of applicability.ts (`observed` holds `name`). `known` is a criterion of the configuration
 * already decided on the target, and `knownTruth` its truth.
 */
export function evaluateConfigurationOn(
  configuration: CompiledConfiguration,
  name: ObservedName,
  observed: readonly ObservedName[],
  known: CompiledCriterion | null = null,
  knownTruth: Truth = false,
): Outcome {
  target = name;
  observedNames = observed;
  alone = observed.length === 1 && observed[0] === name;
  if (alone) {
    if (truths.length < configuration.size) truths = new Int8Array(configuration.size * 2);
    truths.fill(UNDECIDED, 0, configuration.size);
    if (known) truths[known.slot] = encodeTruth(knownTruth);
  }
  return evaluateWith(configuration, PREPARED);
}
