/**
 * The hash chain of the EventStoreDB log on a live server (ADR 0079): appends chain stream hashes (also when
 * writers race without an expectation), sealers cannot fork `_event-chain`, checkpoints are signed and checked,
 * erasure is reported as erased spans, and an event written past the adapter is named. The verification logic
 * itself is unit-tested without a server (test/unit/event-store/esdb-event-chain.test.ts). Without EVENTSTORE_URL
 * or a container runtime the leg is registered with describe.skip and says why.
 *
 * The server may be shared and persistent (EVENTSTORE_URL): every verification starts at the head this file
 * found, and the tampering case comes last.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventStoreDBClient, jsonEvent } from '@eventstore/db-client';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { systemClock } from '../../../src/platform/clock/clock.js';
import { CheckpointSigner } from '../../../src/platform/event-store/checkpoint-signer.js';
import { CHECKPOINT_STREAM } from '../../../src/platform/event-store/event-log-integrity.js';
import { type NewEvent, WrongExpectedVersion } from '../../../src/platform/event-store/event-store.port.js';
import {
  CHAIN_STREAM,
  decodeChainRecord,
} from '../../../src/platform/event-store/eventstoredb/esdb-event-chain.js';
import { EventStoreDbEventStore } from '../../../src/platform/event-store/eventstoredb/eventstoredb-event-store.js';
import type { GlobalPosition } from '../../../src/platform/event-store/global-position.js';
import { TamperEvidence } from '../../../src/platform/event-store/tamper-evidence.js';
import { announceSkip, resolveEventStoreDbTarget } from '../../support/eventstoredb.js';

function event(type: string, data: unknown): NewEvent {
  const id = randomUUID();
  return {
    id,
    type,
    schemaVersion: 1,
    data,
    metadata: {
      actor: 'account:alice',
      payer: 'account:alice',
      scope: null,
      correlationId: id,
      causationId: id,
    },
  };
}

const target = await resolveEventStoreDbTarget();

/** The cases, given the server's URL and how to stop it; registered skipped (and never run) without a server. */
function chainCases(url: string, stop: () => Promise<void>) {
  return () => {
    let store: EventStoreDbEventStore;
    let evidence: TamperEvidence;
    let keyDir: string;
    /** Where this file started: earlier runs on a shared server are not its business. */
    let from: GlobalPosition | null;
    const run = randomUUID().slice(0, 8);

    beforeAll(async () => {
      store = EventStoreDbEventStore.fromConnectionString(url);
      await store.init();
      keyDir = mkdtempSync(join(tmpdir(), 'esdb-chain-key-'));
      evidence = new TamperEvidence(store, CheckpointSigner.load({ dataDir: keyDir }), systemClock);
      from = await store.headPosition();
    });

    afterAll(async () => {
      await store.close();
      await stop();
      rmSync(keyDir, { recursive: true, force: true });
    });

    it('chains appends, seals them, signs a checkpoint and verifies', async () => {
      await store.append(`account-${run}`, [event('AccountOpened', { email: 'a@example.com' })], {
        expectedVersion: 'no_stream',
      });
      await store.append(
        `ledger-${run}`,
        [event('CreditsPurchased', { amount: 7 }), event('CreditsSpent', { amount: 2 })],
        { expectedVersion: 'any' },
      );
      await store.append(`account-${run}`, [event('EmailChanged', { email: 'b@example.com' })], {
        expectedVersion: 0,
      });
      const checkpoint = await evidence.checkpoint();
      expect(checkpoint).not.toBeNull();
      expect(await evidence.latestCheckpoint()).toEqual(checkpoint);
      expect(await store.streamVersion(CHECKPOINT_STREAM)).not.toBeNull();
      const report = await evidence.verify({ from });
      expect(report.finding).toBeNull();
      expect(report.eventsChecked).toBeGreaterThanOrEqual(4);
      expect(report.checkpointsChecked).toBeGreaterThanOrEqual(1);
      expect(report.lastVerifiedCheckpoint?.chainIndex).toBeGreaterThanOrEqual(checkpoint!.chainIndex);
    });

    it('chains appends without an expectation that race for the same stream, and keeps them idempotent', async () => {
      const stream = `race-${run}`;
      const racing = Array.from({ length: 8 }, (_, i) => event('Raced', { i }));
      await Promise.all(racing.map((each) => store.append(stream, [each], { expectedVersion: 'any' })));
      const again = await store.append(stream, [racing[7]!], { expectedVersion: 'any' });
      const stored = await store.readStream(stream);
      expect(stored).toHaveLength(8);
      expect(again.nextExpectedVersion).toBe(stored.find((e) => e.id === racing[7]!.id)!.streamVersion);
      await evidence.seal();
      expect((await evidence.verify({ from })).finding).toBeNull();
    });

    it('still refuses a stale version of the caller', async () => {
      const stream = `stale-${run}`;
      await store.append(stream, [event('A', {})], { expectedVersion: 'no_stream' });
      await store.append(stream, [event('B', {})], { expectedVersion: 0 });
      await expect(store.append(stream, [event('C', {})], { expectedVersion: 0 })).rejects.toBeInstanceOf(
        WrongExpectedVersion,
      );
    });

    it('lets two sealers race without forking the chain', async () => {
      const other = EventStoreDbEventStore.fromConnectionString(url);
      await other.init();
      try {
        for (let i = 0; i < 5; i += 1)
          await store.append(`sealers-${run}`, [event('Sealed', { i })], { expectedVersion: 'any' });
        const [a, b] = await Promise.all([store.integrity.seal(), other.integrity.seal()]);
        expect(a?.chainIndex).toBe(b?.chainIndex);
        const client = EventStoreDBClient.connectionString(url);
        try {
          let expectedFirst = 0;
          for await (const resolved of client.readStream(CHAIN_STREAM)) {
            const record = decodeChainRecord(resolved.event?.data);
            expect(record?.firstIndex).toBe(expectedFirst);
            expectedFirst += record!.entries.length;
          }
          expect(expectedFirst).toBe(a!.chainIndex + 1);
        } finally {
          await client.dispose();
        }
      } finally {
        await other.close();
      }
    });

    it('reports an erased stream as an erased span', async () => {
      const stream = `scope-${run}`;
      await store.append(stream, [event('ScopeCreated', { host: 'example.com' })], {
        expectedVersion: 'no_stream',
      });
      await store.append(stream, [event('HostAdded', { host: 'www.example.com' })], { expectedVersion: 0 });
      const [erasure] = [event('ScopeErased', { scope: stream })];
      await store.append(`audit-${run}`, [erasure!], { expectedVersion: 'no_stream' });
      await evidence.seal();
      await store.eraseStream(stream, { by: erasure!.id, at: new Date().toISOString() });
      const report = await evidence.verify({ from });
      expect(report.finding).toBeNull();
      expect(report.erasedSpans).toEqual([
        expect.objectContaining({ streamId: stream, fromVersion: 0, toVersion: 1, erasedBy: erasure!.id }),
      ]);
    });

    it('names an event written past the adapter, without hashes, as inserted', async () => {
      const client = EventStoreDBClient.connectionString(url);
      try {
        const written = await client.appendToStream(
          `foreign-${run}`,
          jsonEvent({ type: 'Foreign', data: { by: 'another client' } }),
        );
        const report = await evidence.verify({ from });
        expect(report.finding).toMatchObject({ kind: 'inserted', streamId: `foreign-${run}` });
        expect(report.finding?.position).not.toBeNull();
        expect(written.success).toBe(true);
      } finally {
        await client.dispose();
      }
    });
  };
}

if ('skipped' in target) {
  announceSkip(`EventStoreDB hash chain leg skipped: ${target.skipped}`);
  describe.skip(
    `the EventStoreDB hash chain (skipped: ${target.skipped})`,
    chainCases('', () => Promise.resolve()),
  );
} else {
  describe(
    'the EventStoreDB hash chain',
    chainCases(target.url, () => target.stop()),
  );
}
