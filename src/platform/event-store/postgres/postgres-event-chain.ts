/**
 * The global chain of the PostgreSQL event store (ADR 0060): per-stream chains are computed by es_append
 * under the stream lock; this seals them, in global order, into es_chain. Global order is only known once
 * transactions are visible, so sealing follows readAll instead of serializing every append on one lock.
 */
import type { SqlDatabase, SqlExecutor } from '../../database/sql-database.js';
import { asBuffer, chainHashHex, streamHash, ZERO_HASH, ZERO_HASH_HEX } from '../event-hash.js';
import type { ChainHead, LegacyEventRewriter } from '../event-log-integrity.js';
import type { RecordedEvent } from '../event-store.port.js';
import { encodePosition } from '../global-position.js';

/** Arbitrary constant key of the advisory lock held while sealing: one sealer at a time. */
const SEAL_LOCK_KEY = 7_310_482_915_337_002n;
const SEAL_PAGE_SIZE = 5_000;
const LEGACY_STREAMS_PER_TRANSACTION = 200;

/** Only transactions older than every running one are finished (see postgres-event-store.ts). */
export const VISIBLE = `e.tx_id < (SELECT pg_snapshot_xmin(pg_current_snapshot()))`;

interface SealRow {
  event_id: string;
  tx_id: string;
  seq: string;
  /** Hex: PGlite parses bytea a byte at a time in JavaScript, hex text is decoded natively. */
  stream_hash: string | null;
}

interface HeadRow {
  chain_index: string;
  tx_id: string;
  seq: string;
  chain_hash: Buffer;
}

export async function sealedHead(db: SqlExecutor): Promise<ChainHead | null> {
  const { rows } = await db.query<HeadRow>(
    `SELECT chain_index::text AS chain_index, tx_id::text AS tx_id, seq::text AS seq, chain_hash
       FROM es_chain c ORDER BY c.chain_index DESC LIMIT 1`,
  );
  const row = rows[0];
  return row
    ? {
        chainIndex: Number(row.chain_index),
        position: encodePosition(row.tx_id, row.seq),
        chainHead: asBuffer(row.chain_hash).toString('hex'),
      }
    : null;
}

/**
 * Seals every visible event after the sealed head, page by page, each page in its own transaction under the
 * sealing lock: a crash loses at most the page in flight, which the next run seals again.
 */
