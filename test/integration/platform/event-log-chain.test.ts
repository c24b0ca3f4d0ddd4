/**
 * Tamper evidence of the PostgreSQL event log (ADR 0060-0062), on PGlite and on the server: every kind of
 * tampering done with raw SQL is named at its position by verification, an erasure is not tampering, a chain
 * forged with recomputed hashes is caught by the signed checkpoint, and a log written before the chain is
 * hashed once at init, after the legacy rewriters.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { systemClock } from '../../../src/platform/clock/clock.js';
import type { SqlExecutor } from '../../../src/platform/database/sql-database.js';
import { CheckpointSigner } from '../../../src/platform/event-store/checkpoint-signer.js';
import {
  asBuffer,
  canonicalJson,
  canonicalPlainJson,
  chainHash,
  contentHash,
  payloadDigest,
  sealEvent,
  streamHash,
  ZERO_HASH,
} from '../../../src/platform/event-store/event-hash.js';
import type { NewEvent, RecordedEvent } from '../../../src/platform/event-store/event-store.port.js';
import { decodePosition, encodePosition } from '../../../src/platform/event-store/global-position.js';
import { PostgresEventStore } from '../../../src/platform/event-store/postgres/postgres-event-store.js';
import { TamperEvidence } from '../../../src/platform/event-store/tamper-evidence.js';
import { createTestDatabase, SQL_KINDS, type TestDatabase } from '../../support/databases.js';

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

interface Row {
  event_id: string;
  tx_id: string;
  seq: string;
  stream_id: string;
}

describe.each(SQL_KINDS)('the event log hash chain on %s', (kind) => {
  let testDb: TestDatabase;
  let store: PostgresEventStore;
  let evidence: TamperEvidence;
  let keyDir: string;

  beforeEach(async () => {
    testDb = await createTestDatabase(kind);
    store = new PostgresEventStore(testDb.db);
    await store.init();
    keyDir = mkdtempSync(join(tmpdir(), 'chain-key-'));
    evidence = new TamperEvidence(store, CheckpointSigner.load({ dataDir: keyDir }), systemClock);
  });

  afterEach(async () => {
    await store.close();
    await testDb.dispose();
    rmSync(keyDir, { recursive: true, force: true });
  });

  /** Three interleaved streams, one append of two events, then a signed checkpoint and two events more. */
  async function writeLog(): Promise<{ purchase: RecordedEvent; pair: RecordedEvent[] }> {
    await store.append('account-a', [event('AccountOpened', { email: 'a@example.com' })], {
      expectedVersion: 'no_stream',
    });
    await store.append('ledger-a', [event('CreditsPurchased', { amount: 7, by: 'account:alice' })], {
      expectedVersion: 'no_stream',
    });
    await store.append(
      'ledger-b',
      [event('CreditsPurchased', { amount: 1 }), event('CreditsSpent', { amount: 1 })],
      { expectedVersion: 'no_stream' },
    );
    await store.append('account-a', [event('EmailChanged', { email: 'b@example.com' })], {
      expectedVersion: 0,
    });
    await store.append('ledger-a', [event('CreditsSpent', { amount: 2 })], { expectedVersion: 0 });
    const checkpoint = await evidence.checkpoint();
    expect(checkpoint?.chainIndex).toBe(5);
    await store.append('ledger-c', [event('CreditsPurchased', { amount: 3 })], {
      expectedVersion: 'no_stream',
    });
    await store.append('ledger-a', [event('CreditsSpent', { amount: 1 })], { expectedVersion: 1 });
    await evidence.seal();
    return {
      purchase: (await store.readStream('ledger-a'))[0]!,
      pair: await store.readStream('ledger-b'),
    };
  }

  async function rows(): Promise<Row[]> {
    const { rows: all } = await testDb.db.query<Row>(
      `SELECT event_id::text AS event_id, tx_id::text AS tx_id, seq::text AS seq, stream_id
         FROM es_events ORDER BY tx_id, seq`,
    );
    return all;
  }

  it('hashes as event-hash.ts defines, and as the SQL definitions (legacy hashing) recompute: jsonb text, byte for byte', async () => {
    const tricky: unknown[] = [
      { b: 1, a: 2, aa: [1, 2.5, -0, 1e21, 1.5e-7, 123456789012345680000, -5e-324], '': null },
      { é: 'ünïcode ✓ 😀', z: '"quoted" \\ back\nslash\t\u0001\u001f\u007f', nested: { y: [], x: {} } },
      'a string',
      42,
      true,
      null,
      [{ k: 'v' }, [[]], 0.1, 0.30000000000000004],
    ];
    for (const value of tricky) {
      const { rows } = await testDb.db.query<{ text: string }>('SELECT $1::jsonb::text AS text', [
        JSON.stringify(value),
      ]);
      expect(canonicalJson(value)).toBe(rows[0]!.text);
    }
    const plain = event('Hashed', tricky[1]);
    // Metadata fields beyond the five named ones are hashed and stored too.
    const metadata = { ...plain.metadata, extra: ['x', 1] };
    const appended: NewEvent = { ...plain, metadata };
    await store.append('hash-definition', [appended], { expectedVersion: 'no_stream' });
    expect((await store.readStream('hash-definition'))[0]?.metadata).toEqual(metadata);
    const { rows } = await testDb.db.query<{
      salt: Uint8Array;
      payload_digest: Uint8Array;
      content_hash: Uint8Array;
      stream_hash: Uint8Array;
      recorded_at: string;
    }>(
      `SELECT salt, payload_digest, content_hash, stream_hash, recorded_at FROM es_events WHERE stream_id = 'hash-definition'`,
    );
    const stored = rows[0]!;
    const expected = sealEvent('hash-definition', appended, stored.recorded_at, asBuffer(stored.salt));
    expect(expected.payloadDigest.equals(asBuffer(stored.payload_digest))).toBe(true);
    expect(expected.contentHash.equals(asBuffer(stored.content_hash))).toBe(true);
    expect(streamHash(ZERO_HASH, 0, expected.contentHash).equals(asBuffer(stored.stream_hash))).toBe(true);
    // The appending process computed these; the SQL definitions (hashing a log written before the chain)
    // must agree with it.
    const { rows: recomputed } = await testDb.db.query<{ payload: boolean; content: boolean }>(
      `SELECT es_payload_digest(salt, data) = payload_digest AS payload,
              es_content_hash(stream_id, event_id, type, schema_version, metadata, recorded_at, payload_digest)
                = content_hash AS content
         FROM es_events WHERE stream_id = 'hash-definition'`,
    );
    expect(recomputed[0]).toEqual({ payload: true, content: true });
  });

  it('canonical JSON is the jsonb text for any JSON value, and any payload appended verifies (fast-check)', async () => {
    // What jsonb refuses (NUL characters, lone surrogates) never reaches a hash: the append fails first.
    const storable = fc.jsonValue().filter((value) => {
      const text = JSON.stringify(value);
      return !text.includes('\\u0000') && !/\\ud[89a-f]/i.test(text);
    });
    await fc.assert(
      fc.asyncProperty(storable, async (value) => {
        const { rows } = await testDb.db.query<{ text: string }>('SELECT $1::jsonb::text AS text', [
          JSON.stringify(value),
        ]);
        expect(canonicalJson(value)).toBe(rows[0]!.text);
      }),
      { numRuns: 300 },
    );
    let version = -1;
    await fc.assert(
      fc.asyncProperty(storable, storable, async (data, extra) => {
        const plain = event('Arbitrary', data);
        const metadata = { ...plain.metadata, extra };
        const appended: NewEvent = { ...plain, metadata };
        await store.append('arbitrary', [appended], {
          expectedVersion: version < 0 ? 'no_stream' : version,
        });
        version += 1;
      }),
      { numRuns: 100 },
    );
    const report = await evidence.verify();
    expect(report.finding).toBeNull();
    expect(report.eventsChecked).toBe(100);
  });

  it('verifies an untouched log: every event, the sealed chain and the signed checkpoint', async () => {
    await writeLog();
    const report = await evidence.verify();
    expect(report).toMatchObject({ ok: true, finding: null, unsealed: 0, checkpointsChecked: 1 });
    expect(report.eventsChecked).toBe(9); // eight events and the checkpoint
    expect(report.lastVerifiedCheckpoint?.chainIndex).toBe(5);
    expect(report.sealedThrough?.chainIndex).toBe(8);
  });

  it('names the position of a changed payload', async () => {
    const { purchase } = await writeLog();
    await testDb.db.query(
      `UPDATE es_events SET data = jsonb_set(data, '{amount}', '70000') WHERE event_id = $1`,
      [purchase.id],
    );
    const report = await evidence.verify();
    expect(report.ok).toBe(false);
    expect(report.finding).toMatchObject({
      kind: 'changed_payload',
      position: purchase.position,
      eventId: purchase.id,
    });
  });

  it('recomputes every hash itself: hash functions replaced in the database do not hide a change', async () => {
    const { purchase } = await writeLog();
    // An attacker with write access changes a payload and an actor, and redefines the database's hash
    // functions to answer what is stored: a verification computing in the database would find nothing.
    await testDb.db.query(
      `UPDATE es_events SET data = jsonb_set(data, '{amount}', '70000'),
                            metadata = jsonb_set(metadata, '{actor}', '"operator:mallory"')
        WHERE event_id = $1`,
      [purchase.id],
    );
    await testDb.db
      .query(`CREATE OR REPLACE FUNCTION es_payload_digest(p_salt bytea, p_data jsonb) RETURNS bytea
      LANGUAGE sql STABLE AS $fn$ SELECT payload_digest FROM es_events WHERE salt = p_salt $fn$`);
    await testDb.db.query(`CREATE OR REPLACE FUNCTION es_content_hash(
        p_stream_id text, p_event_id uuid, p_type text, p_schema_version integer, p_metadata jsonb,
        p_recorded_at text, p_payload_digest bytea) RETURNS bytea
      LANGUAGE sql STABLE AS $fn$ SELECT content_hash FROM es_events WHERE event_id = p_event_id $fn$`);
    const report = await evidence.verify();
    expect(report.finding).toMatchObject({
      kind: 'changed_payload',
      position: purchase.position,
      eventId: purchase.id,
    });
  });

  it('chains correctly whether the appending instance knows the last stream hash or another instance moved it', async () => {
    // Two instances on one database: each remembers the hashes of its own appends, which the other makes stale.
    const other = new PostgresEventStore(testDb.db);
    let version = -1;
    for (let i = 0; i < 12; i += 1) {
      const writer = i % 3 === 2 ? other : store; // runs of two by one instance, then one by the other
      const batch = [event('Counted', { i }), event('Counted', { i, second: true })];
      version = (
        await writer.append('two-writers', batch, { expectedVersion: version < 0 ? 'no_stream' : version })
      ).nextExpectedVersion;
    }
    await other.close();
    const report = await evidence.verify();
    expect(report.finding).toBeNull();
    expect(report.eventsChecked).toBe(24);
  });

  it('names the position of changed metadata', async () => {
    const { purchase } = await writeLog();
    await testDb.db.query(
      `UPDATE es_events SET metadata = jsonb_set(metadata, '{actor}', '"operator:mallory"') WHERE event_id = $1`,
      [purchase.id],
    );
    const report = await evidence.verify();
    expect(report.finding).toMatchObject({ kind: 'changed_event', position: purchase.position });
  });

  it('names the position of a removed event', async () => {
    const { purchase } = await writeLog();
    await testDb.db.query(`DELETE FROM es_events WHERE event_id = $1`, [purchase.id]);
    const report = await evidence.verify();
    expect(report.finding).toMatchObject({
      kind: 'removed',
      position: purchase.position,
      eventId: purchase.id,
    });
  });

  it('names the position of an inserted event', async () => {
    const { purchase } = await writeLog();
    const target = (await rows()).find((row) => row.event_id === purchase.id)!;
    // Just before the purchase in global order: same transaction id, one sequence number lower.
    const insertedSeq = String(Number(target.seq) - 1);
    await testDb.db.query(
      `INSERT INTO es_events (tx_id, seq, stream_id, stream_version, event_id, type, schema_version, data,
                              metadata, recorded_at)
       OVERRIDING SYSTEM VALUE
       VALUES ($1::text::xid8, $2::bigint, 'ledger-z', 0, $3, 'CreditsPurchased', 1, '{"amount":70000}',
               '{"actor":"account:mallory"}', '2020-01-01T00:00:00.000Z')`,
      [target.tx_id, insertedSeq, randomUUID()],
    );
    const report = await evidence.verify();
    expect(report.finding).toMatchObject({
      kind: 'inserted',
      position: encodePosition(target.tx_id, insertedSeq),
    });
  });

  it('names the position of two reordered events (their sequence numbers swapped)', async () => {
    const { pair } = await writeLog();
    // The owner of the database may do anything, e.g. let the sequence column be written.
    await testDb.db.query(`ALTER TABLE es_events ALTER COLUMN seq SET GENERATED BY DEFAULT`);
    await testDb.db.query(
      `UPDATE es_events SET seq = CASE WHEN event_id = $1 THEN $4::bigint ELSE $3::bigint END
        WHERE event_id IN ($1, $2)`,
      [pair[0]!.id, pair[1]!.id, decodeSeq(pair[0]!.position), decodeSeq(pair[1]!.position)],
    );
    const report = await evidence.verify();
    expect(report.finding).toMatchObject({ kind: 'reordered', position: pair[0]!.position });
  });

  it('reports an erased stream as an erased span, by which event and when, not as tampering', async () => {
    const { purchase } = await writeLog();
    const erasure = event('AccountErased', { stream: 'ledger-a' });
    await store.eraseStream('ledger-a', { by: erasure.id, at: '2026-11-28T06:00:00.000Z' });
    await store.append('erasures', [erasure], { expectedVersion: 'no_stream' });
    expect(await store.readStream('ledger-a')).toEqual([]);
    const { rows: left } = await testDb.db.query<{ data: unknown; salt: Buffer | null }>(
      `SELECT data, salt FROM es_events WHERE stream_id = 'ledger-a'`,
    );
    expect(left).toHaveLength(3);
    expect(left.every((row) => row.data === null && row.salt === null)).toBe(true);

    const report = await evidence.verify();
    expect(report.finding).toBeNull();
    expect(report.ok).toBe(true);
    expect(report.erasedSpans).toEqual([
      expect.objectContaining({
        streamId: 'ledger-a',
        fromVersion: 0,
        toVersion: 2,
        fromPosition: purchase.position,
        erasedBy: erasure.id,
        erasedAt: '2026-11-28T06:00:00.000Z',
      }),
    ]);
  });

  it('reports payloads removed without an erasure event in the log', async () => {
    const { purchase } = await writeLog();
    await testDb.db.query(
      `UPDATE es_events SET data = NULL, salt = NULL, erased_by = $2, erased_at = '2026-01-01' WHERE event_id = $1`,
      [purchase.id, randomUUID()],
    );
    const report = await evidence.verify();
    expect(report.finding).toMatchObject({ kind: 'unattributed_erasure', position: purchase.position });
  });

  it('catches a chain forged with recomputed hashes through the signed checkpoint', async () => {
    const { purchase } = await writeLog();
    await testDb.db.query(
      `UPDATE es_events SET data = jsonb_set(data, '{amount}', '70000') WHERE event_id = $1`,
      [purchase.id],
    );
    await forgeHashes(testDb.db);
    // Every hash follows from its inputs again: only the signature can tell.
    const report = await evidence.verify();
    expect(report.finding).toMatchObject({ kind: 'checkpoint_mismatch' });
    expect(report.finding?.detail).toMatch(/no longer hashes to the checkpoint/);

    // Rewriting the checkpoint's chain head to the forged one breaks its signature.
    const forgedHead = (
      await testDb.db.query<{ hash: string }>(
        `SELECT encode(chain_hash, 'hex') AS hash FROM es_chain WHERE chain_index = 5`,
      )
    ).rows[0]!.hash;
    await testDb.db.query(
      `UPDATE es_events SET data = jsonb_set(data, '{chainHead}', to_jsonb($1::text)) WHERE stream_id = '$checkpoints'`,
      [forgedHead],
    );
    await forgeHashes(testDb.db);
    const resigned = await evidence.verify();
    expect(resigned.finding).toMatchObject({ kind: 'checkpoint_mismatch' });
    expect(resigned.finding?.detail).toMatch(/no valid signature/);
  });

  it('proves the log still matches a checkpoint kept outside, and fails once it was changed', async () => {
    const { purchase } = await writeLog();
    const kept = (await evidence.checkpoint())!;
    expect(kept.chainIndex).toBe(8);
    expect((await evidence.verify({ externalCheckpoint: kept })).ok).toBe(true);
    // The attacker removes the checkpoints from the log and forges the chain: the one kept outside still tells.
    await testDb.db.query(`DELETE FROM es_events WHERE stream_id = '$checkpoints'`);
    await testDb.db.query(`DELETE FROM es_chain`);
    await testDb.db.query(
      `UPDATE es_events SET data = jsonb_set(data, '{amount}', '70000') WHERE event_id = $1`,
      [purchase.id],
    );
    await forgeHashes(testDb.db);
    expect((await evidence.verify()).ok).toBe(true); // nothing inside the log can tell any more
    const report = await evidence.verify({ externalCheckpoint: kept });
    expect(report.ok).toBe(false);
    expect(report.finding?.kind).toBe('checkpoint_mismatch');
  });

  it('resumes sealing after a crash and seals nothing twice', async () => {
    await writeLog();
    await testDb.db.query(`DELETE FROM es_chain WHERE chain_index >= 3`); // a crash lost the last pages
    const head = await evidence.seal();
    expect(head?.chainIndex).toBe(8);
    expect(await evidence.seal()).toEqual(head);
    expect((await evidence.verify()).ok).toBe(true);
  });

  it('seals in many passes past ten, a hundred, a thousand events (the head is a number, not a text)', async () => {
    for (let pass = 0; pass < 12; pass += 1) {
      await store.append(
        `batch-${pass}`,
        Array.from({ length: pass === 11 ? 1000 : 10 }, (_, i) => event('Counted', { i })),
        { expectedVersion: 'no_stream' },
      );
      await evidence.seal();
    }
    expect((await evidence.seal())?.chainIndex).toBe(1109);
    const report = await evidence.verify({ from: (await store.readStream('batch-3'))[9]!.position });
    expect(report).toMatchObject({ ok: true, eventsChecked: 1070 });
    expect((await evidence.verify()).ok).toBe(true);
  });

  it('verifies a log read in several ranges, whose transaction ids grow by a digit on the way', async () => {
    // Past 10,000 sealed events verification reads ranges cut at sealed positions; hundreds of single appends
    // between the cuts move the transaction ids from three or four digits to the next (text order would differ).
    const batch = (n: number) => Array.from({ length: n }, (_, i) => event('Counted', { i }));
    for (let b = 0; b < 110; b += 1)
      await store.append(`ranged-${b}`, batch(100), { expectedVersion: 'no_stream' });
    const xid = async (): Promise<number> =>
      Number(
        (await testDb.db.query<{ xid: string }>('SELECT pg_current_xact_id()::text AS xid')).rows[0]!.xid,
      );
    const nextDigit = 10 ** String(await xid()).length;
    // On a server other sessions took ids already, often thousands short of the next digit: ids up to the last
    // few hundred are taken here without an event (a transaction each, in one statement, ~20 us an id), far
    // faster than appending one event per id; the single appends then carry the ids over the digit as before.
    // Further than 200,000 short (seconds of taking), the appends go on as before, at most 10,000 of them.
    const skipped = nextDigit - (await xid()) - 300;
    if (skipped > 0 && skipped <= 200_000)
      await testDb.db.query(
        `DO $$ BEGIN FOR i IN 1..${skipped} LOOP PERFORM pg_current_xact_id(); COMMIT; END LOOP; END $$`,
      );
    const start = await xid();
    for (let i = 0; nextDigit > start + i && i < 10_000; i += 1)
      await store.append(`ranged-single-${i}`, batch(1), { expectedVersion: 'no_stream' });
    for (let b = 110; b < 220; b += 1)
      await store.append(`ranged-${b}`, batch(100), { expectedVersion: 'no_stream' });
    const report = await evidence.verify();
    expect(report.finding).toBeNull();
    expect(report.eventsChecked).toBeGreaterThan(22_000);
  });

  it('verifies from a position, trusting the chain before it', async () => {
    const { purchase } = await writeLog();
    const after = await evidence.verify({ from: purchase.position });
    expect(after).toMatchObject({ ok: true, from: purchase.position });
    expect(after.eventsChecked).toBe(7);
  });

  it('hashes and seals a log written before the chain once, after the legacy rewriters', async () => {
    await store.append('account-old', [event('PasswordSet', { passwordHash: 'scrypt$secret' })], {
      expectedVersion: 'no_stream',
    });
    await store.append('account-old', [event('EmailChanged', { email: 'c@example.com' })], {
      expectedVersion: 0,
    });
    // Today's main: no hash columns, no chain.
    await testDb.db.query(
      `ALTER TABLE es_events DROP COLUMN salt, DROP COLUMN payload_digest, DROP COLUMN content_hash,
         DROP COLUMN stream_hash, DROP COLUMN erased_by, DROP COLUMN erased_at`,
    );
    await testDb.db.query(`DROP TABLE es_chain`);

    const seen: string[] = [];
    const redactSecrets = async (old: RecordedEvent, tx: SqlExecutor): Promise<unknown> => {
      seen.push(old.type);
      // Runs inside the hashing transaction.
      expect((await tx.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one).toBe(1);
      return old.type === 'PasswordSet' ? { credentialChanged: true } : undefined;
    };
    const upgraded = new PostgresEventStore(testDb.db, { legacyEventRewriters: [redactSecrets] });
    await upgraded.init();
    await upgraded.init(); // idempotent: nothing left to hash
    expect(seen).toEqual(['PasswordSet', 'EmailChanged']);
    const history = await upgraded.readStream('account-old');
    expect(history.map((each) => each.data)).toEqual([
      { credentialChanged: true },
      { email: 'c@example.com' },
    ]);
    expect((await upgraded.integrity.sealedHead())?.chainIndex).toBe(1);

    const upgradedEvidence = new TamperEvidence(upgraded, evidence.signer, systemClock);
    expect((await upgradedEvidence.verify()).ok).toBe(true);
    // And it goes on: new appends chain onto the hashed legacy events.
    await upgraded.append('account-old', [event('EmailChanged', { email: 'd@example.com' })], {
      expectedVersion: 1,
    });
    expect((await upgradedEvidence.verify()).ok).toBe(true);
    await upgraded.close();
  });
});

