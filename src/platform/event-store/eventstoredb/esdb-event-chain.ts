/**
 * The hash chain of the EventStoreDB log (ADR 0079), without a server: stream hashes chained in the append path,
 * the chain records the sealer appends to `_event-chain`, and the verification walk over the log in $all order.
 * The adapter (eventstoredb-event-store.ts) only reads and writes; everything decided here is unit-tested with
 * events hashed by event-hash.ts.
 */
import {
  canonicalJson,
  chainHash,
  contentHash,
  HASH_BYTES,
  payloadDigest,
  streamHash,
  ZERO_HASH,
} from '../event-hash.js';
import { ChainFinding, chainFinding, ChainWalk } from '../chain-verification.js';
import {
  type ChainCheckpoint,
  type ChainHead,
  type TamperFinding,
  type VerificationReport,
  type VerifyOptions,
} from '../event-log-integrity.js';
import { comparePositions, type GlobalPosition, isGlobalPosition } from '../global-position.js';

/** The adapter-owned stream of chain records (not a `$` system stream: writing it needs no admin rights). */
export const CHAIN_STREAM = '_event-chain';
export const CHAIN_RECORD_TYPE = 'EventChainSealed';
/** Where the port's `$checkpoints` stream is stored (a `$` stream would need admin rights and read as system). */
export const CHECKPOINTS_STORED_STREAM = '_chain-checkpoints';
/** Events per chain record: one append seals up to this many. */
export const CHAIN_RECORD_SIZE = 500;

/** Metadata keys the adapter adds around the caller's metadata; the rest is what the content hash covers. */
const ADAPTER_METADATA_KEYS = new Set([
  '$correlationId',
  '$causationId',
  'eventId',
  'schemaVersion',
  'recordedAt',
  'salt',
  'payloadDigest',
  'contentHash',
  'streamHash',
]);

/** One sealed event: where it was, which event, and the stream hash it was sealed with. */
export interface ChainEntry {
  readonly position: GlobalPosition;
  readonly eventId: string;
  readonly streamId: string;
  readonly streamVersion: number;
  /** Hex. */
  readonly streamHash: string;
}

/** One record of `_event-chain`: consecutive entries from `firstIndex`, and the chain hash before and after. */
export interface ChainRecord {
  readonly firstIndex: number;
  /** Hex chain hash before the first entry (zeros at index 0). */
  readonly previousChainHead: string;
  readonly entries: readonly ChainEntry[];
  /** Hex chain hash through the last entry. */
  readonly chainHead: string;
}

/** A stored event as the chain needs it: the logical stream id, the raw stored metadata, the parsed data. */
export interface LoggedEvent {
  readonly streamId: string;
  readonly streamVersion: number;
  readonly type: string;
  readonly data: unknown;
  readonly metadata: unknown;
  readonly position: GlobalPosition;
}

/** The hashes an event's stored metadata carries (null when it carries none: not written by an append). */
interface StoredHashes {
  readonly eventId: string;
  readonly schemaVersion: number;
  readonly recordedAt: string;
  readonly salt: Buffer;
  readonly payloadDigest: Buffer;
  readonly contentHash: Buffer;
  readonly streamHash: Buffer;
}

const HEX_HASH = /^[0-9a-f]{64}$/;
const HEX_SALT = /^[0-9a-f]{32}$/;

function metadataRecord(metadata: unknown): Record<string, unknown> | null {
  return typeof metadata === 'object' && metadata !== null && !(metadata instanceof Uint8Array)
    ? (metadata as Record<string, unknown>)
    : null;
}

function storedHashesOf(event: LoggedEvent): StoredHashes | null {
  const raw = metadataRecord(event.metadata);
  if (!raw) return null;
  const { eventId, schemaVersion, recordedAt, salt, payloadDigest: digest, contentHash: content } = raw;
  const stream = raw.streamHash;
  if (
    typeof eventId !== 'string' ||
    typeof schemaVersion !== 'number' ||
    typeof recordedAt !== 'string' ||
    typeof salt !== 'string' ||
    !HEX_SALT.test(salt) ||
    typeof digest !== 'string' ||
    !HEX_HASH.test(digest) ||
    typeof content !== 'string' ||
    !HEX_HASH.test(content) ||
    typeof stream !== 'string' ||
    !HEX_HASH.test(stream)
  )
    return null;
  return {
    eventId,
    schemaVersion,
    recordedAt,
    salt: Buffer.from(salt, 'hex'),
    payloadDigest: Buffer.from(digest, 'hex'),
    contentHash: Buffer.from(content, 'hex'),
    streamHash: Buffer.from(stream, 'hex'),
  };
}

