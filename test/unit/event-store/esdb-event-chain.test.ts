/**
 * The EventStoreDB hash chain without a server (ADR 0079): events are stored as the adapter stores them
 * (storedMetadata with real salts, digests, content and stream hashes, JSON round trip), sealed into chain
 * records as the sealer seals them, then tampered with one way at a time; the verification walk must name the
 * kind and the position. The walk over a live server is the integration leg (test/integration/platform).
 */
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { CheckpointSigner } from '../../../src/platform/event-store/checkpoint-signer.js';
import { contentHash, sealEvent, ZERO_HASH } from '../../../src/platform/event-store/event-hash.js';
import type {
  ChainCheckpoint,
  VerifyOptions,
} from '../../../src/platform/event-store/event-log-integrity.js';
import { CHECKPOINT_STREAM } from '../../../src/platform/event-store/event-log-integrity.js';
import type { NewEvent } from '../../../src/platform/event-store/event-store.port.js';
import { encodePosition, type GlobalPosition } from '../../../src/platform/event-store/global-position.js';
import {
  type ChainEntry,
  chainEntryOf,
  type ChainRecord,
  chainRecordHead,
  chainStreamHashes,
  decodeChainRecord,
  encodeChainRecord,
  eventIdOf,
  hashedMetadataOf,
  type LoggedEvent,
  nextChainRecord,
  storedStreamHashOf,
  type StreamErasureRecord,
  verifyChainWalk,
} from '../../../src/platform/event-store/eventstoredb/esdb-event-chain.js';
import { storedMetadata } from '../../../src/platform/event-store/eventstoredb/esdb-mapping.js';

const RECORDED_AT = '2026-11-28T08:00:00.000Z';

function newEvent(type: string, data: unknown, actor = 'account:alice'): NewEvent {
  const id = randomUUID();
  return {
    id,
    type,
    schemaVersion: 1,
    data,
    metadata: { actor, payer: actor, scope: null, correlationId: id, causationId: id, surface: 'api' },
  };
}

/** A log as $all would hold it, written the way the adapter's append writes it. */
class Log {
  events: LoggedEvent[] = [];
  chainRecords: ChainRecord[] = [];
  checkpoints: ChainCheckpoint[] = [];
  erasures = new Map<string, StreamErasureRecord>();
  private next = 1;
  readonly signer = CheckpointSigner.fromPem(
    generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  );

  append(streamId: string, ...events: NewEvent[]): LoggedEvent[] {
    const mine = this.events.filter((e) => e.streamId === streamId);
    const last = mine.at(-1);
    const previous = last ? storedStreamHashOf(last.metadata)! : ZERO_HASH;
    const firstVersion = last ? last.streamVersion + 1 : 0;
    const seals = events.map((event) => sealEvent(streamId, event, RECORDED_AT));
    const hashes = chainStreamHashes(
      previous,
      firstVersion,
      seals.map((seal) => seal.contentHash),
    );
    const written = events.map((event, i) => ({
      streamId,
      streamVersion: firstVersion + i,
      type: event.type,
      data: JSON.parse(JSON.stringify(event.data)) as unknown,
      metadata: JSON.parse(
        JSON.stringify(
          storedMetadata(streamId, event, RECORDED_AT, { seal: seals[i]!, streamHash: hashes[i]! }),
        ),
      ) as unknown,
      position: this.position(),
    }));
    this.events.push(...written);
    return written;
  }

  position(): GlobalPosition {
    const n = (this.next += 7);
    return encodePosition(n, n);
  }

  /** What the sealer appends: the unsealed events in chain records of at most `size`. */
  seal(size = 3): void {
    let head = this.chainRecords.length ? chainRecordHead(this.chainRecords.at(-1)!) : null;
    const pending = this.events
      .filter((e) => !head || e.position > head.position)
      .map((e) => chainEntryOf(e)!);
    for (let i = 0; i < pending.length; i += size) {
      const record = nextChainRecord(head, pending.slice(i, i + size));
      this.chainRecords.push(record);
      head = chainRecordHead(record);
    }
  }

  checkpoint(): ChainCheckpoint {
    const checkpoint = this.signer.sign(chainRecordHead(this.chainRecords.at(-1)!), new Date(RECORDED_AT));
    this.checkpoints.push(checkpoint);
    return checkpoint;
  }

  at(streamId: string, version: number): LoggedEvent {
    return this.events.find((e) => e.streamId === streamId && e.streamVersion === version)!;
  }

