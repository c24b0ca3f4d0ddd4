import { describe, expect, it } from '@jest/globals';
import {
  chainHash,
  chainHashHex,
  HASH_BYTES,
  SALT_BYTES,
  SEAL_BYTES,
  sealAppend,
  sealEvent,
  streamHash,
  streamHashHex,
  ZERO_HASH,
  ZERO_HASH_HEX,
} from '../../../src/platform/event-store/event-hash.js';

// ADR 0102: the append writes its seals as hex text. They must be the very hashes sealEvent and streamHash
// (the definitions of ADR 0060, which the verifier and the SQL functions hold) give for the same salt.

const RECORDED_AT = '2026-11-28T12:00:00.000Z';
const METADATA = {
  actor: 'account:a',
  payer: 'account:a',
  scope: null,
  correlationId: 'c',
  causationId: 'c',
};
const events = [
  {
    id: '0B7F3F0E-52A4-4C39-9E36-3F1A7C2D9E01',
    type: 'A',
    schemaVersion: 1,
    data: { b: 1, a: 'é' },
    metadata: METADATA,
  },
  {
    id: '1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f',
    type: 'B',
    schemaVersion: 2,
    data: [1e21, null],
    metadata: METADATA,
  },
  {
    id: '2c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f',
    type: 'C',
    schemaVersion: 1,
    data: undefined,
    metadata: { ...METADATA, requestId: 'r' },
  },
];

/** Cuts es_append's hex seals into each event's salt, digest, content hash and (when chained) stream hash. */
function cut(
  seals: string,
  count: number,
): { salt: Buffer; digest: string; content: string; stream?: string }[] {
  const stride = seals.length / count / 2;
  expect([SEAL_BYTES, SEAL_BYTES + HASH_BYTES]).toContain(stride);
  return Array.from({ length: count }, (_, i) => {
    const at = i * stride * 2;
    const field = (from: number, bytes: number): string =>
      seals.slice(at + from * 2, at + (from + bytes) * 2);
    return {
      salt: Buffer.from(field(0, SALT_BYTES), 'hex'),
      digest: field(SALT_BYTES, HASH_BYTES),
      content: field(SALT_BYTES + HASH_BYTES, HASH_BYTES),
      ...(stride > SEAL_BYTES ? { stream: field(SEAL_BYTES, HASH_BYTES) } : {}),
    };
  });
}

describe('the seals of an append, written as hex (ADR 0102)', () => {
  it('hold what sealEvent gives for the same salt, and the stream hashes streamHash chains', () => {
    const previous = { version: 6, hash: 'ab'.repeat(HASH_BYTES) };
    const sealed = sealAppend('stream-1', events, RECORDED_AT, previous);
    const parts = cut(sealed.seals, events.length);
    let hash: Buffer = Buffer.from(previous.hash, 'hex');
    events.forEach((event, i) => {
      const part = parts[i]!;
      const expected = sealEvent('stream-1', event, RECORDED_AT, part.salt);
      expect(part.digest).toBe(expected.payloadDigest.toString('hex'));
      expect(part.content).toBe(expected.contentHash.toString('hex'));
      hash = streamHash(hash, previous.version + 1 + i, expected.contentHash);
      expect(part.stream).toBe(hash.toString('hex'));
    });
    expect(sealed.lastStreamHash).toBe(hash.toString('hex'));
    expect(new Set(parts.map((part) => part.salt.toString('hex'))).size).toBe(events.length);
  });

  it('leave the stream hashes to es_append when no predecessor is given', () => {
    const sealed = sealAppend('stream-2', events, RECORDED_AT);
    expect(sealed.lastStreamHash).toBeUndefined();
    expect(sealed.seals).toHaveLength(events.length * SEAL_BYTES * 2);
    const [first] = cut(sealed.seals, events.length);
    expect(first!.content).toBe(
      sealEvent('stream-2', events[0]!, RECORDED_AT, first!.salt).contentHash.toString('hex'),
    );
  });

  it('chain on hex text exactly as on bytes, stored hashes of a wrong size included', () => {
    const content = Buffer.from('cd'.repeat(HASH_BYTES), 'hex');
    expect(streamHashHex(ZERO_HASH_HEX, 0, content.toString('hex'))).toBe(
      streamHash(ZERO_HASH, 0, content).toString('hex'),
    );
    expect(streamHashHex(ZERO_HASH_HEX, 2 ** 40 + 3, content.toString('hex'))).toBe(
      streamHash(ZERO_HASH, 2 ** 40 + 3, content).toString('hex'),
    );
    const short = 'ef'.repeat(5);
    expect(streamHashHex(short, 1, content.toString('hex'))).toBe(
      streamHash(Buffer.from(short, 'hex'), 1, content).toString('hex'),
    );
    expect(chainHashHex(ZERO_HASH_HEX, content.toString('hex'))).toBe(
      chainHash(ZERO_HASH, content).toString('hex'),
    );
    expect(chainHashHex(ZERO_HASH_HEX, short)).toBe(
      chainHash(ZERO_HASH, Buffer.from(short, 'hex')).toString('hex'),
    );
  });
});
