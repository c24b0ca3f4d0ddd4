import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port.js';
import {
  checkpointKey,
  physicalCollectionName,
  type ProjectionDefinition,
} from '../../src/platform/projections/projection-definition.js';
import {
  generationsKey,
  type ProjectionGenerations,
} from '../../src/platform/projections/projection-engine.js';
import { ProjectionMaintenance } from '../../src/platform/projections/projection-maintenance.js';
import {
  ProjectionRunner,
  projectionStateKey,
  type ReportedProjectionState,
} from '../../src/platform/projections/projection-runner.js';
import type { ReadDocument } from '../../src/platform/read-store/read-store.port.js';
import { SQL_KINDS } from '../support/databases.js';
import { createTestStorage, newEvents, uniqueId, waitUntil, type TestStorage } from '../support/storage.js';

/** A counter per stream plus a running total: enough state to notice a skipped or doubled event. */
interface CounterDocument {
  readonly id: string;
  readonly count: number;
  readonly sum: number;
  readonly lastVersion: number;
  readonly [field: string]: unknown;
}

const failures = { onValue: -1 };

function counterProjection(name = 'test-counters'): ProjectionDefinition {
  return {
    name,
    version: 1,
    collections: {
      [`${name.replace(/-/g, '_')}_docs`]: { indexes: [{ name: 'by_count', fields: [['count', -1]] }] },
    },
    handles: ['Counted'],
    reads: (event) => [{ collection: `${name.replace(/-/g, '_')}_docs`, id: event.streamId }],
    apply(event: RecordedEvent, view) {
      const collection = `${name.replace(/-/g, '_')}_docs`;
      const value = (event.data as { value: number }).value;
      if (value === failures.onValue) throw new Error(`refusing value ${value}`);
      const current = view.get<CounterDocument>(collection, event.streamId);
      if (current && current.lastVersion !== event.streamVersion - 1) {
        throw new Error(
          `stream ${event.streamId} skipped from ${current.lastVersion} to ${event.streamVersion}`,
        );
      }
      view.put(collection, {
        id: event.streamId,
        count: (current?.count ?? 0) + 1,
        sum: (current?.sum ?? 0) + value,
        lastVersion: event.streamVersion,
      });
    },
  };
}

/**
 * What a rebuild carries from page to page (ADR 103) under stress: documents read again after being forgotten,
 * patches of documents the batch never read, and a deleteWhere over documents it does not know.
 */
function marksProjection(): ProjectionDefinition {
  const valueOf = (event: RecordedEvent) => (event.data as { value: number }).value;
  return {
    name: 'test-marks',
    version: 1,
    collections: { test_marks: {} },
    handles: ['Counted'],
    reads: (event) => (valueOf(event) % 4 === 0 ? [{ collection: 'test_marks', id: event.streamId }] : []),
    apply(event: RecordedEvent, view) {
      const value = valueOf(event);
      if (value % 4 === 0) {
        const current = view.get<ReadDocument>('test_marks', event.streamId);
        view.put('test_marks', {
          id: event.streamId,
          reads: ((current?.reads as number | undefined) ?? 0) + 1,
          seen: current?.last ?? null,
          last: value,
        });
      } else {
        view.patch('test_marks', event.streamId, { last: value, [`v${value % 3}`]: value });
      }
      if (value % 11 === 0) view.deleteWhere('test_marks', { last: { $lt: value - 3 } });
    },
  };
}

async function appendCounted(
  storage: TestStorage,
  streams: number,
  eventsPerStream: number,
  prefix = uniqueId('c'),
): Promise<string[]> {
  const ids = Array.from({ length: streams }, (_, i) => `${prefix}${i}`);
  for (let version = 0; version < eventsPerStream; version += 10) {
    await Promise.all(
      ids.map((stream) =>
        storage.eventStore.append(
          stream,
          newEvents(
            `${stream}-v${version}`,
            Array.from({ length: Math.min(10, eventsPerStream - version) }, (_, i) => ({
              type: 'Counted',
              data: { value: version + i + 1 },
            })),
          ),
          { expectedVersion: version === 0 ? 'no_stream' : version - 1 },
        ),
      ),
    );
  }
  return ids;
}