  replace(event: LoggedEvent, change: Partial<LoggedEvent>): LoggedEvent {
    if (!this.events.includes(event)) throw new Error('the event to replace is not in the log');
    const changed = { ...event, ...change };
    this.events[this.events.indexOf(event)] = changed;
    return changed;
  }

  verify(options: Partial<VerifyOptions> = {}, streamed = false) {
    const events = this.events;
    // The adapter hands the walk an async generator over $all pages; arrays stand for it elsewhere.
    async function* pages(): AsyncGenerator<LoggedEvent> {
      for (const event of events) yield await Promise.resolve(event);
    }
    return verifyChainWalk(
      {
        events: streamed ? pages() : events,
        chainRecords: this.chainRecords.map((record) =>
          decodeChainRecord(JSON.parse(JSON.stringify(encodeChainRecord(record)))),
        ),
        erasures: this.erasures,
        checkpoints: this.checkpoints,
        isStored: (entry: ChainEntry) => this.events.some((e) => eventIdOf(e) === entry.eventId),
        storedStreamHash: (streamId, version) =>
          Promise.resolve(storedStreamHashOf(this.at(streamId, version)?.metadata)),
      },
      { checkSignature: (checkpoint) => this.signer.verify(checkpoint), ...options },
    );
  }
}

/** Three interleaved streams, sealed, with a checkpoint, and two events not sealed yet. */
function sampleLog(): Log {
  const log = new Log();
  log.append('account-a', newEvent('AccountCreated', { email: 'a@example.com' }));
  log.append('account-b', newEvent('AccountCreated', { email: 'b@example.com', n: 1e21 }));
  log.append(
    'account-a',
    newEvent('CreditsGranted', { credits: 5 }),
    newEvent('CreditsSpent', { credits: 2 }),
  );
  log.append('scope-1', newEvent('ScopeCreated', { hosts: ['example.com'] }));
  log.append('account-b', newEvent('CreditsGranted', { credits: 1 }));
  log.append('scope-1', newEvent('HostAdded', { host: 'www.example.com' }));
  log.seal();
  log.checkpoint();
  log.append(CHECKPOINT_STREAM, newEvent('ChainCheckpointSigned', log.checkpoints[0]));
  log.seal();
  log.append('account-a', newEvent('CreditsSpent', { credits: 1 }));
  log.append('account-b', newEvent('CreditsSpent', { credits: 1 }));
  return log;
}

describe('the EventStoreDB chain records and stream hashes', () => {
  it('stores the caller metadata so the content hash can be recomputed from what EventStoreDB returns', () => {
    const event = newEvent('T', { a: 1 });
    const seal = sealEvent('s', event, RECORDED_AT);
    const stored = JSON.parse(
      JSON.stringify(storedMetadata('s', event, RECORDED_AT, { seal, streamHash: ZERO_HASH })),
    ) as unknown;
    expect(hashedMetadataOf(stored)).toEqual(event.metadata);
    const recomputed = contentHash({
      streamId: 's',
      eventId: event.id,
      type: 'T',
      schemaVersion: 1,
      metadata: hashedMetadataOf(stored),
      recordedAt: RECORDED_AT,
      payloadDigest: seal.payloadDigest,
    });
    expect(recomputed.equals(seal.contentHash)).toBe(true);
  });

  it('encodes a chain record as tuples and decodes it back; malformed records decode to null', () => {
    const log = sampleLog();
    const record = log.chainRecords[0]!;
    expect(decodeChainRecord(JSON.parse(JSON.stringify(encodeChainRecord(record))))).toEqual(record);
    expect(record.firstIndex).toBe(0);
    expect(record.previousChainHead).toBe('0'.repeat(64));
    expect(log.chainRecords[1]!.previousChainHead).toBe(record.chainHead);
    expect(decodeChainRecord({ ...encodeChainRecord(record), entries: [] })).toBeNull();
    expect(
      decodeChainRecord({ ...encodeChainRecord(record), entries: [['x', 'id', 's', 0, 'ab']] }),
    ).toBeNull();
  });

  it('chains the stream hashes of a batch to the previous stream hash', () => {
    const log = sampleLog();
    const first = storedStreamHashOf(log.at('account-a', 0).metadata)!;
    const [v1] = chainStreamHashes(first, 1, [Buffer.from(hashedContent(log.at('account-a', 1)), 'hex')]);
    expect(v1!.toString('hex')).toBe((log.at('account-a', 1).metadata as { streamHash: string }).streamHash);
  });
});

