import { matchesFilter } from '../read-store/filter-matcher.js';
import type { DocumentChange, ReadDocument } from '../read-store/read-store.port.js';

/**
 * Read-model documents held in memory, by collection: what a replay builds when it must not touch the read
 * store (`as_of` answers, one-event-batch checks). Changes apply as the read store applies them.
 */
export class InMemoryDocuments {
  readonly collections = new Map<string, Map<string, ReadDocument>>();

  collection(name: string): Map<string, ReadDocument> {
    let documents = this.collections.get(name);
    if (!documents) this.collections.set(name, (documents = new Map()));
    return documents;
  }

  apply(changes: readonly DocumentChange[]): void {
    for (const change of changes) {
      const documents = this.collection(change.collection);
      switch (change.kind) {
        case 'upsert':
          documents.set(change.document.id, structuredClone(change.document));
          break;
        case 'patch': {
          const current = documents.get(change.id);
          if (!current) break;
          const next: Record<string, unknown> = { ...current };
          for (const [key, value] of Object.entries(change.fields)) {
            if (value === undefined) delete next[key];
            else next[key] = structuredClone(value);
          }
          documents.set(change.id, next as ReadDocument);
          break;
        }
        case 'delete':
          documents.delete(change.id);
          break;
        case 'deleteWhere':
          for (const [id, document] of documents)
            if (matchesFilter(document, change.filter)) documents.delete(id);
          break;
      }
    }
  }
}
