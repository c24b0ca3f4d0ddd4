/**
 * Verifies the PostgreSQL event log against its hashes (ADR 0061): every visible event in global order,
 * recomputing payload digests, content hashes, stream chains and the sealed global chain, and every signed
 * checkpoint. Stops at the first finding, which names the global position where the log stopped matching.
 */
import type { SqlDatabase } from '../../database/sql-database.js';
import { ChainFinding, chainFinding, ChainWalk } from '../chain-verification.js';
import {
  CHECKPOINT_STREAM,
  type ChainCheckpoint,
  type TamperKind,
  type VerificationReport,
  type VerifyOptions,
} from '../event-log-integrity.js';
import { decodePosition, encodePosition, type GlobalPosition } from '../global-position.js';
import { chainHashHex, streamHashHex, ZERO_HASH_HEX } from '../event-hash.js';
import { VISIBLE } from './postgres-event-chain.js';

const VERIFY_PAGE_SIZE = 10_000;

/**
 * One event as verification reads it: the envelope, what the database found of its payload digest and content
 * hash, and the stored content and stream hashes in hex, from which the stream and global chains are
 * recomputed here (ADR 0081).
 */
interface VerifyRow {
  stream_id: string;
  stream_version: string;
  event_id: string;
  type: string;
  tx_id: string;
  seq: string;
  erased_by: string | null;
  erased_at: string | null;
  /** The CHECK bits that hold (one column: fewer to parse per row). */
  checks: number;
  /** Hashes in hex: PGlite parses bytea a byte at a time in JavaScript, hex text is decoded natively. */
  content_hash: string | null;
  stream_hash: string | null;
  /** The sealed chain's entry for this event, joined by its id (null: not sealed, or not an event it knows). */
  chain_index: string | null;
  chain_hash: string | null;
  /** The stored stream hash of the predecessor, read only when verifying from a position. */
  previous_stream_hash?: string | null;
  /** Set once the position is needed (findings, spans, the last event of a page). */
  position?: GlobalPosition;
}

/**
 * What the database found of each event, as bits of `checks`: its payload digest and content hash recomputed,
 * and its sealed chain entry naming the position the event stands at.
 */
const CHECK = { payload: 1, content: 2, sealedHere: 4 } as const;

/**
 * The payload digest and content hash of ADR 0060, recomputed where the payloads are, in parallel on two
 * backends; stream and chain hashes are recomputed by the verifier, which holds the state they chain.
 * Built-in functions and operators only, named by their pg_catalog schema: none of the service's own SQL
 * functions (an attacker with write access to the database can replace those, and a search_path put before
 * pg_catalog could shadow unqualified names).
 */
const PAYLOAD_DIGEST = `pg_catalog.sha256(e.salt OPERATOR(pg_catalog.||)
  pg_catalog.convert_to(coalesce(e.data::text, 'null'), 'UTF8'))`;
const CONTENT_HASH = `pg_catalog.sha256(pg_catalog.convert_to(pg_catalog.concat_ws(',',
  pg_catalog.to_json(e.stream_id)::text, e.event_id::text, pg_catalog.to_json(e.type)::text,
  e.schema_version::text, coalesce(e.metadata::text, 'null'), pg_catalog.to_json(e.recorded_at)::text,
  pg_catalog.encode(e.payload_digest, 'hex')), 'UTF8'))`;

const VERIFY_COLUMNS = `e.stream_id, e.stream_version::text AS stream_version, e.event_id::text AS event_id, e.type,
  e.tx_id::text AS tx_id, e.seq::text AS seq, e.erased_by::text AS erased_by, e.erased_at,
  (CASE WHEN e.salt IS NOT NULL AND (${PAYLOAD_DIGEST} OPERATOR(pg_catalog.=) e.payload_digest)
        THEN ${CHECK.payload} ELSE 0 END
   + CASE WHEN (${CONTENT_HASH} OPERATOR(pg_catalog.=) e.content_hash) THEN ${CHECK.content} ELSE 0 END
   + CASE WHEN c.tx_id OPERATOR(pg_catalog.=) e.tx_id AND c.seq OPERATOR(pg_catalog.=) e.seq
          THEN ${CHECK.sealedHere} ELSE 0 END) AS checks,
  pg_catalog.encode(e.content_hash, 'hex') AS content_hash, pg_catalog.encode(e.stream_hash, 'hex') AS stream_hash,
  c.chain_index::text AS chain_index, pg_catalog.encode(c.chain_hash, 'hex') AS chain_hash`;

/**
 * The sealed global chain zipped with the events where they are read (ADR 0122): each event's entry among the
 * chain indexes its range should hold ($2, $3), instead of a second read of the chain that the verifier would
 * parse and zip itself. An event whose entry lies elsewhere (moved, inserted) meets none, and chainMismatch
 * looks it up.
 */
