/**
 * Replays a log through a projection one event per batch, in memory, with the engine's own BatchView: every
 * document an event's handler reads must have been declared by `reads()` for that event alone. A live runner
 * cuts batches wherever the log happens to be, so a handler that only worked because an earlier event of the
 * same batch had declared its document stops the projection in production. This finds it on any log.
 */
import { expect } from '@jest/globals';
import { allProjections } from '../../projections/index.js';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port.js';
import { BatchView } from '../../src/platform/projections/batch-view.js';
import type { ProjectionDefinition } from '../../src/platform/projections/projection-definition.js';
import { InMemoryDocuments } from '../../src/platform/projections/in-memory-documents.js';
import type { ReadDocument } from '../../src/platform/read-store/read-store.port.js';
import { waitForProjections, type TestService } from './service.js';

/** Every projection, fed this service's whole log one event per batch, builds the documents it holds live. */
export async function expectOneEventBatchesToRebuildLiveDocuments(service: TestService): Promise<void> {
  const store = service.context.storage.eventStore;
  await waitForProjections(
    service,
    allProjections.map((definition) => definition.name),
  );
  const events = await store.readAll({ after: null, limit: 1_000_000 });
  expect(events.length).toBeGreaterThan(0);
  const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  for (const definition of allProjections) {
    const rebuilt = replayOneEventPerBatch(definition, events);
    for (const name of Object.keys(definition.collections)) {
      const live = await service.context.projections.collection(definition.name, name).find({});
      const key = `${definition.name}/${name}`;
      expect({ [key]: [...(rebuilt.get(name)?.values() ?? [])].sort(byId) }).toEqual({
        [key]: [...live].sort(byId),
      });
    }
  }
}

export function replayOneEventPerBatch(
  definition: ProjectionDefinition,
  events: readonly RecordedEvent[],
): Map<string, Map<string, ReadDocument>> {
  const documents = new InMemoryDocuments();
  const handled = new Set(definition.handles);
  for (const event of events) {
    if (!handled.has('*') && !handled.has(event.type)) continue;
    const view = new BatchView(definition.name, (name) => name);
    const wanted = new Map<string, Set<string>>();
    for (const ref of definition.reads?.(event) ?? []) {
      if (!wanted.has(ref.collection)) wanted.set(ref.collection, new Set());
      wanted.get(ref.collection)!.add(ref.id);
    }
    for (const [name, ids] of wanted) {
      const found = [...ids].flatMap((id) => {
        const document = documents.collection(name).get(id);
        return document ? [structuredClone(document)] : [];
      });
      view.load(name, ids, found);
    }
    try {
      definition.apply(event, view);
    } catch (error) {
      throw new Error(
        `${definition.name} failed on ${event.type} (${event.streamId}@${event.streamVersion}) alone in its batch: ${String(error)}`,
        { cause: error },
      );
    }
    documents.apply(view.changes);
  }
  return documents.collections;
}
