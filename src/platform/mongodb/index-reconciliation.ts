/**
 * Brings a MongoDB collection's indexes to a declared set at start-up. MongoDB refuses a createIndex whose keys
 * match an existing index under another name (IndexOptionsConflict) and one whose name exists with other keys
 * (IndexKeySpecsConflict); dropping the *declared* name, as the adapters did, fails in the first case because
 * that name does not exist yet. So the plan compares with listIndexes first and drops the *existing* index in
 * the way: same keys under another name, or same name with other keys or options. Indexes the declaration does
 * not mention are left alone (an operator may have added them).
 */
import { MongoServerError, type Collection, type Document } from 'mongodb';

/** Another instance starting at the same time may have dropped it already. */
const INDEX_NOT_FOUND = 27;

export interface DeclaredIndex {
  readonly name: string;
  readonly keys: Readonly<Record<string, 1 | -1>>;
  readonly unique?: boolean;
  readonly partialFilterExpression?: Document;
}

/** What listIndexes returns, reduced to what the plan compares. */
export interface ExistingIndex {
  readonly name: string;
  readonly key: Readonly<Record<string, unknown>>;
  readonly unique?: boolean;
  readonly partialFilterExpression?: Document;
}

export interface IndexPlan {
  /** Existing index names to drop first. */
  readonly drop: readonly string[];
  /** Declared indexes to create after the drops. */
  readonly create: readonly DeclaredIndex[];
}

/** Key order matters to an index: compared as ordered [field, direction] pairs. */
function sameKeys(a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): boolean {
  return JSON.stringify(Object.entries(a)) === JSON.stringify(Object.entries(b));
}

function sameOptions(existing: ExistingIndex, declared: DeclaredIndex): boolean {
  return (
    (existing.unique ?? false) === (declared.unique ?? false) &&
    JSON.stringify(existing.partialFilterExpression ?? null) ===
      JSON.stringify(declared.partialFilterExpression ?? null)
  );
}

export function planIndexes(
  existing: readonly ExistingIndex[],
  declared: readonly DeclaredIndex[],
): IndexPlan {
  const drop = new Set<string>();
  const create: DeclaredIndex[] = [];
  for (const index of declared) {
    const same = existing.find(
      (found) => found.name === index.name && sameKeys(found.key, index.keys) && sameOptions(found, index),
    );
    if (same) continue;
    for (const found of existing) {
      if (found.name === '_id_') continue;
      if (found.name === index.name || sameKeys(found.key, index.keys)) drop.add(found.name);
    }
    create.push(index);
  }
  return { drop: [...drop], create };
}

/** Applies planIndexes to a collection (which must exist: listIndexes fails on a missing namespace). */
export async function reconcileIndexes<T extends Document>(
  target: Collection<T>,
  declared: readonly DeclaredIndex[],
): Promise<IndexPlan> {
  const existing = (await target.listIndexes().toArray()) as unknown as ExistingIndex[];
  const plan = planIndexes(existing, declared);
  for (const name of plan.drop) {
    try {
      await target.dropIndex(name);
    } catch (error) {
      if (!(error instanceof MongoServerError && error.code === INDEX_NOT_FOUND)) throw error;
    }
  }
  for (const index of plan.create) {
    await target.createIndex(
      { ...index.keys },
      {
        name: index.name,
        ...(index.unique ? { unique: true } : {}),
        ...(index.partialFilterExpression ? { partialFilterExpression: index.partialFilterExpression } : {}),
      },
    );
  }
  return plan;
}