function decodeSeq(position: string): string {
  return decodePosition(position).minor.toString();
}

/** What an attacker with database access can do: recompute every hash and the whole chain from the rows. */
async function forgeHashes(db: SqlExecutor): Promise<void> {
  const { rows } = await db.query<{
    event_id: string;
    stream_id: string;
    stream_version: string;
    type: string;
    schema_version: number;
    data: unknown;
    metadata: unknown;
    recorded_at: string;
    salt: Uint8Array;
  }>(
    `SELECT event_id::text AS event_id, stream_id, stream_version::text AS stream_version, type, schema_version,
            data, metadata, recorded_at, salt
       FROM es_events ORDER BY tx_id, seq`,
  );
  const streams = new Map<string, Buffer>();
  let chain = ZERO_HASH;
  await db.query(`DELETE FROM es_chain`);
  for (const [index, row] of rows.entries()) {
    const digest = payloadDigest(asBuffer(row.salt), canonicalPlainJson(row.data));
    const content = contentHash({
      streamId: row.stream_id,
      eventId: row.event_id,
      type: row.type,
      schemaVersion: row.schema_version,
      metadata: row.metadata,
      recordedAt: row.recorded_at,
      payloadDigest: digest,
    });
    const hash = streamHash(streams.get(row.stream_id) ?? ZERO_HASH, Number(row.stream_version), content);
    streams.set(row.stream_id, hash);
    chain = chainHash(chain, hash);
    await db.query(
      `UPDATE es_events SET payload_digest = $2, content_hash = $3, stream_hash = $4 WHERE event_id = $1`,
      [row.event_id, digest, content, hash],
    );
    await db.query(
      `INSERT INTO es_chain (chain_index, event_id, tx_id, seq, chain_hash)
       SELECT $1, event_id, tx_id, seq, $3 FROM es_events WHERE event_id = $2`,
      [index, row.event_id, chain],
    );
  }
}
