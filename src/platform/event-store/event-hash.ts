/**
 * The one definition of what an event's hashes commit to (ADR 0060), shared by every adapter and by the
 * verifier. Computed in TypeScript so PostgreSQL, PGlite and EventStoreDB agree byte for byte.
 *
 * - payload digest = SHA-256(salt ‖ canonical JSON of data): the random per-event salt keeps an erased
 *   payload's digest from being brute-forced (an email has few candidates).
 * - content hash = SHA-256(canonical JSON of the envelope: stream id, event id, type, schema version, the
 *   whole metadata object, recordedAt, payload digest).
 * - stream hash = SHA-256(previous stream hash ‖ stream version as 8 bytes big-endian ‖ content hash);
 *   the previous hash of version 0 is 32 zero bytes.
 * - chain hash = SHA-256(previous chain hash ‖ stream hash), in global order; 32 zero bytes before the first.
 */
import { createHash, randomBytes } from 'node:crypto';

export const HASH_BYTES = 32;
export const SALT_BYTES = 16;
/** The "previous hash" of the first event of a stream and of the first sealed event. */
export const ZERO_HASH: Buffer = Buffer.alloc(HASH_BYTES);

/** The envelope an event's content hash commits to. */
export interface HashedEnvelope {
  readonly streamId: string;
  readonly eventId: string;
  readonly type: string;
  readonly schemaVersion: number;
  readonly metadata: unknown;
  readonly recordedAt: string;
  readonly payloadDigest: Buffer;
}

/**
 * Keys sorted, JSON.stringify value semantics. `value` must already be plain JSON (as parsed from storage);
 * use canonicalJson for values that may hold undefined, dates or class instances.
 */
export function canonicalPlainJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalPlainJson).join(',')}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  let out = '{';
  for (let i = 0; i < keys.length; i += 1) {
    const key = keys[i]!;
    if (i > 0) out += ',';
    out += `${JSON.stringify(key)}:${canonicalPlainJson(record[key])}`;
  }
  return `${out}}`;
}

/** What storage gives back for a value: JSON.parse(JSON.stringify(value)), then canonical. */
export function canonicalJson(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? 'null' : canonicalPlainJson(JSON.parse(text));
}

/** bytea comes back as a Buffer from pg and as a Uint8Array from PGlite: one type for both, without a copy. */
export function asBuffer(bytes: Uint8Array): Buffer;
export function asBuffer(bytes: Uint8Array | null): Buffer | null;
export function asBuffer(bytes: Uint8Array | null): Buffer | null {
  if (bytes === null || Buffer.isBuffer(bytes)) return bytes;
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export function newSalt(): Buffer {
  return randomBytes(SALT_BYTES);
}

export function payloadDigest(salt: Buffer, canonicalData: string): Buffer {
  return createHash('sha256').update(salt).update(canonicalData, 'utf8').digest();
}

export function contentHash(envelope: HashedEnvelope, canonicalMetadata: string): Buffer {
  // Written out by hand (keys in sorted order) so the envelope's shape is visible here.
  const text =
    `{"eventId":${JSON.stringify(envelope.eventId)},"metadata":${canonicalMetadata}` +
    `,"payloadDigest":"${envelope.payloadDigest.toString('hex')}"` +
    `,"recordedAt":${JSON.stringify(envelope.recordedAt)},"schemaVersion":${JSON.stringify(envelope.schemaVersion)}` +
    `,"streamId":${JSON.stringify(envelope.streamId)},"type":${JSON.stringify(envelope.type)}}`;
  return createHash('sha256').update(text, 'utf8').digest();
}

export function streamHash(previous: Buffer, streamVersion: number, content: Buffer): Buffer {
  const version = Buffer.allocUnsafe(8);
  version.writeBigInt64BE(BigInt(streamVersion));
  return createHash('sha256').update(previous).update(version).update(content).digest();
}

export function chainHash(previous: Buffer, stream: Buffer): Buffer {
  return createHash('sha256').update(previous).update(stream).digest();
}

/** The hashes an adapter stores beside a new event (the stream hash is chained by the adapter). */
export interface EventSeal {
  readonly salt: Buffer;
  readonly payloadDigest: Buffer;
  readonly contentHash: Buffer;
}

/** Salt, payload digest and content hash of an event about to be stored. */
export function sealEvent(
  streamId: string,
  event: {
    readonly id: string;
    readonly type: string;
    readonly schemaVersion: number;
    readonly data: unknown;
    readonly metadata: unknown;
  },
  recordedAt: string,
  salt: Buffer = newSalt(),
): EventSeal {
  const digest = payloadDigest(salt, canonicalJson(event.data));
  const content = contentHash(
    {
      streamId,
      eventId: event.id.toLowerCase(),
      type: event.type,
      schemaVersion: event.schemaVersion,
      metadata: event.metadata,
      recordedAt,
      payloadDigest: digest,
    },
    canonicalJson(event.metadata),
  );
  return { salt, payloadDigest: digest, contentHash: content };
}
