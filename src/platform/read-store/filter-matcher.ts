import type { FieldCondition, Filter, FilterValue, ReadDocument } from './read-store.port.js';

/**
 * Evaluates a read-store Filter against a document in memory, with the same meaning the adapters give it.
 * The projection view uses it so `deleteWhere` is visible to later reads in the same batch.
 */
export function matchesFilter(document: ReadDocument, filter: Filter): boolean {
  for (const [path, condition] of Object.entries(filter)) {
    if (condition === undefined) continue;
    if (path === '$or') {
      const alternatives = condition as readonly Filter[];
      if (!alternatives.some((alternative) => matchesFilter(document, alternative))) return false;
      continue;
    }
    if (!matchesCondition(valueAt(document, path), condition as FieldCondition)) return false;
  }
  return true;
}

export function valueAt(document: unknown, path: string): unknown {
  let current: unknown = document;
  for (const part of path.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

function matchesCondition(value: unknown, condition: FieldCondition): boolean {
  if (condition === null || typeof condition !== 'object') return equalsOrContains(value, condition);
  if (condition.$exists !== undefined && (value !== undefined) !== condition.$exists) return false;
  if (condition.$is !== undefined && value !== condition.$is) return false;
  if (condition.$string !== undefined && value !== condition.$string) return false;
  if (condition.$in !== undefined && !condition.$in.some((candidate) => equalsOrContains(value, candidate))) {
    return false;
  }
  if (
    condition.$nin !== undefined &&
    condition.$nin.some((candidate) => equalsOrContains(value, candidate))
  ) {
    return false;
  }
  if (condition.$ne !== undefined && equalsOrContains(value, condition.$ne)) return false;
  if (condition.$gt !== undefined && !(compare(value, condition.$gt) > 0)) return false;
  if (condition.$gte !== undefined && !(compare(value, condition.$gte) >= 0)) return false;
  if (condition.$lt !== undefined && !(compare(value, condition.$lt) < 0)) return false;
  if (condition.$lte !== undefined && !(compare(value, condition.$lte) <= 0)) return false;
  if (
    condition.$prefix !== undefined &&
    !(typeof value === 'string' && value.startsWith(condition.$prefix))
  ) {
    return false;
  }
  return true;
}

function equalsOrContains(value: unknown, expected: FilterValue): boolean {
  if (Array.isArray(value)) return value.some((item) => item === expected);
  if (expected === null) return value === null || value === undefined;
  return value === expected;
}

/** Range operators compare values of the same type only (as MongoDB does); otherwise NaN (no match). */
function compare(value: unknown, bound: string | number): number {
  if (typeof value !== typeof bound) return Number.NaN;
  if (typeof bound === 'number') return (value as number) - bound;
  const text = value as string;
  return text < bound ? -1 : text > bound ? 1 : 0;
}