/** The caller's metadata as the content hash saw it: the stored metadata without the adapter's own keys. */
export function hashedMetadataOf(stored: unknown): Record<string, unknown> {
  const raw = metadataRecord(stored) ?? {};
  return Object.fromEntries(Object.entries(raw).filter(([key]) => !ADAPTER_METADATA_KEYS.has(key)));
}

/** The port's event id of a stored event (the metadata keeps it; EventStoreDB's own id may be a UUID v5 of it). */
export function eventIdOf(event: LoggedEvent): string | null {
  const id = metadataRecord(event.metadata)?.eventId;
  return typeof id === 'string' ? id : null;
}

/** The stored stream hash of an event, or null. */
export function storedStreamHashOf(metadata: unknown): Buffer | null {
  const hash = metadataRecord(metadata)?.streamHash;
  return typeof hash === 'string' && HEX_HASH.test(hash) ? Buffer.from(hash, 'hex') : null;
}

/** Stream hashes of events appended after `previous` (the stream hash at firstVersion - 1, zeros for 0). */
export function chainStreamHashes(
  previous: Buffer,
  firstVersion: number,
  contentHashes: readonly Buffer[],
): Buffer[] {
  const out: Buffer[] = [];
  let last = previous;
  contentHashes.forEach((content, i) => {
    last = streamHash(last, firstVersion + i, content);
    out.push(last);
  });
  return out;
}

/** The chain entry of a stored event, or null when it carries no stream hash (sealing stops before it). */
export function chainEntryOf(event: LoggedEvent): ChainEntry | null {
  const hashes = storedHashesOf(event);
  if (!hashes) return null;
  return {
    position: event.position,
    eventId: hashes.eventId,
    streamId: event.streamId,
    streamVersion: event.streamVersion,
    streamHash: hashes.streamHash.toString('hex'),
  };
}

/** The next chain record after `head` (null: the chain is empty), sealing `entries` in order. */
export function nextChainRecord(head: ChainHead | null, entries: readonly ChainEntry[]): ChainRecord {
  const previousChainHead = head ? head.chainHead : ZERO_HASH.toString('hex');
  let hash: Buffer = Buffer.from(previousChainHead, 'hex');
  for (const entry of entries) hash = chainHash(hash, Buffer.from(entry.streamHash, 'hex'));
  return {
    firstIndex: head ? head.chainIndex + 1 : 0,
    previousChainHead,
    entries,
    chainHead: hash.toString('hex'),
  };
}

/** The head a chain record leaves the chain at. */
export function chainRecordHead(record: ChainRecord): ChainHead {
  const last = record.entries.at(-1);
  if (!last) throw new Error('a chain record seals at least one event');
  return {
    chainIndex: record.firstIndex + record.entries.length - 1,
    position: last.position,
    chainHead: record.chainHead,
  };
}

/** What is stored as the event data of a chain record: entries as compact tuples. */
export function encodeChainRecord(record: ChainRecord): Record<string, unknown> {
  return {
    firstIndex: record.firstIndex,
    previousChainHead: record.previousChainHead,
    chainHead: record.chainHead,
    entries: record.entries.map((e) => [e.position, e.eventId, e.streamId, e.streamVersion, e.streamHash]),
  };
}

/** A stored chain record, or null when it is not one (malformed: verification reports it). */
export function decodeChainRecord(data: unknown): ChainRecord | null {
  const raw = metadataRecord(data);
  if (!raw) return null;
  const { firstIndex, previousChainHead, chainHead, entries } = raw;
  if (
    typeof firstIndex !== 'number' ||
    !Number.isSafeInteger(firstIndex) ||
    firstIndex < 0 ||
    typeof previousChainHead !== 'string' ||
    !HEX_HASH.test(previousChainHead) ||
    typeof chainHead !== 'string' ||
    !HEX_HASH.test(chainHead) ||
    !Array.isArray(entries) ||
    entries.length === 0
  )
    return null;
  const decoded: ChainEntry[] = [];
  for (const tuple of entries as unknown[]) {
    if (!Array.isArray(tuple) || tuple.length !== 5) return null;
    const [position, eventId, streamId, streamVersion, hash] = tuple as unknown[];
    if (
      !isGlobalPosition(position) ||
      typeof eventId !== 'string' ||
      typeof streamId !== 'string' ||
      typeof streamVersion !== 'number' ||
      !Number.isSafeInteger(streamVersion) ||
      typeof hash !== 'string' ||
      !HEX_HASH.test(hash)
    )
      return null;
    decoded.push({ position, eventId, streamId, streamVersion, streamHash: hash });
  }
  return { firstIndex, previousChainHead, chainHead, entries: decoded };
}

