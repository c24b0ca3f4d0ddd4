/**
 * What an event's hashes commit to (ADR 0060). PostgreSQL computes them in SQL (es_append, so appends and
 * verification cost no JavaScript); this is the same definition for adapters without PostgreSQL (EventStoreDB)
 * and for tests, checked against PostgreSQL by test/integration/platform/event-log-chain.test.ts.
 *
 * - canonical JSON = PostgreSQL's jsonb text of the value: keys sorted by byte length then bytes, `", "` and
 *   `": "` separators, numbers in plain decimal notation (1e21 is 1000000000000000000000).
 * - payload digest = SHA-256(salt ‖ canonical JSON of data): the random per-event salt (16 bytes) keeps an
 *   erased payload's digest from being brute-forced (an email has few candidates).
 * - content hash = SHA-256 of the envelope's fields joined by commas: stream id (JSON string), event id
 *   (lowercase uuid), type (JSON string), schema version, canonical JSON of the whole metadata object,
 *   recordedAt (JSON string), payload digest (hex). Not a jsonb object: building one cost twice the hashing.
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

/** jsonb's key order: shorter keys first, then by their UTF-8 bytes. */
function compareKeys(a: string, b: string): number {
  const byteLengthA = Buffer.byteLength(a);
  const byteLengthB = Buffer.byteLength(b);
  if (byteLengthA !== byteLengthB) return byteLengthA - byteLengthB;
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** A JavaScript number as numeric_out prints it: plain decimal notation, never an exponent. */
function plainDecimal(value: number): string {
  const text = String(value);
  const e = text.indexOf('e');
  if (e < 0) return text;
  const negative = text.startsWith('-');
  const mantissa = text.slice(negative ? 1 : 0, e);
  const exponent = Number(text.slice(e + 1));
  const dot = mantissa.indexOf('.');
  const digits = dot < 0 ? mantissa : mantissa.slice(0, dot) + mantissa.slice(dot + 1);
  const point = (dot < 0 ? mantissa.length : dot) + exponent;
  const plain =
    point <= 0
      ? `0.${'0'.repeat(-point)}${digits}`
      : point >= digits.length
        ? digits + '0'.repeat(point - digits.length)
        : `${digits.slice(0, point)}.${digits.slice(point)}`;
  return negative ? `-${plain}` : plain;
}

/** The jsonb text of a plain JSON value (as parsed from storage). */
export function canonicalPlainJson(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      return plainDecimal(value);
    case 'string':
      // JSON.stringify escapes exactly what escape_json escapes (quotes, backslashes, control characters).
      return JSON.stringify(value);
    case 'object': {
      if (Array.isArray(value)) return `[${value.map(canonicalPlainJson).join(', ')}]`;
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record).sort(compareKeys);
      return `{${keys.map((key) => `${JSON.stringify(key)}: ${canonicalPlainJson(record[key])}`).join(', ')}}`;
    }
    default:
      return 'null';
  }
}

/** What storage keeps of a value: JSON.parse(JSON.stringify(value)), then canonical. */
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

export function contentHash(envelope: HashedEnvelope): Buffer {
  // JSON strings and the jsonb text are self-delimiting, the uuid, the integer and the hex digest fixed in
  // form: joined by commas, no two envelopes give the same text.
  const text = [
    JSON.stringify(envelope.streamId),
    envelope.eventId,
    JSON.stringify(envelope.type),
    String(envelope.schemaVersion),
    canonicalJson(envelope.metadata),
    JSON.stringify(envelope.recordedAt),
    envelope.payloadDigest.toString('hex'),
  ].join(',');
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
  const content = contentHash({
    streamId,
    eventId: event.id.toLowerCase(),
    type: event.type,
    schemaVersion: event.schemaVersion,
    metadata: event.metadata,
    recordedAt,
    payloadDigest: digest,
  });
  return { salt, payloadDigest: digest, contentHash: content };
}