/**
 * What someone with write access to the storage and the hash definitions can do: new data for streamId@version,
 * every hash of it recomputed, and the stream hashes of the later events of the stream chained again.
 */
function forgePayload(log: Log, streamId: string, version: number, data: unknown): void {
  const target = log.at(streamId, version);
  const stored = target.metadata as Record<string, string>;
  const forged = sealEvent(
    streamId,
    {
      id: stored.eventId!,
      type: target.type,
      schemaVersion: 1,
      data,
      metadata: hashedMetadataOf(stored),
    },
    stored.recordedAt!,
  );
  log.replace(target, {
    data,
    metadata: {
      ...stored,
      salt: forged.salt.toString('hex'),
      payloadDigest: forged.payloadDigest.toString('hex'),
      contentHash: forged.contentHash.toString('hex'),
    },
  });
  let previous = version === 0 ? ZERO_HASH : storedStreamHashOf(log.at(streamId, version - 1).metadata)!;
  for (const event of log.events.filter((e) => e.streamId === streamId && e.streamVersion >= version)) {
    const metadata = event.metadata as Record<string, string>;
    const [hash] = chainStreamHashes(previous, event.streamVersion, [
      Buffer.from(metadata.contentHash!, 'hex'),
    ]);
    log.replace(event, { metadata: { ...metadata, streamHash: hash!.toString('hex') } });
    previous = hash!;
  }
}

function hashedContent(event: LoggedEvent): string {
  return (event.metadata as { contentHash: string }).contentHash;
}