/** A checkpoint as stored in the checkpoint stream, or null. */
export function decodeCheckpoint(data: unknown): ChainCheckpoint | null {
  const raw = metadataRecord(data);
  if (!raw) return null;
  const { chainIndex, position, chainHead, at, keyId, signature } = raw;
  if (
    typeof chainIndex !== 'number' ||
    !isGlobalPosition(position) ||
    typeof chainHead !== 'string' ||
    typeof at !== 'string' ||
    typeof keyId !== 'string' ||
    typeof signature !== 'string'
  )
    return null;
  return { chainIndex, position, chainHead, at, keyId, signature };
}

/** Who erased a stream (its record in `_erased-streams`). */
export interface StreamErasureRecord {
  readonly erasedBy: string;
  readonly erasedAt: string;
}

/** What the verification walk reads; the adapter fills it from the server, the unit tests from arrays. */
export interface ChainWalkInput {
  /**
   * The log's events in $all order after `options.from`: user streams and checkpoints, not the adapter's
   * bookkeeping (`_event-chain`, `_erased-streams`), nor system records (`$`-streams and types).
   */
  readonly events: AsyncIterable<LoggedEvent> | Iterable<LoggedEvent>;
  /** Every record of `_event-chain`, in stream order (null for a record that does not decode). */
  readonly chainRecords: readonly (ChainRecord | null)[];
  /** The streams `_erased-streams` names. */
  readonly erasures: ReadonlyMap<string, StreamErasureRecord>;
  /** The checkpoints of the checkpoint stream, in order. */
  readonly checkpoints: readonly ChainCheckpoint[];
  /** Is the sealed event still stored somewhere (then it moved: reordered), or gone (removed)? */
  readonly isStored: (entry: ChainEntry) => Promise<boolean> | boolean;
  /**
   * The stored stream hash of streamId@version (null: unknown), for a stream first met past version 0 when
   * verifying from a position. Without it, such a stream continues its stored chain unchecked.
   */
  readonly storedStreamHash?: (streamId: string, version: number) => Promise<Buffer | null>;
}

const findingAt = chainFinding;

/**
 * Verifies the log against its hashes, the chain records and the checkpoints, in $all order, stopping at the
 * first finding (same kinds and report as the PostgreSQL verifier, ADR 0061). Erased streams (tombstoned,
 * their events scavenged or not) are reported as erased spans, continuing the chain through the stream hashes
 * the chain records sealed.
 */