const CHAIN_JOIN = `LEFT JOIN es_chain c ON c.event_id OPERATOR(pg_catalog.=) e.event_id
  AND c.chain_index OPERATOR(pg_catalog.>=) $2 AND c.chain_index OPERATOR(pg_catalog.<) $3`;

/** Verifying from a position, a stream met first past version 0 continues its stored (trusted) chain. */
const PREVIOUS_STREAM_HASH = `, (SELECT pg_catalog.encode(p.stream_hash, 'hex') FROM es_events p
   WHERE p.stream_id = e.stream_id AND p.stream_version = e.stream_version - 1) AS previous_stream_hash`;

function positionOf(row: VerifyRow): GlobalPosition {
  return (row.position ??= encodePosition(row.tx_id, row.seq));
}

function finding(
  kind: TamperKind,
  row: VerifyRow | null,
  detail: string,
  position?: GlobalPosition,
): ChainFinding {
  return chainFinding(
    kind,
    row ? { position: position ?? positionOf(row), streamId: row.stream_id } : null,
    row?.event_id ?? null,
    detail,
  );
}

export async function verifyPostgresChain(
  db: SqlDatabase,
  options: VerifyOptions,
): Promise<VerificationReport> {
  const walk = new ChainWalk(options);
  const from = walk.from;
  /** The last version seen of every stream, and its stream hash (hex) as recomputed here. */
  const streams = new Map<string, { version: number; hash: string }>();
  /** The global chain hash (hex) through the last sealed event passed. Hashes stay hex text (ADR 0102). */
  let chainHead: string;

  const sealedCount = Number(
    (await db.query<{ n: string }>(`SELECT count(*)::text AS n FROM es_chain`)).rows[0]!.n,
  );
  // Where to start: after `from`, trusting the chain hash stored there (the checkpoints anchor it).
  let nextIndex = 0;
  let after: { major: string; minor: string } | null = null;
  if (from) {
    const { major, minor } = decodePosition(from);
    after = { major: major.toString(), minor: minor.toString() };
    const { rows } = await db.query<{ chain_index: string }>(
      `SELECT c.chain_index::text AS chain_index FROM es_chain c
        WHERE (c.tx_id, c.seq) <= ($1::text::xid8, $2::text::bigint) ORDER BY c.chain_index DESC LIMIT 1`,
      [after.major, after.minor],
    );
    if (rows[0]) nextIndex = Number(rows[0].chain_index) + 1;
  }
  /** The global chain hash through nextIndex - 1: recomputed from here on, the stored one trusted before. */
  chainHead = ZERO_HASH_HEX;
  if (nextIndex > 0) {
    const { rows } = await db.query<{ chain_hash: string }>(
      `SELECT encode(chain_hash, 'hex') AS chain_hash FROM es_chain WHERE chain_index = $1`,
      [nextIndex - 1],
    );
    chainHead = rows[0]!.chain_hash;
  }
  const total = Number(
    (
      await db.query<{ n: string }>(
        after
          ? `SELECT count(*)::text AS n FROM es_events e WHERE ${VISIBLE} AND (e.tx_id, e.seq) > ($1::text::xid8, $2::text::bigint)`
          : `SELECT count(*)::text AS n FROM es_events e WHERE ${VISIBLE}`,
        after ? [after.major, after.minor] : [],
      )
    ).rows[0]!.n,
  );

  // The checkpoints to hold the chain against: those in the log (read as they come) and the one kept outside.
  if (options.externalCheckpoint) {
    const external = options.externalCheckpoint;
    if (external.chainIndex < nextIndex) {
      const { rows } = await db.query<{ chain_hash: string; tx_id: string; seq: string }>(
        `SELECT encode(chain_hash, 'hex') AS chain_hash, tx_id::text AS tx_id, seq::text AS seq
           FROM es_chain WHERE chain_index = $1`,
        [external.chainIndex],
      );
      const row = rows[0];
      if (!row)
        throw new Error(
          `the checkpoint names chain index ${external.chainIndex}, which the log does not have`,
        );
      try {
        walk.checkCheckpoint(external, row.chain_hash, encodePosition(row.tx_id, row.seq));
      } catch (error) {
        if (error instanceof ChainFinding) return walk.report(error.finding);
        throw error;
      }
    } else walk.expectCheckpoint(external);
  }

  // Every checkpoint recorded in the log; those before `from` were checked by an earlier verification.
  const { rows: recorded } = await db.query<{ data: ChainCheckpoint }>(
    `SELECT e.data FROM es_events e
      WHERE e.stream_id = $1 AND e.erased_at IS NULL AND ${VISIBLE} ORDER BY e.stream_version`,
    [CHECKPOINT_STREAM],
  );
  for (const { data } of recorded) if (data.chainIndex >= nextIndex) walk.expectCheckpoint(data);

  const erasers = new Set<string>();

  try {
    // The sealed region is read in ranges cut at every VERIFY_PAGE_SIZE-th sealed position, two in flight (the
    // server checks them on two backends); what lies past the last cut is paged as it comes. The ranges cover
    // the positions contiguously whatever the rows are, so an inserted or moved row falls into one of them.
    type Bound = { major: string; minor: string };
    const { rows: cuts } = await db.query<{ tx_id: string; seq: string }>(
      // Ordered by the columns, not by their text (the aliases): '99999' sorts after '151777'.
      `SELECT c.tx_id::text AS tx_id, c.seq::text AS seq FROM es_chain c
        WHERE c.chain_index >= $1 AND (c.chain_index - $1) % $2 = $2 - 1 ORDER BY c.tx_id, c.seq`,
      [nextIndex, VERIFY_PAGE_SIZE],
    );
    const bounds: Bound[] = cuts.map((cut) => ({ major: cut.tx_id, minor: cut.seq }));
    /** Events past `start` through `end` (a page when open-ended), zipped with chain indexes [chainFrom, chainTo). */
    const readRange = (
      start: Bound | null,
      end: Bound | null,
      chainFrom: number,
      chainTo: number,
    ): Promise<VerifyRow[]> => {
      const params: unknown[] = [end ? null : VERIFY_PAGE_SIZE, chainFrom, chainTo];
      const conditions = [VISIBLE];
      if (start) {
        params.push(start.major, start.minor);
        conditions.push(
          `(e.tx_id, e.seq) > ($${params.length - 1}::text::xid8, $${params.length}::text::bigint)`,
        );
      }
      if (end) {
        params.push(end.major, end.minor);
        conditions.push(
          `(e.tx_id, e.seq) <= ($${params.length - 1}::text::xid8, $${params.length}::text::bigint)`,
        );
      }
      const reading = db
        .query<VerifyRow>(
          `SELECT ${VERIFY_COLUMNS}${from ? PREVIOUS_STREAM_HASH : ''} FROM es_events e ${CHAIN_JOIN}
            WHERE ${conditions.join(' AND ')} ORDER BY e.tx_id, e.seq LIMIT $1`,
          params,
        )
        .then((result) => result.rows);
      reading.catch(() => undefined); // surfaced when awaited; a finding may leave it unawaited
      return reading;
    };
    // Range i holds the sealed chain's indexes from firstIndex + i * VERIFY_PAGE_SIZE, VERIFY_PAGE_SIZE of them.
    const firstIndex = nextIndex;
    const ranges: Array<[Bound | null, Bound, number, number]> = bounds.map((end, i) => [
      i === 0 ? after : bounds[i - 1]!,
      end,
      firstIndex + i * VERIFY_PAGE_SIZE,
      firstIndex + (i + 1) * VERIFY_PAGE_SIZE,
    ]);
    const inFlight = ranges.slice(0, 2).map((range) => readRange(...range));
    const check = async (rows: VerifyRow[]): Promise<void> => {
      for (const row of rows) {
        if (!checkEvent(row)) await chainMismatch(row);
        walk.checked += 1;
      }
      options.onProgress?.(walk.checked, Math.max(total, walk.checked));
    };
    for (let i = 0; i < ranges.length; i += 1) {
      const rows = await inFlight[i]!;
      if (i + 2 < ranges.length) inFlight.push(readRange(...ranges[i + 2]!));
      await check(rows);
    }
    // Past the last cut: the rest of the sealed chain and what is not sealed yet, page by page.
    after = bounds.at(-1) ?? after;
    for (;;) {
      const rows = await readRange(after, null, firstIndex + ranges.length * VERIFY_PAGE_SIZE, sealedCount);
      if (rows.length === 0) break;
      const last = rows.at(-1)!;
      after = { major: last.tx_id, minor: last.seq };
      await check(rows);
      if (rows.length < VERIFY_PAGE_SIZE) break;
    }
    if (nextIndex < sealedCount) await missingFromLog(null);
    walk.noCheckpointBeyond(sealedCount);
    if (erasers.size > 0) {
      const { rows } = await db.query<{ event_id: string }>(
        `SELECT event_id::text AS event_id FROM es_events WHERE event_id = ANY ($1::uuid[]) AND erased_at IS NULL`,
        [[...erasers]],
      );
      const known = new Set(rows.map((row) => row.event_id));
      walk.everyErasureAttributed((eventId) => known.has(eventId));
    }
  } catch (error) {
    if (error instanceof ChainFinding) return walk.report(error.finding);
    throw error;
  }
  return walk.report(null);

  /**
   * Checks one event and recomputes its hashes; false when the sealed chain expected another event here
   * (chainMismatch tells which finding that is).
   */
  function checkEvent(row: VerifyRow): boolean {
    const version = Number(row.stream_version);
    // First the global order, which names the exact position where the log left the sealed chain: the event
    // must be the one sealed next, at the position it was sealed at.
    // Entries past sealedCount (sealed while this walk runs) are not joined: such events count as unsealed.
    const sealed = nextIndex < sealedCount;
    if (sealed) {
      if (row.chain_index === null || Number(row.chain_index) !== nextIndex) return false;
      if (!(row.checks & CHECK.sealedHere))
        throw finding(
          'reordered',
          row,
          `event ${row.event_id} is no longer at the position it was sealed at`,
        );
    }
    const last = streams.get(row.stream_id);
    const expectedVersion = walk.expectedVersion(version, last?.version);
    if (version !== expectedVersion)
      throw walk.versionFinding(
        { position: positionOf(row), streamId: row.stream_id },
        row.event_id,
        version,
        expectedVersion,
      );
    if (row.content_hash === null || row.stream_hash === null)
      throw finding(
        'inserted',
        row,
        `event ${row.event_id} carries no hashes: it was not written by an append`,
      );
    if (row.erased_by) {
      walk.noteErased(row.stream_id, version, positionOf(row), row.erased_by, row.erased_at ?? '');
      erasers.add(row.erased_by);
    } else if (!(row.checks & CHECK.payload)) {
      throw finding('changed_payload', row, `the payload of event ${row.event_id} (${row.type}) was changed`);
    }
    if (!(row.checks & CHECK.content))
      throw finding(
        'changed_event',
        row,
        `the envelope or metadata of event ${row.event_id} (${row.type}) were changed`,
      );
    const previousStreamHash = version === 0 ? ZERO_HASH_HEX : (last?.hash ?? row.previous_stream_hash);
    const storedStreamHash = row.stream_hash;
    if (
      !previousStreamHash ||
      streamHashHex(previousStreamHash, version, row.content_hash) !== storedStreamHash
    )
      throw finding(
        'broken_chain',
        row,
        `the stream hash of ${row.stream_id}@${version} does not follow from its predecessor`,
      );
    // Equal to the one recomputed: kept without a copy.
    streams.set(row.stream_id, { version, hash: storedStreamHash });

    if (!sealed) {
      walk.unsealed += 1;
      return true;
    }
    const index = nextIndex;
    const sealedHead = row.chain_hash!;
    if (chainHashHex(chainHead, storedStreamHash) !== sealedHead)
      throw finding(
        'broken_chain',
        row,
        `the global chain hash at index ${index} does not follow from its predecessor`,
      );
    chainHead = sealedHead;
    nextIndex += 1;
    walk.sealed(index, sealedHead, () => positionOf(row));
    return true;
  }

  /** The sealed chain expected another event where `row` stands: inserted, or the expected one moved or removed. */
  async function chainMismatch(row: VerifyRow): Promise<never> {
    const { rows } = await db.query<{ chain_index: string }>(
      `SELECT chain_index::text AS chain_index FROM es_chain WHERE event_id = $1`,
      [row.event_id],
    );
    if (rows.length === 0)
      throw finding('inserted', row, `event ${row.event_id} stands where the sealed chain has another event`);
    return missingFromLog(row);
  }

  /** The sealed chain expects event `nextIndex` here: removed, or moved later (reordered)? */
  async function missingFromLog(row: VerifyRow | null): Promise<never> {
    const { rows } = await db.query<{ event_id: string; tx_id: string; seq: string; present: boolean }>(
      `SELECT c.event_id::text AS event_id, c.tx_id::text AS tx_id, c.seq::text AS seq,
              EXISTS (SELECT 1 FROM es_events e WHERE e.event_id = c.event_id) AS present
         FROM es_chain c WHERE c.chain_index = $1`,
      [nextIndex],
    );
    const sealed = rows[0];
    if (!sealed) throw finding('removed', row, `the sealed chain lost its entry ${nextIndex}`);
    const position = encodePosition(sealed.tx_id, sealed.seq);
    throw chainFinding(
      sealed.present ? 'reordered' : 'removed',
      { position, streamId: null },
      sealed.event_id,
      sealed.present
        ? `event ${sealed.event_id}, sealed at position ${position}, is no longer there in the global order`
        : `event ${sealed.event_id}, sealed at position ${position}, was removed from the log`,
    );
  }
}