describe('verifying the EventStoreDB log in $all order', () => {
  it('verifies an untouched log: sealed, unsealed, checkpoints', async () => {
    const log = sampleLog();
    const report = await log.verify();
    expect(report.finding).toBeNull();
    expect(report.ok).toBe(true);
    expect(report.eventsChecked).toBe(10);
    expect(report.unsealed).toBe(2);
    expect(report.sealedThrough).toEqual(chainRecordHead(log.chainRecords.at(-1)!));
    expect(report.checkpointsChecked).toBe(1);
    expect(report.lastVerifiedCheckpoint).toEqual(log.checkpoints[0]);
  });

  it('names a changed payload', async () => {
    const log = sampleLog();
    const target = log.replace(log.at('account-a', 1), { data: { credits: 500 } });
    const report = await log.verify();
    expect(report.finding).toMatchObject({
      kind: 'changed_payload',
      position: target.position,
      streamId: 'account-a',
    });
  });

  it('names changed metadata', async () => {
    const log = sampleLog();
    const event = log.at('scope-1', 0);
    const target = log.replace(event, {
      metadata: { ...(event.metadata as object), actor: 'account:mallory' },
    });
    const report = await log.verify();
    expect(report.finding).toMatchObject({ kind: 'changed_event', position: target.position });
  });

  it('names a sealed event that was removed at its sealed position', async () => {
    const log = sampleLog();
    const removed = log.at('account-a', 1);
    log.events.splice(log.events.indexOf(removed), 1);
    const report = await log.verify();
    expect(report.finding).toMatchObject({
      kind: 'removed',
      position: removed.position,
      eventId: eventIdOf(removed),
    });
  });

  it('names an unsealed event that was removed by the version gap it leaves', async () => {
    const log = sampleLog();
    log.append('account-a', newEvent('CreditsSpent', { credits: 1 }));
    const removed = log.at('account-a', 3);
    log.events.splice(log.events.indexOf(removed), 1);
    const after = log.at('account-a', 4);
    const report = await log.verify();
    expect(report.finding).toMatchObject({
      kind: 'removed',
      position: after.position,
      streamId: 'account-a',
    });
  });

  it('names an event without hashes, and a forged event with hashes, inserted into the sealed region', async () => {
    const log = sampleLog();
    const before = log.at('account-b', 0);
    const inserted: LoggedEvent = {
      streamId: 'other',
      streamVersion: 0,
      type: 'Forged',
      data: {},
      metadata: { eventId: randomUUID() },
      position: encodePosition(
        BigInt(before.position.split('-')[0]!) + 1n,
        BigInt(before.position.split('-')[0]!) + 1n,
      ),
    };
    log.events.splice(log.events.indexOf(before) + 1, 0, inserted);
    expect((await log.verify()).finding).toMatchObject({ kind: 'inserted', position: inserted.position });

    const forgedLog = sampleLog();
    const [forged] = forgedLog.append('other', newEvent('Forged', {}));
    forgedLog.events.pop();
    const anchor = forgedLog.at('account-b', 0);
    const placed = { ...forged!, position: encodePosition(BigInt(anchor.position.split('-')[0]!) + 1n, 0) };
    forgedLog.events.splice(forgedLog.events.indexOf(anchor) + 1, 0, placed);
    expect((await forgedLog.verify()).finding).toMatchObject({ kind: 'inserted', position: placed.position });
  });

  it('names an event without hashes after the sealed chain as inserted', async () => {
    const log = sampleLog();
    const position = log.position();
    log.events.push({ streamId: 'foreign', streamVersion: 0, type: 'X', data: {}, metadata: {}, position });
    expect((await log.verify()).finding).toMatchObject({ kind: 'inserted', position });
  });

  it('names two sealed events that swapped places as reordered', async () => {
    const log = sampleLog();
    const first = log.at('account-b', 0);
    const second = log.at('account-a', 1);
    const i = log.events.indexOf(first);
    const j = log.events.indexOf(second);
    log.events[i] = { ...second, position: first.position };
    log.events[j] = { ...first, position: second.position };
    const report = await log.verify();
    expect(report.finding).toMatchObject({
      kind: 'reordered',
      position: first.position,
      eventId: eventIdOf(first),
    });
  });

  it('names an event that moved within its sealed slot as reordered', async () => {
    const log = sampleLog();
    const event = log.at('scope-1', 0);
    const moved = log.replace(event, { position: encodePosition(BigInt(event.position.split('-')[0]!), 1) });
    expect((await log.verify()).finding).toMatchObject({ kind: 'reordered', position: moved.position });
  });

  it('catches a rewrite with every event hash recomputed through the chain record and the signed checkpoint', async () => {
    const log = sampleLog();
    const target = log.at('account-b', 0);
    forgePayload(log, 'account-b', 0, { email: 'mallory@example.com' });
    // Payload, digest, content and stream hashes all agree: only the stream hash sealed in the chain differs.
    expect((await log.verify()).finding).toMatchObject({ kind: 'broken_chain', position: target.position });

    // Recompute the chain records too: the log is consistent again, only the signed checkpoint can tell.
    const checkpoint = log.checkpoints[0]!;
    const unsealedTail = log.events.slice(-2);
    log.events = log.events.slice(0, -2);
    log.chainRecords = [];
    log.checkpoints = [];
    log.seal();
    log.events.push(...unsealedTail);
    expect((await log.verify()).finding).toBeNull();
    const caught = await log.verify({ externalCheckpoint: checkpoint });
    expect(caught.finding).toMatchObject({ kind: 'checkpoint_mismatch', position: checkpoint.position });
  });

  it('names a checkpoint with a wrong signature', async () => {
    const log = sampleLog();
    log.checkpoints[0] = { ...log.checkpoints[0]!, signature: Buffer.alloc(64).toString('base64') };
    expect((await log.verify()).finding).toMatchObject({ kind: 'checkpoint_mismatch' });
  });

  it('names a changed chain record as a broken chain', async () => {
    const log = sampleLog();
    const record = log.chainRecords[1]!;
    const entries = [...record.entries];
    entries[0] = { ...entries[0]!, streamHash: 'ab'.repeat(32) };
    log.chainRecords[1] = { ...record, entries };
    expect((await log.verify()).finding).toMatchObject({
      kind: 'broken_chain',
      position: entries[0]!.position,
    });
  });

  it('names a checkpoint beyond the sealed chain: sealed events were cut off', async () => {
    const log = sampleLog();
    log.chainRecords.pop();
    log.chainRecords.pop();
    const report = await log.verify();
    expect(report.ok).toBe(false);
    expect(report.finding?.kind).toBe('checkpoint_mismatch');
    expect(report.finding?.detail).toContain('beyond the sealed chain');
  });

  it('verifies from a position and against an external checkpoint', async () => {
    const log = sampleLog();
    const external = log.checkpoints[0]!;
    const report = await log.verify({ from: external.position, externalCheckpoint: external });
    expect(report.ok).toBe(true);
    expect(report.eventsChecked).toBe(3);
    expect(report.checkpointsChecked).toBe(1);
    const tampered = sampleLog();
    const moved = tampered.replace(tampered.at('account-a', 3), { data: { credits: 9 } });
    expect((await tampered.verify({ from: tampered.checkpoints[0]!.position })).finding).toMatchObject({
      kind: 'changed_payload',
      position: moved.position,
    });
  });

  it('reports an erased stream as erased spans, whether its events are still stored or scavenged', async () => {
    const log = sampleLog();
    const [eraser] = log.append('audit', newEvent('ScopeErased', { scopeId: 'scope-1' }));
    log.seal();
    log.erasures.set('scope-1', { erasedBy: eventIdOf(eraser!)!, erasedAt: RECORDED_AT });
    const first = log.at('scope-1', 0);
    const last = log.at('scope-1', 1);
    const stored = await log.verify();
    expect(stored.finding).toBeNull();
    expect(stored.erasedSpans).toEqual([
      {
        streamId: 'scope-1',
        fromVersion: 0,
        toVersion: 1,
        fromPosition: first.position,
        toPosition: last.position,
        erasedBy: eventIdOf(eraser!),
        erasedAt: RECORDED_AT,
      },
    ]);
    // A scavenge removes the tombstoned stream's events from $all: the chain records still account for them.
    log.events = log.events.filter((e) => e.streamId !== 'scope-1');
    const scavenged = await log.verify();
    expect(scavenged.finding).toBeNull();
    expect(scavenged.erasedSpans).toEqual(stored.erasedSpans);
    expect(scavenged.eventsChecked).toBe(stored.eventsChecked);
  });

  it('names an erasure that no event of the log accounts for', async () => {
    const log = sampleLog();
    log.erasures.set('scope-1', { erasedBy: randomUUID(), erasedAt: RECORDED_AT });
    log.events = log.events.filter((e) => e.streamId !== 'scope-1');
    const report = await log.verify();
    expect(report.finding).toMatchObject({ kind: 'unattributed_erasure', streamId: 'scope-1' });
  });

  it('names removed events of a stream that was not erased, even when the whole stream is gone', async () => {
    const log = sampleLog();
    const gone = log.at('scope-1', 0);
    log.events = log.events.filter((e) => e.streamId !== 'scope-1');
    expect((await log.verify()).finding).toMatchObject({ kind: 'removed', position: gone.position });
  });

  it('walks events handed over as an async sequence, as the adapter pages $all', async () => {
    const log = sampleLog();
    expect((await log.verify({}, true)).finding).toBeNull();
    const target = log.replace(log.at('account-b', 1), { data: { credits: 2 } });
    expect((await log.verify({}, true)).finding).toMatchObject({
      kind: 'changed_payload',
      position: target.position,
    });
  });

  it('names a second copy of a sealed event as inserted', async () => {
    const log = sampleLog();
    const copied = log.at('account-a', 0);
    const copy = { ...copied, position: log.position() };
    log.events.push(copy);
    expect((await log.verify()).finding).toMatchObject({ kind: 'inserted', position: copy.position });
  });

  it('names a chain record removed from the middle of the chain stream', async () => {
    const log = sampleLog();
    log.append('account-c', ...Array.from({ length: 4 }, (_, i) => newEvent('Filler', { i })));
    log.seal();
    const removed = log.chainRecords.splice(2, 1)[0]!;
    expect((await log.verify()).finding).toMatchObject({
      kind: 'broken_chain',
      position: log.chainRecords[2]!.entries[0]!.position,
    });
    expect(removed.firstIndex).toBe(6);
  });

  it('checks an external checkpoint that lies before the position verified from', async () => {
    const log = sampleLog();
    log.append('account-a', newEvent('CreditsSpent', { credits: 1 }));
    log.seal();
    const later = log.checkpoint();
    const earlier = log.checkpoints[0]!;
    const report = await log.verify({ from: later.position, externalCheckpoint: earlier });
    expect(report.finding).toBeNull();
    expect(report.lastVerifiedCheckpoint).toEqual(earlier);
    const forged = { ...earlier, chainHead: 'ff'.repeat(32) };
    expect((await log.verify({ from: later.position, externalCheckpoint: forged })).finding).toMatchObject({
      kind: 'checkpoint_mismatch',
      position: earlier.position,
    });
  });

  it('names an event that went back in its stream as reordered', async () => {
    const log = sampleLog();
    const moved = log.replace(log.at('account-a', 3), { streamVersion: 1 });
    expect((await log.verify()).finding).toMatchObject({ kind: 'reordered', position: moved.position });
  });
});