export async function verifyChainWalk(
  input: ChainWalkInput,
  options: VerifyOptions,
): Promise<VerificationReport> {
  const walk = new ChainWalk(options);
  const from = walk.from;
  const streams = new Map<string, { version: number; hash: Buffer | null }>();
  /** The erasers met as (non-erased) events of the walk. */
  const metErasers = new Set<string>();
  const erasersWanted = new Set([...input.erasures.values()].map((e) => e.erasedBy));
  const report = (found: TamperFinding | null): VerificationReport => walk.report(found);

  // The sealed chain, recomputed from the stream hashes its records hold.
  const sealed: ChainEntry[] = [];
  /** The chain hash through every sealed index, 32 bytes each (compact: the chain may be long). */
  const chainHashes = Buffer.alloc(
    HASH_BYTES * input.chainRecords.reduce((n, record) => n + (record?.entries.length ?? 0), 0),
  );
  const chainHashAt = (index: number): Buffer =>
    chainHashes.subarray(index * HASH_BYTES, (index + 1) * HASH_BYTES);
  const indexOf = new Map<string, number>();
  /** Chain records whose stored head the entries do not hash to, by their last chain index. */
  const unhashedRecords = new Map<number, number>();
  try {
    let head = ZERO_HASH;
    /** The head the previous record stores, which the next one must start from. */
    let storedHead = ZERO_HASH.toString('hex');
    for (const [n, record] of input.chainRecords.entries()) {
      if (!record)
        throw findingAt(
          'broken_chain',
          null,
          null,
          `chain record ${n} of ${CHAIN_STREAM} is not a chain record`,
        );
      const first = record.entries[0]!;
      if (record.firstIndex !== sealed.length || record.previousChainHead !== storedHead)
        throw findingAt(
          'broken_chain',
          first,
          first.eventId,
          `chain record ${n} starts at index ${record.firstIndex} after ${record.previousChainHead.slice(0, 12)}…, where the chain is at index ${sealed.length} after ${storedHead.slice(0, 12)}…: chain records were removed or changed`,
        );
      for (const entry of record.entries) {
        head = chainHash(head, Buffer.from(entry.streamHash, 'hex'));
        indexOf.set(entry.eventId, sealed.length);
        sealed.push(entry);
        head.copy(chainHashes, (sealed.length - 1) * HASH_BYTES);
      }
      // Named when the walk passes the record's last event, after its events were compared with their entries.
      if (head.toString('hex') !== record.chainHead) unhashedRecords.set(sealed.length - 1, n);
      storedHead = record.chainHead;
    }
  } catch (error) {
    if (error instanceof ChainFinding) return report(error.finding);
    throw error;
  }
  const sealedCount = sealed.length;

  // Where to start: after `from`, trusting the chain before it (the checkpoints anchor it).
  let nextIndex = 0;
  if (from)
    while (nextIndex < sealedCount && comparePositions(sealed[nextIndex]!.position, from) <= 0)
      nextIndex += 1;

  /** Records one more erased event of a stream in its span. */
  const noteErased = (streamId: string, version: number, position: GlobalPosition): void => {
    const erasure = input.erasures.get(streamId)!;
    walk.noteErased(streamId, version, position, erasure.erasedBy, erasure.erasedAt);
  };

  /** The version an event of `streamId` must have next (verifying from a position, its first one is trusted). */
  const checkVersion = (
    at: { position: GlobalPosition; streamId: string },
    eventId: string | null,
    version: number,
  ): void => {
    const expectedVersion = walk.expectedVersion(version, streams.get(at.streamId)?.version);
    if (version !== expectedVersion) throw walk.versionFinding(at, eventId, version, expectedVersion);
  };

  /** Moves the chain past sealed index `index`, checking the checkpoints that name it. */
  const advance = (index: number): void => {
    const record = unhashedRecords.get(index);
    if (record !== undefined)
      throw findingAt(
        'broken_chain',
        sealed[index]!,
        sealed[index]!.eventId,
        `chain record ${record} of ${CHAIN_STREAM} does not hash to the chain head it stores`,
      );
    nextIndex = index + 1;
    walk.sealed(index, chainHashAt(index), () => sealed[index]!.position);
  };

  /**
   * Sealed events of erased streams that are no longer stored (a scavenge removed them) and lie before
   * `position`: erased spans, the chain continuing through their sealed stream hashes.
   */
  const passErased = (position: GlobalPosition | null): void => {
    for (;;) {
      const entry = sealed[nextIndex];
      if (!entry || !input.erasures.has(entry.streamId)) return;
      if (position !== null && comparePositions(entry.position, position) >= 0) return;
      checkVersion(entry, entry.eventId, entry.streamVersion);
      noteErased(entry.streamId, entry.streamVersion, entry.position);
      streams.set(entry.streamId, {
        version: entry.streamVersion,
        hash: Buffer.from(entry.streamHash, 'hex'),
      });
      walk.checked += 1;
      advance(nextIndex);
    }
  };

  /** The sealed chain expects event `nextIndex` before `position`: removed, or moved (reordered)? */
  const missing = async (): Promise<never> => {
    const entry = sealed[nextIndex]!;
    const present = await input.isStored(entry);
    throw findingAt(
      present ? 'reordered' : 'removed',
      entry,
      entry.eventId,
      present
        ? `event ${entry.eventId}, sealed at position ${entry.position}, is no longer there in the global order`
        : `event ${entry.eventId}, sealed at position ${entry.position}, was removed from the log`,
    );
  };

  const check = async (event: LoggedEvent): Promise<void> => {
    const at = { position: event.position, streamId: event.streamId };
    passErased(event.position);
    const hashes = storedHashesOf(event);
    const eventId = hashes?.eventId ?? eventIdOf(event);
    // First the global order, which names the exact position where the log left the sealed chain.
    const found = eventId === null ? undefined : indexOf.get(eventId);
    const index = found !== undefined && sealed[found]!.streamId === event.streamId ? found : undefined;
    const entry = index === undefined ? undefined : sealed[index]!;
    if (index === undefined) {
      if (nextIndex < sealedCount) {
        if (comparePositions(sealed[nextIndex]!.position, event.position) < 0) await missing();
        throw findingAt(
          'inserted',
          at,
          eventId,
          `event ${eventId ?? '(no id)'} stands where the sealed chain has another event`,
        );
      }
    } else if (index < nextIndex) {
      throw findingAt(
        'inserted',
        at,
        eventId,
        `event ${eventId}, sealed at chain index ${index}, appears a second time`,
      );
    } else if (index > nextIndex) {
      await missing();
    } else if (entry!.position !== event.position) {
      throw findingAt(
        'reordered',
        at,
        eventId,
        `event ${eventId} is no longer at the position it was sealed at`,
      );
    }
    checkVersion(at, eventId, event.streamVersion);
    if (!hashes)
      throw findingAt(
        'inserted',
        at,
        eventId,
        `event ${eventId ?? '(no id)'} carries no hashes: it was not written by an append`,
      );
    const erased = input.erasures.has(event.streamId);
    if (erased) noteErased(event.streamId, event.streamVersion, event.position);
    else {
      if (!payloadDigest(hashes.salt, canonicalJson(event.data)).equals(hashes.payloadDigest))
        throw findingAt(
          'changed_payload',
          at,
          eventId,
          `the payload of event ${eventId} (${event.type}) was changed`,
        );
      if (erasersWanted.has(hashes.eventId)) metErasers.add(hashes.eventId);
    }
    const content = contentHash({
      streamId: event.streamId,
      eventId: hashes.eventId.toLowerCase(),
      type: event.type,
      schemaVersion: hashes.schemaVersion,
      metadata: hashedMetadataOf(event.metadata),
      recordedAt: hashes.recordedAt,
      payloadDigest: hashes.payloadDigest,
    });
    if (!content.equals(hashes.contentHash))
      throw findingAt(
        'changed_event',
        at,
        eventId,
        `the envelope or metadata of event ${eventId} (${event.type}) were changed`,
      );
    const last = streams.get(event.streamId);
    const previous =
      event.streamVersion === 0
        ? ZERO_HASH
        : last
          ? last.hash
          : ((await input.storedStreamHash?.(event.streamId, event.streamVersion - 1)) ?? null);
    if (previous && !streamHash(previous, event.streamVersion, hashes.contentHash).equals(hashes.streamHash))
      throw findingAt(
        'broken_chain',
        at,
        eventId,
        `the stream hash of ${event.streamId}@${event.streamVersion} does not follow from its predecessor`,
      );
    streams.set(event.streamId, { version: event.streamVersion, hash: hashes.streamHash });
    walk.checked += 1;
    if (index === undefined) {
      walk.unsealed += 1;
      return;
    }
    if (
      entry!.streamHash !== hashes.streamHash.toString('hex') ||
      entry!.streamVersion !== event.streamVersion
    )
      throw findingAt(
        'broken_chain',
        at,
        eventId,
        `${event.streamId}@${event.streamVersion} no longer hashes to the stream hash sealed at chain index ${index}`,
      );
    advance(index);
  };

  try {
    if (options.externalCheckpoint) {
      const external = options.externalCheckpoint;
      if (external.chainIndex >= 0 && external.chainIndex < nextIndex)
        walk.checkCheckpoint(
          external,
          chainHashAt(external.chainIndex).toString('hex'),
          sealed[external.chainIndex]!.position,
        );
      else walk.expectCheckpoint(external);
    }
    for (const checkpoint of input.checkpoints)
      if (checkpoint.chainIndex >= nextIndex) walk.expectCheckpoint(checkpoint);

    const total = Math.max(0, sealedCount - nextIndex);
    for await (const event of input.events) {
      if (from && comparePositions(event.position, from) <= 0) continue;
      await check(event);
      if (walk.checked % 1_000 === 0) options.onProgress?.(walk.checked, Math.max(total, walk.checked));
    }
    passErased(null);
    options.onProgress?.(walk.checked, Math.max(total, walk.checked));
    if (nextIndex < sealedCount) await missing();
    walk.noCheckpointBeyond(sealedCount);
    // Walking the whole log, every eraser must be one of its events; from a position, it may lie before.
    if (!from) walk.everyErasureAttributed((eventId) => metErasers.has(eventId));
  } catch (error) {
    if (error instanceof ChainFinding) return report(error.finding);
    throw error;
  }
  return report(null);
}
