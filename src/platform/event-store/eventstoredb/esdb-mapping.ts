/**
 * Mapping between the EventStore port and EventStoreDB's records: expected revisions, positions, event ids,
 * the metadata written, erasure records.
 */
import { type EventSeal, sealEvent } from '../event-hash.js';
import { CHECKPOINT_STREAM } from '../event-log-integrity.js';
import { CHECKPOINTS_STORED_STREAM } from './esdb-event-chain.js';
import {
  ANY,
  type AppendExpectedRevision,
  END,
  NO_STREAM,
  type Position,
  type ReadPosition,
  START,
  STREAM_EXISTS,
} from '@eventstore/db-client';
import { attributionOf } from '../attribution.js';
import { uuidV5 } from '../event-id.js';
import type {
  EventMetadata,
  EventSurface,
  ExpectedVersion,
  NewEvent,
  RecordedEvent,
} from '../event-store.port.js';
import { decodePosition, encodePosition, type GlobalPosition } from '../global-position.js';

export const STREAM_ERASED_EVENT = 'StreamErased';

/** Namespace for name-based UUIDs minted by this adapter (non-UUID event ids, erasure records). */
export const ADAPTER_NAMESPACE = '5f0c2b8e-3d71-4c1a-9e62-7b4a0d9c8f13';
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The shape of a recorded event as the client returns it (JSON or binary). */
export interface EsdbRecord {
  readonly streamId: string;
  readonly id: string;
  readonly revision: bigint;
  readonly type: string;
  readonly created: Date;
  readonly data: unknown;
  readonly metadata: unknown;
  readonly position?: Position;
}

/** What the adapter writes as EventStoreDB event metadata. */
export interface StoredMetadata {
  readonly $correlationId: string;
  readonly $causationId: string;
  readonly eventId: string;
  readonly schemaVersion: number;
  readonly recordedAt: string;
  readonly actor: string;
  readonly payer: string;
  readonly scope: string | null;
  readonly correlationId: string;
  readonly causationId: string;
  readonly credential?: string | null;
  readonly surface?: EventSurface;
  readonly clientId?: string;
  readonly requestId?: string;
  readonly reason?: string;
  /** Hex salt, payload digest and content hash of the event (event-hash.ts, ADR 0060). */
  readonly salt: string;
  readonly payloadDigest: string;
  readonly contentHash: string;
  /** Hex stream hash: the stream's chain through this event (ADR 0079). Absent on events written before. */
  readonly streamHash?: string;
}

/** The EventStoreDB stream that stores a stream of the port (`$checkpoints` is not a `$` system stream there). */
export function storedStreamOf(streamId: string): string {
  return streamId === CHECKPOINT_STREAM ? CHECKPOINTS_STORED_STREAM : streamId;
}

/** The port's stream id of an EventStoreDB stream. */
export function logicalStreamOf(storedStreamId: string): string {
  return storedStreamId === CHECKPOINTS_STORED_STREAM ? CHECKPOINT_STREAM : storedStreamId;
}

export function toExpectedRevision(expected: ExpectedVersion): AppendExpectedRevision {
  switch (expected) {
    case 'no_stream':
      return NO_STREAM;
    case 'exists':
      return STREAM_EXISTS;
    case 'any':
      return ANY;
    default:
      if (!Number.isSafeInteger(expected) || expected < 0)
        throw new Error(`invalid expected version ${expected}`);
      return BigInt(expected);
  }
}

/** The client reports "no stream" as the string `no_stream` (or, in some paths, as -1). */
export function fromCurrentRevision(current: bigint | string): number | null {
  if (typeof current !== 'bigint') return null;
  return current < 0n ? null : Number(current);
}

export function toReadPosition(
  position: GlobalPosition | null,
  fallback: typeof START | typeof END,
): ReadPosition {
  if (position === null) return fallback;
  const { major, minor } = decodePosition(position);
  return { commit: major, prepare: minor };
}

export function esdbEventId(id: string): string {
  return UUID_PATTERN.test(id) ? id.toLowerCase() : uuidV5(id, ADAPTER_NAMESPACE);
}

export function isSystemRecord(record: EsdbRecord): boolean {
  return record.streamId.startsWith('$') || record.type.startsWith('$');
}

export function erasedStreamOf(record: EsdbRecord): string | null {
  if (record.type !== STREAM_ERASED_EVENT) return null;
  const data = record.data;
  if (
    typeof data === 'object' &&
    data !== null &&
    typeof (data as { streamId?: unknown }).streamId === 'string'
  ) {
    return (data as { streamId: string }).streamId;
  }
  return null;
}

/**
 * The metadata stored with an event: the caller's metadata, the adapter's keys and the hashes. The content hash
 * covers the caller's metadata only (hashedMetadataOf strips the adapter's keys again to verify it).
 */
export function storedMetadata(
  streamId: string,
  event: NewEvent,
  recordedAt: string,
  chained: { readonly seal: EventSeal; readonly streamHash: Buffer } | null = null,
): StoredMetadata {
  const m = event.metadata;
  const seal = chained?.seal ?? sealEvent(streamId, event, recordedAt);
  return {
    ...m,
    $correlationId: m.correlationId,
    $causationId: m.causationId,
    eventId: event.id,
    schemaVersion: event.schemaVersion,
    recordedAt,
    actor: m.actor,
    payer: m.payer,
    scope: m.scope,
    correlationId: m.correlationId,
    causationId: m.causationId,
    ...attributionOf(m),
    salt: seal.salt.toString('hex'),
    payloadDigest: seal.payloadDigest.toString('hex'),
    contentHash: seal.contentHash.toString('hex'),
    ...(chained ? { streamHash: chained.streamHash.toString('hex') } : {}),
  };
}

export function toRecordedEvent(record: EsdbRecord, knownPosition?: GlobalPosition): RecordedEvent {
  const position =
    knownPosition ??
    (record.position ? encodePosition(record.position.commit, record.position.prepare) : undefined);
  if (position === undefined) {
    throw new Error(
      `EventStoreDB returned no position for ${record.streamId}@${record.revision} (server < 22.6?)`,
    );
  }
  const raw: Partial<StoredMetadata> =
    typeof record.metadata === 'object' &&
    record.metadata !== null &&
    !(record.metadata instanceof Uint8Array)
      ? (record.metadata as Partial<StoredMetadata>)
      : {};
  const metadata: EventMetadata = {
    actor: raw.actor ?? 'unknown',
    payer: raw.payer ?? 'system',
    scope: raw.scope ?? null,
    correlationId: raw.correlationId ?? raw.$correlationId ?? record.id,
    causationId: raw.causationId ?? raw.$causationId ?? record.id,
    ...attributionOf(raw),
  };
  return {
    id: raw.eventId ?? record.id,
    type: record.type,
    schemaVersion: raw.schemaVersion ?? 1,
    data: record.data,
    metadata,
    streamId: logicalStreamOf(record.streamId),
    streamVersion: Number(record.revision),
    position,
    recordedAt: raw.recordedAt ?? record.created.toISOString(),
  };
}