describe.each(SQL_KINDS)('projection runner on %s', (kind) => {
  let storage: TestStorage;
  const runners: ProjectionRunner[] = [];
  const newRunner = (
    definitions: ProjectionDefinition[],
    batchSize = 100,
    onBatchApplied?: (projection: string) => void,
  ): ProjectionRunner => {
    const runner = new ProjectionRunner(storage.eventStore, storage.readStore, definitions, {
      batchSize,
      generationCheckMs: 50,
      retryDelayMs: [10, 100],
      ...(onBatchApplied ? { onBatchApplied } : {}),
    });
    runners.push(runner);
    return runner;
  };

  beforeEach(async () => {
    failures.onValue = -1;
    storage = await createTestStorage(kind);
  });

  afterEach(async () => {
    for (const runner of runners.splice(0)) await runner.stop();
    await storage.dispose();
  });

  it('events a projection does not handle write no batch of their own; the checkpoint follows within a second', async () => {
    const definition = counterProjection();
    const written: string[] = [];
    const runner = newRunner([definition], 100, (projection) => written.push(projection));
    await runner.start();
    const [stream] = await appendCounted(storage, 1, 1);
    const counted = await storage.eventStore.headPosition();
    expect(await runner.waitFor([definition.name], counted!, 10_000)).toBe(true);
    const writesBefore = written.length;
    // Events of another type: in-process waiters see the projection pass them at once, without a write.
    for (let i = 0; i < 5; i++) {
      await storage.eventStore.append(
        uniqueId('other'),
        newEvents(uniqueId('cmd'), [{ type: 'Unrelated', data: {} }]),
        { expectedVersion: 'no_stream' },
      );
      const head = await storage.eventStore.headPosition();
      expect(await runner.waitFor([definition.name], head!, 10_000)).toBe(true);
    }
    const head = await storage.eventStore.headPosition();
    const stored = async () =>
      (await storage.readStore.getCheckpoint(checkpointKey(definition.name, 1)))?.position ?? null;
    expect(written.length - writesBefore).toBeLessThan(5);
    // The stored checkpoint catches up on its own, once (what a restart and other processes read).
    await waitUntil(async () => (await stored()) === head, 5_000);
    expect((await storage.readStore.getCheckpoint(checkpointKey(definition.name, 1)))?.details).toMatchObject(
      {
        eventsApplied: 6,
      },
    );
    // A handled event afterwards is applied normally, with the skipped ones counted once.
    await storage.eventStore.append(
      stream!,
      newEvents('after-skip', [{ type: 'Counted', data: { value: 5 } }]),
      {
        expectedVersion: 0,
      },
    );
    const last = await storage.eventStore.headPosition();
    expect(await runner.waitFor([definition.name], last!, 10_000)).toBe(true);
    await waitUntil(async () => (await stored()) === last, 5_000);
    expect((await storage.readStore.getCheckpoint(checkpointKey(definition.name, 1)))?.details).toMatchObject(
      {
        eventsApplied: 7,
      },
    );
    const docs = runner.collection<CounterDocument>(definition.name, 'test_counters_docs');
    expect((await docs.get(stream!))?.sum).toBe(6);
  });

  it('projections handling the same page commit their batches together, each exactly once', async () => {
    const definitions = ['group-one', 'group-two', 'group-three'].map((name) => counterProjection(name));
    const groups: number[] = [];
    const applyBatches = storage.readStore.applyBatches!.bind(storage.readStore);
    storage.readStore.applyBatches = (batches) => {
      groups.push(batches.length);
      return applyBatches(batches);
    };
    const runner = newRunner(definitions, 100);
    await runner.start();
    const streams = await appendCounted(storage, 3, 20);
    for (let i = 0; i < 5; i++) {
      await storage.eventStore.append(
        streams[0]!,
        newEvents(uniqueId('more'), [{ type: 'Counted', data: { value: 1 } }]),
        { expectedVersion: 19 + i },
      );
    }
    // Under a busy server the visible head may lag the appends: wait for every event instead.
    const applied = async (name: string) =>
      (
        (await storage.readStore.getCheckpoint(checkpointKey(name, 1)))?.details as
          { eventsApplied?: number } | undefined
      )?.eventsApplied ?? 0;
    for (const definition of definitions)
      await waitUntil(async () => (await applied(definition.name)) === 65, 10_000);
    // One transaction carried several projections' batches (one per projection before).
    expect(Math.max(0, ...groups)).toBeGreaterThan(1);
    for (const definition of definitions) {
      const docs = runner.collection<CounterDocument>(
        definition.name,
        Object.keys(definition.collections)[0]!,
      );
      expect((await docs.get(streams[0]!))?.count).toBe(25);
      expect((await docs.get(streams[1]!))?.sum).toBe(210);
      expect(await applied(definition.name)).toBe(65);
    }
  });

  it('catches up from the start, then follows new events live; commands can wait for their position', async () => {
    const definition = counterProjection();
    const streams = await appendCounted(storage, 5, 20);
    const runner = newRunner([definition]);
    await runner.start();
    const head = await storage.eventStore.headPosition();
    expect(await runner.waitFor([definition.name], head!, 10_000)).toBe(true);
    const docs = runner.collection<CounterDocument>(definition.name, 'test_counters_docs');
    expect(await docs.count()).toBe(5);
    expect((await docs.get(streams[0]!))?.sum).toBe((20 * 21) / 2);

    const appended = await storage.eventStore.append(
      streams[0]!,
      newEvents('live-1', [{ type: 'Counted', data: { value: 1000 } }]),
      {
        expectedVersion: 19,
      },
    );
    expect(await runner.waitFor([definition.name], appended.position, 10_000)).toBe(true);
    expect((await docs.get(streams[0]!))?.count).toBe(21);
    await waitUntil(() => runner.allLive());
  });

  it('killed mid-catch-up and restarted, the read model equals a fresh rebuild', async () => {
    const definition = counterProjection();
    await appendCounted(storage, 40, 50); // 2,000 events
    let batchesApplied = 0;
    let killed: Promise<void> | undefined;
    const first: ProjectionRunner = newRunner([definition], 25, () => {
      if (++batchesApplied === 10) killed = first.stop(); // the kill, in the middle of the catch-up
    });
    await first.start();
    await waitUntil(() => killed !== undefined);
    await killed;
    const partial = await storage.readStore.getCheckpoint(checkpointKey(definition.name, 1));
    const head = await storage.eventStore.headPosition();
    expect(partial?.position).not.toBe(head);
    expect((partial?.details as { eventsApplied: number }).eventsApplied).toBe(250);

    const second = newRunner([definition], 25);
    await second.start();
    expect(await second.waitFor([definition.name], head!, 20_000)).toBe(true);
    const maintenance = new ProjectionMaintenance(second.engine, { dropGraceMs: 0 });
    const verdict = await maintenance.verify(definition);
    expect(verdict.equal).toBe(true);
    expect(verdict.documentsCompared).toBe(40);
  });

  it('a handler that throws stops that projection with the error in its status and never skips the event', async () => {
    const definition = counterProjection();
    const [stream] = await appendCounted(storage, 1, 5);
    failures.onValue = 3;
    const runner = newRunner([definition], 1);
    await runner.start();
    await waitUntil(() => runner.states()[0]!.state === 'stopped');
    const state = runner.states()[0]!;
    expect(state.lastError).toContain('refusing value 3');
    // The in-memory state turns first; the stored report (best effort, for other instances) follows it.
    const reported = () =>
      storage.readStore.getMeta<ReportedProjectionState>(projectionStateKey(definition.name));
    await waitUntil(async () => (await reported())?.state === 'stopped');
    expect((await reported())?.lastError).toContain('refusing value 3');
    const docs = runner.collection<CounterDocument>(definition.name, 'test_counters_docs');
    expect((await docs.get(stream!))?.count).toBe(2); // events 1 and 2 applied, 3 not skipped

    failures.onValue = -1; // the fix is deployed
    await runner.startProjection(definition.name);
    const head = await storage.eventStore.headPosition();
    expect(await runner.waitFor([definition.name], head!, 10_000)).toBe(true);
    expect((await docs.get(stream!))?.count).toBe(5);
    expect((await docs.get(stream!))?.sum).toBe(15);
  });

  it('rebuilds beside the live version while queries keep being served, then switches and drops the old one', async () => {
    const definition = counterProjection();
    await appendCounted(storage, 100, 30); // 3,000 events
    const runner = newRunner([definition], 200);
    await runner.start();
    const head = await storage.eventStore.headPosition();
    expect(await runner.waitFor([definition.name], head!, 20_000)).toBe(true);

    const maintenance = new ProjectionMaintenance(runner.engine, {
      dropGraceMs: 100,
      pageSize: 100,
      onSwitched: (name) => runner.generationSwitched(name),
    });
    const answers: number[] = [];
    let querying = true;
    const queries = (async () => {
      while (querying) {
        answers.push(await runner.collection(definition.name, 'test_counters_docs').count());
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const result = await maintenance.rebuild(definition);
    await waitUntil(() => runner.states()[0]!.generation === 2);
    for (let i = 0; i < 20; i++)
      answers.push(await runner.collection(definition.name, 'test_counters_docs').count());
    querying = false;
    await queries;

    expect(result.events).toBe(3000);
    expect(result.generation).toBe(2);
    expect(answers.length).toBeGreaterThan(20);
    expect(new Set(answers)).toEqual(new Set([100])); // never empty, never partial
    const generations = await storage.readStore.getMeta<ProjectionGenerations>(
      generationsKey(definition.name),
    );
    expect(generations).toEqual({ live: 2, version: 1 });
    const tables = await storage.readStore.listCollections('test_counters_docs');
    expect(tables).toEqual([physicalCollectionName('test_counters_docs', 2)]);

    // The live run follows the new generation.
    const appended = await storage.eventStore.append(
      'after-rebuild',
      newEvents('after', [{ type: 'Counted', data: { value: 7 } }]),
      {
        expectedVersion: 'no_stream',
      },
    );
    expect(await runner.waitFor([definition.name], appended.position, 10_000)).toBe(true);
    expect(await runner.collection(definition.name, 'test_counters_docs').count()).toBe(101);
  });

  it('rebuilds several projections in one pass: each equals its live version, switches, and drops the old one', async () => {
    const definitions = ['all-one', 'all-two'].map((name) => counterProjection(name));
    const streams = await appendCounted(storage, 4, 15);
    const runner = newRunner(definitions);
    await runner.start();
    const applied = async (name: string, generation: number) =>
      (
        (await storage.readStore.getCheckpoint(checkpointKey(name, generation)))?.details as
          { eventsApplied?: number } | undefined
      )?.eventsApplied ?? 0;
    for (const definition of definitions)
      await waitUntil(async () => (await applied(definition.name, 1)) === 60);
    const maintenance = new ProjectionMaintenance(runner.engine, {
      dropGraceMs: 100,
      pageSize: 25,
      onSwitched: (name) => runner.generationSwitched(name),
    });

    const results = await maintenance.rebuildAll(definitions);

    expect(results.map((result) => [result.projection, result.generation, result.events])).toEqual([
      ['all-one', 2, 60],
      ['all-two', 2, 60],
    ]);
    expect(results.map((result) => result.droppedGenerations)).toEqual([[1], [1]]);
    for (const definition of definitions) {
      const collection = Object.keys(definition.collections)[0]!;
      expect(await storage.readStore.getMeta<ProjectionGenerations>(generationsKey(definition.name))).toEqual(
        {
          live: 2,
          version: 1,
        },
      );
      expect(await storage.readStore.listCollections(collection)).toEqual([
        physicalCollectionName(collection, 2),
      ]);
      expect(await applied(definition.name, 2)).toBe(60);
      const docs = runner.collection<CounterDocument>(definition.name, collection);
      expect((await docs.get(streams[3]!))?.count).toBe(15);
      expect((await docs.get(streams[3]!))?.sum).toBe(120);
      // Verify rebuilds to the side and compares every document with the rebuilt live generation.
      expect((await maintenance.verify(definition)).equal).toBe(true);
    }
  });

  it('a rebuild carrying documents between small pages, forgetting all but one, equals the live projection', async () => {
    const definition = marksProjection();
    const streams = await appendCounted(storage, 6, 30);
    const runner = newRunner([definition], 50);
    await runner.start();
    const head = await storage.eventStore.headPosition();
    expect(await runner.waitFor([definition.name], head!, 20_000)).toBe(true);
    const documents = async (generation: number) =>
      storage.readStore
        .collection(physicalCollectionName('test_marks', generation))
        .find({}, { sort: [['id', 1]] });
    const live = await documents(1);
    // Marks were read back, after pages of patches the batches never read.
    expect(live.map((document) => document.id)).toEqual([...streams].sort());
    expect(live.some((document) => (document.reads as number) > 1)).toBe(true);
    const maintenance = new ProjectionMaintenance(runner.engine, {
      dropGraceMs: 50,
      pageSize: 7,
      knownDocumentsPerCollection: 1,
      onSwitched: (name) => runner.generationSwitched(name),
    });

    await maintenance.rebuildAll([definition]);
    expect(await documents(2)).toEqual(live);
    await maintenance.rebuild(definition);
    expect(await documents(3)).toEqual(live);
  });

  it('a rebuild reports its rate over its whole wall time, grace period and drops included', async () => {
    const definition = counterProjection();
    await appendCounted(storage, 10, 10); // 100 events
    const runner = newRunner([definition]);
    await runner.start();
    const head = await storage.eventStore.headPosition();
    expect(await runner.waitFor([definition.name], head!, 10_000)).toBe(true);
    const maintenance = new ProjectionMaintenance(runner.engine, {
      dropGraceMs: 600,
      onSwitched: (name) => runner.generationSwitched(name),
    });

    const started = performance.now();
    const result = await maintenance.rebuild(definition);
    const wall = (performance.now() - started) / 1000;

    expect(result.events).toBe(100);
    expect(result.seconds).toBeGreaterThanOrEqual(0.6); // the grace period is part of the rebuild
    expect(result.seconds).toBeLessThanOrEqual(wall);
    expect(result.seconds).toBeGreaterThan(wall - 0.05);
    expect(result.eventsPerSecond).toBe(Math.round(100 / result.seconds));
    expect(result.droppedGenerations).toEqual([1]);
  });

  it('verify says equal after a rebuild and names the document after one is tampered with', async () => {
    const definition = counterProjection();
    const streams = await appendCounted(storage, 10, 10);
    const runner = newRunner([definition]);
    await runner.start();
    const head = await storage.eventStore.headPosition();
    expect(await runner.waitFor([definition.name], head!, 10_000)).toBe(true);
    const maintenance = new ProjectionMaintenance(runner.engine, {
      dropGraceMs: 0,
      onSwitched: (name) => runner.generationSwitched(name),
    });
    await maintenance.rebuild(definition);
    await waitUntil(() => runner.states()[0]!.generation === 2);
    expect((await maintenance.verify(definition)).equal).toBe(true);

    const tampered = streams[3]!;
    await storage.readStore
      .collection(physicalCollectionName('test_counters_docs', 2))
      .patch(tampered, { sum: -1 });
    const verdict = await maintenance.verify(definition);
    expect(verdict.equal).toBe(false);
    expect(verdict.differences.map((d) => `${d.collection}/${d.id}`)).toEqual([
      `test_counters_docs/${tampered}`,
    ]);
    expect(verdict.differences[0]?.live).toMatchObject({ sum: -1 });
    expect(verdict.differences[0]?.rebuilt).toMatchObject({ sum: 55 });
    // Verification never leaves its side generation behind.
    expect(await storage.readStore.listCollections('test_counters_docs')).toEqual([
      physicalCollectionName('test_counters_docs', 2),
    ]);
  });

  it('two runners on the same projection never apply an event twice', async () => {
    const definition = counterProjection();
    await appendCounted(storage, 20, 20);
    const a = newRunner([definition], 10);
    const b = newRunner([definition], 10);
    await Promise.all([a.start(), b.start()]);
    const head = await storage.eventStore.headPosition();
    await waitUntil(
      async () =>
        (await storage.readStore.getCheckpoint(checkpointKey(definition.name, 1)))?.position === head,
      20_000,
    );
    const docs = await a.collection<CounterDocument>(definition.name, 'test_counters_docs').find();
    expect(docs).toHaveLength(20);
    for (const doc of docs) expect(doc).toMatchObject({ count: 20, sum: 210, lastVersion: 19 });
  });

  it('two live runners keep no stale document: what one applied ends the other attempt (ADR 111)', async () => {
    // Each live run carries the documents its batches wrote; the counter throws on a skipped version, so a
    // document the other runner moved on since would stop the projection instead of passing unnoticed.
    const definition = counterProjection();
    const streams = await appendCounted(storage, 4, 10);
    const a = newRunner([definition], 3);
    const b = newRunner([definition], 3);
    await Promise.all([a.start(), b.start()]);
    for (let round = 1; round <= 4; round++) {
      await Promise.all(
        streams.map((stream, index) =>
          storage.eventStore.append(
            stream,
            newEvents(`${stream}-live${round}`, [
              { type: 'Counted', data: { value: 10 + round } },
              { type: 'Counted', data: { value: 10 + round + index } },
            ]),
            { expectedVersion: 10 + 2 * (round - 1) - 1 },
          ),
        ),
      );
      const head = (await storage.eventStore.headPosition())!;
      const reached = await Promise.all(
        [a, b].map((runner) => runner.waitFor([definition.name], head, 20_000)),
      );
      // A stopped runner says why (a skipped version is a stale document).
      expect([a, b].map((runner) => runner.states()[0]?.lastError ?? null)).toEqual([null, null]);
      expect(reached).toEqual([true, true]);
    }
    const docs = await a.collection<CounterDocument>(definition.name, 'test_counters_docs').find();
    expect(docs).toHaveLength(4);
    for (const doc of docs) expect(doc).toMatchObject({ count: 18, lastVersion: 17 });
  });
});
