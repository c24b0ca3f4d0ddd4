/**
 * What an event's hashes commit to (ADR 0060, 0081). Every adapter's append computes salt, payload digest and
 * content hash here (sealEvent); PostgreSQL chains the stream hashes under its stream lock, and keeps the same
 * definitions in SQL for logs written before the chain, held equal by test/integration/platform/event-log-chain.test.ts.
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
import { hash, randomFillSync } from 'node:crypto';

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

/** Keys in jsonb's order; ASCII keys (nearly all) compare as JavaScript strings do, the rest by UTF-8 bytes. */
function sortKeys(keys: string[]): string[] {
  if (keys.length < 2) return keys;
  for (const key of keys)
    for (let i = 0; i < key.length; i += 1) if (key.charCodeAt(i) > 0x7f) return keys.sort(compareKeys);
  return keys.sort((a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * The jsonb text of what storage keeps of a value (JSON.parse(JSON.stringify(value))), written in one pass:
 * the same omissions as JSON.stringify (undefined, functions and symbols in objects; null for them in
 * arrays and for non-finite numbers), toJSON honoured, boxed primitives unwrapped. Built by concatenation:
 * an array of parts per object cost a third of the sealing (ADR 0087).
 */
function canonicalStored(value: unknown, key: string | number): string | undefined {
  if (typeof value === 'object' && value !== null) {
    if (typeof (value as { toJSON?: unknown }).toJSON === 'function')
      value = (value as { toJSON: (key: string) => unknown }).toJSON(String(key));
    if (value instanceof Number || value instanceof String || value instanceof Boolean)
      value = value.valueOf();
  }
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? plainDecimal(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      throw new TypeError('Do not know how to serialize a BigInt');
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value)) {
        let text = '[';
        for (let i = 0; i < value.length; i += 1)
          text += (i === 0 ? '' : ', ') + (canonicalStored(value[i], i) ?? 'null');
        return `${text}]`;
      }
      const record = value as Record<string, unknown>;
      let text = '{';
      for (const name of sortKeys(Object.keys(record))) {
        const member = canonicalStored(record[name], name);
        if (member !== undefined)
          text += `${text.length === 1 ? '' : ', '}${JSON.stringify(name)}: ${member}`;
      }
      return `${text}}`;
    }
    default:
      return undefined; // undefined, functions, symbols: left out, as JSON.stringify does
  }
}

/** What storage keeps of a value (JSON.parse(JSON.stringify(value))), as canonical JSON. */
export function canonicalJson(value: unknown): string {
  return canonicalStored(value, '') ?? 'null';
}