export async function sealVisibleEvents(db: SqlDatabase): Promise<ChainHead | null> {
  for (;;) {
    const { sealed, complete, head } = await db.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(${SEAL_LOCK_KEY})`);
      const before = await sealedHead(tx);
      const params: unknown[] = [SEAL_PAGE_SIZE];
      let after = '';
      if (before) {
        const row = await tx.query<{ tx_id: string; seq: string }>(
          `SELECT tx_id::text AS tx_id, seq::text AS seq FROM es_chain WHERE chain_index = $1`,
          [before.chainIndex],
        );
        params.push(row.rows[0]!.tx_id, row.rows[0]!.seq);
        after = `AND (e.tx_id, e.seq) > ($2::text::xid8, $3::text::bigint)`;
      }
      // Erased events are sealed too: their envelopes and hashes stay.
      const { rows } = await tx.query<SealRow>(
        `SELECT e.event_id::text AS event_id, e.tx_id::text AS tx_id, e.seq::text AS seq,
                encode(e.stream_hash, 'hex') AS stream_hash
           FROM es_events e WHERE ${VISIBLE} ${after} ORDER BY e.tx_id, e.seq LIMIT $1`,
        params,
      );
      // An event without a stream hash was not written by an append: sealing stops before it, and
      // verification names it.
      const unhashed = rows.findIndex((row) => !row.stream_hash);
      const complete = unhashed < 0;
      if (!complete) rows.splice(unhashed);
      if (rows.length === 0) return { sealed: 0, complete, head: before };
      let index = before ? before.chainIndex : -1;
      // Hashes stay hex text, as they are read and written (ADR 0102).
      let previous = before ? before.chainHead : ZERO_HASH_HEX;
      const indexes: string[] = [];
      const hashes: string[] = [];
      for (const row of rows) {
        index += 1;
        previous = chainHashHex(previous, row.stream_hash!);
        indexes.push(String(index));
        hashes.push(previous);
      }
      await tx.query(
        `INSERT INTO es_chain (chain_index, event_id, tx_id, seq, chain_hash)
         SELECT c.chain_index, c.event_id, c.tx_id::xid8, c.seq, decode(c.chain_hash, 'hex')
           FROM unnest($1::bigint[], $2::uuid[], $3::text[], $4::bigint[], $5::text[])
                AS c (chain_index, event_id, tx_id, seq, chain_hash)`,
        [
          indexes,
          rows.map((row) => row.event_id),
          rows.map((row) => row.tx_id),
          rows.map((row) => row.seq),
          hashes,
        ],
      );
      const last = rows.at(-1)!;
      return {
        sealed: rows.length,
        complete,
        head: {
          chainIndex: index,
          position: encodePosition(last.tx_id, last.seq),
          chainHead: previous,
        },
      };
    });
    if (!complete || sealed < SEAL_PAGE_SIZE) return head;
  }
}

interface LegacyRow {
  stream_id: string;
  stream_version: string;
  event_id: string;
  type: string;
  schema_version: number;
  data: unknown;
  metadata: Record<string, unknown> | null;
  recorded_at: string;
  tx_id: string;
  seq: string;
}

/**
 * Hashes events written before the chain existed (once; idempotent): stream by stream under the stream lock,
 * after the rewriters had their say. Returns how many events were hashed.
 */
export async function hashLegacyEvents(
  db: SqlDatabase,
  rewriters: readonly LegacyEventRewriter[],
): Promise<number> {
  let hashed = 0;
  for (;;) {
    const { rows: streams } = await db.query<{ stream_id: string }>(
      `SELECT DISTINCT stream_id FROM es_events WHERE stream_hash IS NULL LIMIT $1`,
      [LEGACY_STREAMS_PER_TRANSACTION],
    );
    if (streams.length === 0) return hashed;
    await db.transaction(async (tx) => {
      for (const { stream_id: streamId } of streams)
        hashed += await hashLegacyStream(tx, streamId, rewriters);
    });
  }
}

async function hashLegacyStream(
  tx: SqlExecutor,
  streamId: string,
  rewriters: readonly LegacyEventRewriter[],
): Promise<number> {
  await tx.query(`SELECT 1 FROM es_streams WHERE stream_id = $1 FOR UPDATE`, [streamId]);
  if (rewriters.length > 0) {
    const { rows } = await tx.query<LegacyRow>(
      `SELECT e.stream_id, e.stream_version::text AS stream_version, e.event_id::text AS event_id, e.type,
              e.schema_version, e.data, e.metadata, e.recorded_at, e.tx_id::text AS tx_id, e.seq::text AS seq
         FROM es_events e WHERE e.stream_id = $1 AND e.stream_hash IS NULL ORDER BY e.stream_version`,
      [streamId],
    );
    for (const row of rows) {
      const event: RecordedEvent = {
        id: row.event_id,
        type: row.type,
        schemaVersion: row.schema_version,
        data: row.data,
        metadata: (row.metadata ?? {}) as unknown as RecordedEvent['metadata'],
        streamId: row.stream_id,
        streamVersion: Number(row.stream_version),
        position: encodePosition(row.tx_id, row.seq),
        recordedAt: row.recorded_at,
      };
      let data: unknown = row.data;
      let rewritten = false;
      for (const rewrite of rewriters) {
        const next = await rewrite({ ...event, data }, tx);
        if (next !== undefined) {
          data = next;
          rewritten = true;
        }
      }
      if (rewritten)
        await tx.query(`UPDATE es_events SET data = $2::jsonb WHERE event_id = $1`, [
          row.event_id,
          JSON.stringify(data),
        ]);
    }
  }
  // Salts, digests and content hashes in SQL (the definitions es_append uses); one salt drawn per event.
  const { affectedRows } = await tx.query(
    `UPDATE es_events e
        SET salt = s.salt, payload_digest = es_payload_digest(s.salt, e.data),
            content_hash = es_content_hash(e.stream_id, e.event_id, e.type, e.schema_version, e.metadata,
                                           e.recorded_at, es_payload_digest(s.salt, e.data))
       FROM (SELECT event_id, uuid_send(gen_random_uuid()) AS salt
               FROM es_events WHERE stream_id = $1 AND stream_hash IS NULL) s
      WHERE e.event_id = s.event_id`,
    [streamId],
  );
  if (affectedRows === 0) return 0;
  const { rows } = await tx.query<{
    event_id: string;
    stream_version: string;
    content_hash: Buffer;
    stream_hash: Buffer | null;
  }>(
    `SELECT e.event_id::text AS event_id, e.stream_version::text AS stream_version, e.content_hash, e.stream_hash
       FROM es_events e WHERE e.stream_id = $1 ORDER BY e.stream_version`,
    [streamId],
  );
  let previous = ZERO_HASH;
  const ids: string[] = [];
  const hashes: string[] = [];
  for (const row of rows) {
    if (row.stream_hash) {
      previous = asBuffer(row.stream_hash);
      continue;
    }
    previous = streamHash(previous, Number(row.stream_version), asBuffer(row.content_hash));
    ids.push(row.event_id);
    hashes.push(previous.toString('hex'));
  }
  await tx.query(
    `UPDATE es_events e SET stream_hash = decode(u.hash, 'hex')
       FROM unnest($1::uuid[], $2::text[]) AS u (event_id, hash) WHERE e.event_id = u.event_id`,
    [ids, hashes],
  );
  return ids.length;
}
