/**
 * A batch of document changes folded into set-based steps with the same outcome as applying them one by one.
 */
import type { DocumentChange, Filter, ReadDocument } from '../read-store.port.js';
import { assertCollectionName, assertDocumentId } from './read-store-names.js';

export interface Patch {
  readonly fields: Record<string, unknown>;
  readonly removed: Set<string>;
}

/** What a run of changes leaves of one document. */
export type NetChange =
  | { readonly kind: 'put'; readonly document: ReadDocument }
  | { readonly kind: 'delete' }
  | { readonly kind: 'patch'; readonly patch: Patch };

export type BatchStep =
  | { readonly kind: 'write'; readonly collection: string; readonly changes: ReadonlyMap<string, NetChange> }
  | { readonly kind: 'deleteWhere'; readonly collection: string; readonly filter: Filter };

/**
 * Folds the changes into set-based steps with the same outcome as applying them one by one. Collections are
 * independent, so only a deleteWhere needs the pending writes of its own collection to be flushed before it.
 */
export function planBatch(changes: readonly DocumentChange[]): BatchStep[] {
  const steps: BatchStep[] = [];
  const pending = new Map<string, Map<string, NetChange>>();
  const flush = (collection: string): void => {
    const writes = pending.get(collection);
    if (writes) steps.push({ kind: 'write', collection, changes: writes });
    pending.delete(collection);
  };
  for (const change of changes) {
    assertCollectionName(change.collection);
    if (change.kind === 'deleteWhere') {
      flush(change.collection);
      steps.push({ kind: 'deleteWhere', collection: change.collection, filter: change.filter });
      continue;
    }
    let writes = pending.get(change.collection);
    if (!writes) pending.set(change.collection, (writes = new Map()));
    const id = change.kind === 'upsert' ? change.document.id : change.id;
    assertDocumentId(id);
    const next = fold(writes.get(id), change);
    // Re-inserted so rows are written in the order of their last change.
    writes.delete(id);
    writes.set(id, next);
  }
  for (const collection of [...pending.keys()]) flush(collection);
  return steps;
}

export function fold(
  previous: NetChange | undefined,
  change: Exclude<DocumentChange, { kind: 'deleteWhere' }>,
): NetChange {
  switch (change.kind) {
    case 'upsert':
      return { kind: 'put', document: change.document };
    case 'delete':
      return { kind: 'delete' };
    case 'patch': {
      const patch = patchOf(change.fields);
      if (!previous) return { kind: 'patch', patch };
      if (previous.kind === 'delete') return previous; // patching a missing document changes nothing
      if (previous.kind === 'put') return { kind: 'put', document: applyPatch(previous.document, patch) };
      return { kind: 'patch', patch: composePatches(previous.patch, patch) };
    }
  }
}

/** JSON has no undefined: fields set to undefined become an explicit list of removed fields. */
export function patchOf(fields: Readonly<Record<string, unknown>>): Patch {
  const patch: Patch = { fields: {}, removed: new Set() };
  for (const [field, value] of Object.entries(fields)) {
    if (field === 'id') continue; // the id never changes
    if (value === undefined) patch.removed.add(field);
    else patch.fields[field] = value;
  }
  return patch;
}

export function applyPatch(document: ReadDocument, patch: Patch): ReadDocument {
  const patched: Record<string, unknown> = { ...document, ...patch.fields };
  for (const field of patch.removed) delete patched[field];
  return patched as ReadDocument;
}

/** One patch with the effect of `first` then `second`; its fields and removals never overlap. */
export function composePatches(first: Patch, second: Patch): Patch {
  const composed: Patch = { fields: { ...first.fields }, removed: new Set(first.removed) };
  for (const [field, value] of Object.entries(second.fields)) {
    composed.fields[field] = value;
    composed.removed.delete(field);
  }
  for (const field of second.removed) {
    delete composed.fields[field];
    composed.removed.add(field);
  }
  return composed;
}