/** bytea comes back as a Buffer from pg and as a Uint8Array from PGlite: one type for both, without a copy. */
export function asBuffer(bytes: Uint8Array): Buffer;
export function asBuffer(bytes: Uint8Array | null): Buffer | null;
export function asBuffer(bytes: Uint8Array | null): Buffer | null {
  if (bytes === null || Buffer.isBuffer(bytes)) return bytes;
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Salts are cut from a pool refilled 1,024 at a time: one randomFillSync call instead of one per event. */
const SALT_POOL_SIZE = 1_024;
const saltPool = Buffer.allocUnsafe(SALT_BYTES * SALT_POOL_SIZE);
let saltsLeft = 0;
/** The pool as hex, refilled with it: the hex of a salt of sealAppend is a slice of it. */
let saltPoolHex = '';

/** Takes the next salt of the pool (refilled when empty); the salt is at saltsLeft * SALT_BYTES. */
function takeSalt(): void {
  if (saltsLeft === 0) {
    randomFillSync(saltPool);
    saltPoolHex = saltPool.toString('hex');
    saltsLeft = SALT_POOL_SIZE;
  }
  saltsLeft -= 1;
}

export function newSalt(): Buffer {
  takeSalt();
  // A copy: the pool is overwritten by the next refill.
  return Buffer.from(saltPool.subarray(saltsLeft * SALT_BYTES, (saltsLeft + 1) * SALT_BYTES));
}

export function payloadDigest(salt: Buffer, canonicalData: string): Buffer {
  const bytes = Buffer.allocUnsafe(salt.length + Buffer.byteLength(canonicalData, 'utf8'));
  salt.copy(bytes, 0);
  bytes.write(canonicalData, salt.length, 'utf8');
  return sha256(bytes);
}

/**
 * One-shot SHA-256 (crypto.hash): cheaper than createHash().update().digest() for short inputs. The digest is
 * taken as a 'binary' (latin1) string, one character per byte, and copied into a Buffer: asked for a Buffer, crypto.hash
 * costs three times as much (2.1 against 0.7 µs, measured on Node 24, whatever the input's length) (ADR 0102).
 */
function sha256(bytes: Buffer | string): Buffer {
  return Buffer.from(hash('sha256', bytes, 'binary'), 'latin1');
}

/** SHA-256 as lowercase hex (the text PostgreSQL's encode(…, 'hex') gives): no Buffer at all. */
function sha256Hex(bytes: Buffer | string): string {
  return hash('sha256', bytes, 'hex');
}

/** The content hash's text from its parts, the canonical metadata already written. */
function contentText(
  streamIdJson: string,
  eventId: string,
  type: string,
  schemaVersion: number,
  canonicalMetadata: string,
  recordedAtJson: string,
  payloadDigestHex: string,
): string {
  // JSON strings and the jsonb text are self-delimiting, the uuid, the integer and the hex digest fixed in
  // form: joined by commas, no two envelopes give the same text.
  return `${streamIdJson},${eventId},${JSON.stringify(type)},${schemaVersion},${canonicalMetadata},${recordedAtJson},${payloadDigestHex}`;
}

export function contentHash(envelope: HashedEnvelope): Buffer {
  return sha256(
    contentText(
      JSON.stringify(envelope.streamId),
      envelope.eventId,
      envelope.type,
      envelope.schemaVersion,
      canonicalJson(envelope.metadata),
      JSON.stringify(envelope.recordedAt),
      envelope.payloadDigest.toString('hex'),
    ),
  );
}

function int64(value: number): Buffer {
  const bytes = Buffer.alloc(8);
  bytes.writeBigInt64BE(BigInt(value));
  return bytes;
}

/** Reused inputs of the two chain hashes (filled and hashed synchronously): no allocation per link. */
const streamLinkInput = Buffer.alloc(HASH_BYTES + 8 + HASH_BYTES);
const chainLinkInput = Buffer.alloc(HASH_BYTES + HASH_BYTES);

function writeStreamVersion(streamVersion: number): void {
  if (Number.isSafeInteger(streamVersion) && streamVersion >= 0) {
    // Two 32-bit halves: a BigInt per link cost more than the rest of filling the input.
    streamLinkInput.writeUInt32BE(Math.floor(streamVersion / 2 ** 32), HASH_BYTES);
    streamLinkInput.writeUInt32BE(streamVersion >>> 0, HASH_BYTES + 4);
  } else streamLinkInput.writeBigInt64BE(BigInt(streamVersion), HASH_BYTES);
}

export function streamHash(previous: Buffer, streamVersion: number, content: Buffer): Buffer {
  if (previous.length !== HASH_BYTES || content.length !== HASH_BYTES)
    return sha256(Buffer.concat([previous, int64(streamVersion), content])); // stored bytes of a wrong size
  previous.copy(streamLinkInput, 0);
  writeStreamVersion(streamVersion);
  content.copy(streamLinkInput, HASH_BYTES + 8);
  return sha256(streamLinkInput);
}

export function chainHash(previous: Buffer, stream: Buffer): Buffer {
  if (previous.length !== HASH_BYTES || stream.length !== HASH_BYTES)
    return sha256(Buffer.concat([previous, stream]));
  previous.copy(chainLinkInput, 0);
  stream.copy(chainLinkInput, HASH_BYTES);
  return sha256(chainLinkInput);
}

/** A hash as hex text: 64 lowercase hex digits. */
const HASH_HEX_LENGTH = 2 * HASH_BYTES;

/** The hex text of a hash written into `input` at `offset`; false when it is not 32 bytes of hex. */
function writeHashHex(input: Buffer, hex: string, offset: number): boolean {
  return hex.length === HASH_HEX_LENGTH && input.write(hex, offset, 'hex') === HASH_BYTES;
}

/**
 * streamHash over hashes given as hex text (what es_append's parameter and PostgreSQL's encode(…, 'hex')
 * carry), answered as hex: the append chains and the verifier checks a link without a Buffer per hash.
 */
export function streamHashHex(previousHex: string, streamVersion: number, contentHex: string): string {
  if (
    !writeHashHex(streamLinkInput, previousHex, 0) ||
    !writeHashHex(streamLinkInput, contentHex, HASH_BYTES + 8)
  ) {
    const previous = Buffer.from(previousHex, 'hex');
    return streamHash(previous, streamVersion, Buffer.from(contentHex, 'hex')).toString('hex');
  }
  writeStreamVersion(streamVersion);
  return sha256Hex(streamLinkInput);
}

/** chainHash over hashes given as hex text, answered as hex (the sealer's and the verifier's per-event link). */
export function chainHashHex(previousHex: string, streamHex: string): string {
  if (!writeHashHex(chainLinkInput, previousHex, 0) || !writeHashHex(chainLinkInput, streamHex, HASH_BYTES))
    return chainHash(Buffer.from(previousHex, 'hex'), Buffer.from(streamHex, 'hex')).toString('hex');
  return sha256Hex(chainLinkInput);
}

/** ZERO_HASH as hex text. */
export const ZERO_HASH_HEX = ZERO_HASH.toString('hex');

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

/** Per event in an append's seals: salt, payload digest, content hash, one after the other. */
export const SEAL_BYTES = SALT_BYTES + 2 * HASH_BYTES;

/** One append's events sealed (sealAppend). */
export interface SealedAppend {
  /**
   * es_append's p_seals as hex text: each event's salt, payload digest and content hash (SEAL_BYTES an event),
   * followed by its stream hash when they were chained from a known predecessor, one event after the other.
   */
  readonly seals: string;
  /** The last event's stream hash (hex), when the stream hashes were chained here. */
  readonly lastStreamHash: string | undefined;
  /**
   * Each event's data and metadata as canonical JSON, undefined where JSON.stringify would leave the value out:
   * the very text the hashes commit to, which storage can keep instead of serializing the event again.
   */
  readonly data: readonly (string | undefined)[];
  readonly metadata: readonly (string | undefined)[];
}

/** The salt and canonical data of the payload digest being computed (grown when a payload needs more). */
let digestInput = Buffer.allocUnsafe(16_384);

/**
 * The seals of one append's events, as sealEvent gives them one by one, written as es_append's hex parameter:
 * every digest taken as hex text (a digest as a Buffer costs three times as much, ADR 0102), the payload digest
 * hashed from a reused input buffer, and what the events share written once (the stream id, the time, and the
 * metadata object a command's events share). Given the stream's last version and hash, the stream hashes are
 * chained too.
 */
export function sealAppend(
  streamId: string,
  events: readonly {
    readonly id: string;
    readonly type: string;
    readonly schemaVersion: number;
    readonly data: unknown;
    readonly metadata: unknown;
  }[],
  recordedAt: string,
  previous?: { readonly version: number; readonly hash: string },
): SealedAppend {
  let seals = '';
  const data: (string | undefined)[] = new Array(events.length);
  const metadataTexts: (string | undefined)[] = new Array(events.length);
  const streamIdJson = JSON.stringify(streamId);
  const recordedAtJson = JSON.stringify(recordedAt);
  let metadata: unknown = undefined;
  let storedMetadata: string | undefined;
  let streamHex = previous?.hash;
  for (let i = 0; i < events.length; i += 1) {
    const event = events[i]!;
    if (i === 0 || event.metadata !== metadata) {
      metadata = event.metadata;
      storedMetadata = canonicalStored(metadata, '');
    }
    const storedData = canonicalStored(event.data, '');
    const canonicalData = storedData ?? 'null';
    data[i] = storedData;
    metadataTexts[i] = storedMetadata;

    takeSalt();
    // UTF-8 takes at most 3 bytes per UTF-16 code unit.
    if (digestInput.length < SALT_BYTES + canonicalData.length * 3)
      digestInput = Buffer.allocUnsafe(SALT_BYTES + canonicalData.length * 3);
    saltPool.copy(digestInput, 0, saltsLeft * SALT_BYTES, (saltsLeft + 1) * SALT_BYTES);
    const written = digestInput.write(canonicalData, SALT_BYTES, 'utf8');
    const digestHex = sha256Hex(digestInput.subarray(0, SALT_BYTES + written));
    const contentHex = sha256Hex(
      contentText(
        streamIdJson,
        event.id.toLowerCase(),
        event.type,
        event.schemaVersion,
        storedMetadata ?? 'null',
        recordedAtJson,
        digestHex,
      ),
    );
    seals +=
      saltPoolHex.slice(saltsLeft * 2 * SALT_BYTES, (saltsLeft + 1) * 2 * SALT_BYTES) +
      digestHex +
      contentHex;
    if (streamHex !== undefined) {
      streamHex = streamHashHex(streamHex, previous!.version + 1 + i, contentHex);
      seals += streamHex;
    }
  }
  return { seals, lastStreamHash: streamHex, data, metadata: metadataTexts };
}
