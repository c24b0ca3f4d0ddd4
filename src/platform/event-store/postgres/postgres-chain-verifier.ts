/**
 * Verifies the PostgreSQL event log against its hashes (ADR 0061): every visible event in global order,
 * recomputing payload digests, content hashes, stream chains and the sealed global chain, and every signed
 * checkpoint. Stops at the first finding, which names the global position where the log stopped matching.
 */
import type { SqlDatabase } from '../../database/sql-database.js';
import {
  CHECKPOINT_STREAM,
  type ChainCheckpoint,
  type ChainHead,
  type ErasedSpan,
  type TamperFinding,
  type TamperKind,
  type VerificationReport,
  type VerifyOptions,
} from '../event-log-integrity.js';
import { decodePosition, encodePosition, type GlobalPosition } from '../global-position.js';
import { VISIBLE } from './postgres-event-chain.js';

const VERIFY_PAGE_SIZE = 10_000;

/** One event as verification sees it: every hash already recomputed and compared by the database. */
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
  chain_index: string | null;
  /** Hex chain hash, only where a checkpoint needs it. */
  chain_head: string | null;
  /** Set once the position is needed (findings, spans, the last event of a page). */
  position?: GlobalPosition;
}

/** What the database checked of each event, as bits of `checks`. */
const CHECK = {
  hashed: 1,
  payload: 2,
  content: 4,
  /** The stream hash follows from the stored predecessor's (or 32 zero bytes at version 0). */
  stream: 8,
  /** The chain hash follows from the previous chain entry's and this event's stream hash. */
  chain: 16,
  /** The sealed position is the event's position. */
  chainPosition: 32,
} as const;

/**
 * Every link is checked in the database against its stored predecessor, which the same pass checks in turn:
 * together that is recomputing the whole chain, without shipping payloads or hashes to the verifier.
 */
const VERIFY_COLUMNS = `e.stream_id, e.stream_version::text AS stream_version, e.event_id::text AS event_id, e.type,
  e.tx_id::text AS tx_id, e.seq::text AS seq, e.erased_by::text AS erased_by, e.erased_at,
  (CASE WHEN e.content_hash IS NOT NULL AND e.stream_hash IS NOT NULL THEN ${CHECK.hashed} ELSE 0 END
   + CASE WHEN e.salt IS NOT NULL AND es_payload_digest(e.salt, e.data) = e.payload_digest THEN ${CHECK.payload} ELSE 0 END
   + CASE WHEN es_content_hash(e.stream_id, e.event_id, e.type, e.schema_version, e.metadata, e.recorded_at,
                               e.payload_digest) = e.content_hash THEN ${CHECK.content} ELSE 0 END
   + CASE WHEN e.stream_hash = sha256(
       CASE WHEN e.stream_version = 0 THEN decode(repeat('00', 32), 'hex') ELSE p.stream_hash END
       || int8send(e.stream_version) || e.content_hash) THEN ${CHECK.stream} ELSE 0 END
   + CASE WHEN c.chain_hash = sha256(
       CASE WHEN c.chain_index = 0 THEN decode(repeat('00', 32), 'hex') ELSE pc.chain_hash END || e.stream_hash)
       THEN ${CHECK.chain} ELSE 0 END
   + CASE WHEN c.tx_id = e.tx_id AND c.seq = e.seq THEN ${CHECK.chainPosition} ELSE 0 END) AS checks,
  c.chain_index::text AS chain_index,
  CASE WHEN c.chain_index = ANY ($2::bigint[]) THEN encode(c.chain_hash, 'hex') END AS chain_head`;

function positionOf(row: VerifyRow): GlobalPosition {
  return (row.position ??= encodePosition(row.tx_id, row.seq));
}

const VERIFY_FROM = `es_events e
  LEFT JOIN es_events p ON p.stream_id = e.stream_id AND p.stream_version = e.stream_version - 1
  LEFT JOIN es_chain c ON c.event_id = e.event_id
  LEFT JOIN es_chain pc ON pc.chain_index = c.chain_index - 1`;

class Finding extends Error {
  constructor(readonly finding: TamperFinding) {
    super(finding.detail);
  }
}

function finding(
  kind: TamperKind,
  row: VerifyRow | null,
  detail: string,
  position?: GlobalPosition,
): Finding {
  return new Finding({
    kind,
    position: position ?? (row ? positionOf(row) : null),
    eventId: row?.event_id ?? null,
    streamId: row?.stream_id ?? null,
    detail,
  });
}

export async function verifyPostgresChain(
  db: SqlDatabase,
  options: VerifyOptions,
): Promise<VerificationReport> {
  const from = options.from ?? null;
  /** The last version seen of every stream. */
  const streams = new Map<string, number>();
  const erasedSpans: ErasedSpan[] = [];
  const spanOfStream = new Map<string, number>();
  let checked = 0;
  let unsealed = 0;
  let sealedThrough: ChainHead | null = null;
  /** The last sealed event checked (its position is written out once, at the end). */
  let lastSealed: { index: number; row: VerifyRow } | null = null;
  let checkpointsChecked = 0;
  let lastVerifiedCheckpoint: ChainCheckpoint | null = null;

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

  // The checkpoints to hold the chain against, by chain index: those in the log (read as they come) and
  // the one kept outside.
  const expected = new Map<number, ChainCheckpoint[]>();
  const expect = (checkpoint: ChainCheckpoint): void => {
    const list = expected.get(checkpoint.chainIndex) ?? [];
    list.push(checkpoint);
    expected.set(checkpoint.chainIndex, list);
  };
  const checkCheckpoint = (checkpoint: ChainCheckpoint, hash: string, position: GlobalPosition): void => {
    checkpointsChecked += 1;
    if (!options.checkSignature(checkpoint))
      throw new Finding({
        kind: 'checkpoint_mismatch',
        position: checkpoint.position,
        eventId: null,
        streamId: null,
        detail: `the checkpoint of ${checkpoint.at} at chain index ${checkpoint.chainIndex} has no valid signature (key ${checkpoint.keyId})`,
      });
    if (hash !== checkpoint.chainHead || position !== checkpoint.position)
      throw new Finding({
        kind: 'checkpoint_mismatch',
        position: checkpoint.position,
        eventId: null,
        streamId: null,
        detail:
          `the log through chain index ${checkpoint.chainIndex} no longer hashes to the checkpoint signed ${checkpoint.at}` +
          (lastVerifiedCheckpoint
            ? ` (it still matched the checkpoint at index ${lastVerifiedCheckpoint.chainIndex}, position ${lastVerifiedCheckpoint.position}: the change lies between)`
            : ''),
      });
    if (!lastVerifiedCheckpoint || checkpoint.chainIndex >= lastVerifiedCheckpoint.chainIndex)
      lastVerifiedCheckpoint = checkpoint;
  };
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
        checkCheckpoint(external, row.chain_hash, encodePosition(row.tx_id, row.seq));
      } catch (error) {
        if (error instanceof Finding) return report(error.finding);
        throw error;
      }
    } else expect(external);
  }

  // Every checkpoint recorded in the log; those before `from` were checked by an earlier verification.
  const { rows: recorded } = await db.query<{ data: ChainCheckpoint }>(
    `SELECT e.data FROM es_events e
      WHERE e.stream_id = $1 AND e.erased_at IS NULL AND ${VISIBLE} ORDER BY e.stream_version`,
    [CHECKPOINT_STREAM],
  );
  for (const { data } of recorded) if (data.chainIndex >= nextIndex) expect(data);

  const erasers = new Set<string>();
  function report(found: TamperFinding | null): VerificationReport {
    return {
      ok: found === null,
      from,
      eventsChecked: checked,
      sealedThrough,
      unsealed,
      erasedSpans,
      checkpointsChecked,
      lastVerifiedCheckpoint,
      finding: found,
    };
  }

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
    const wanted = [...expected.keys()].map(String);
    const readRange = (start: Bound | null, end: Bound | null): Promise<VerifyRow[]> => {
      const params: unknown[] = [end ? null : VERIFY_PAGE_SIZE, wanted];
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
          `SELECT ${VERIFY_COLUMNS} FROM ${VERIFY_FROM}
            WHERE ${conditions.join(' AND ')} ORDER BY e.tx_id, e.seq LIMIT $1`,
          params,
        )
        .then((result) => result.rows);
      reading.catch(() => undefined); // surfaced when awaited; a finding may leave it unawaited
      return reading;
    };
    const ranges: Array<[Bound | null, Bound]> = bounds.map((end, i) => [
      i === 0 ? after : bounds[i - 1]!,
      end,
    ]);
    const inFlight = ranges.slice(0, 2).map(([start, end]) => readRange(start, end));
    const check = async (rows: VerifyRow[]): Promise<void> => {
      for (const row of rows) {
        if (checkEvent(row)) await missingFromLog(row);
        checked += 1;
      }
      options.onProgress?.(checked, Math.max(total, checked));
    };
    for (let i = 0; i < ranges.length; i += 1) {
      const rows = await inFlight[i]!;
      if (i + 2 < ranges.length) inFlight.push(readRange(...ranges[i + 2]!));
      await check(rows);
    }
    // Past the last cut: the rest of the sealed chain and what is not sealed yet, page by page.
    after = bounds.at(-1) ?? after;
    for (;;) {
      const rows = await readRange(after, null);
      if (rows.length === 0) break;
      const last = rows.at(-1)!;
      after = { major: last.tx_id, minor: last.seq };
      await check(rows);
      if (rows.length < VERIFY_PAGE_SIZE) break;
    }
    if (lastSealed) {
      const { index, row } = lastSealed as { index: number; row: VerifyRow };
      const { rows: head } = await db.query<{ chain_hash: string }>(
        `SELECT encode(chain_hash, 'hex') AS chain_hash FROM es_chain WHERE chain_index = $1`,
        [index],
      );
      sealedThrough = { chainIndex: index, position: positionOf(row), chainHead: head[0]?.chain_hash ?? '' };
    }
    if (nextIndex < sealedCount) await missingFromLog(null);
    for (const [index] of expected) {
      throw new Finding({
        kind: 'checkpoint_mismatch',
        position: null,
        eventId: null,
        streamId: null,
        detail: `a checkpoint names chain index ${index}, beyond the sealed chain (${sealedCount} events): events were removed`,
      });
    }
    if (erasers.size > 0) {
      const { rows } = await db.query<{ event_id: string }>(
        `SELECT event_id::text AS event_id FROM es_events WHERE event_id = ANY ($1::uuid[]) AND erased_at IS NULL`,
        [[...erasers]],
      );
      const known = new Set(rows.map((row) => row.event_id));
      const span = erasedSpans.find((each) => !known.has(each.erasedBy));
      if (span)
        throw new Finding({
          kind: 'unattributed_erasure',
          position: span.fromPosition,
          eventId: null,
          streamId: span.streamId,
          detail: `${span.streamId} versions ${span.fromVersion}-${span.toVersion} are erased "by" ${span.erasedBy}, which is not an event of the log`,
        });
    }
  } catch (error) {
    if (error instanceof Finding) return report(error.finding);
    throw error;
  }
  return report(null);

  /** Checks one event; true when the sealed chain expected another one here (looked up by missingFromLog). */
  function checkEvent(row: VerifyRow): boolean {
    const checks = row.checks;
    const version = Number(row.stream_version);
    // First the global order, which names the exact position where the log left the sealed chain.
    if (row.chain_index === null) {
      if (nextIndex < sealedCount)
        throw finding(
          'inserted',
          row,
          `event ${row.event_id} stands where the sealed chain has another event`,
        );
    } else {
      if (Number(row.chain_index) !== nextIndex) return true;
      if (!(checks & CHECK.chainPosition))
        throw finding(
          'reordered',
          row,
          `event ${row.event_id} is no longer at the position it was sealed at`,
        );
    }
    const last = streams.get(row.stream_id);
    // Verifying from a position, a stream met first past version 0 continues its stored (trusted) chain.
    const expectedVersion = last === undefined ? (from ? version : 0) : last + 1;
    if (version !== expectedVersion)
      throw finding(
        version > expectedVersion ? 'removed' : 'reordered',
        row,
        version > expectedVersion
          ? `${row.stream_id} jumps from version ${expectedVersion - 1} to ${version}: events are missing`
          : `${row.stream_id} version ${version} comes after version ${expectedVersion - 1}`,
      );
    if (!(checks & CHECK.hashed))
      throw finding(
        'inserted',
        row,
        `event ${row.event_id} carries no hashes: it was not written by an append`,
      );
    if (row.erased_by) {
      // One span per stream and erasure while its versions follow each other, however interleaved the log.
      const open = spanOfStream.get(row.stream_id);
      const span = open === undefined ? undefined : erasedSpans[open];
      if (span && span.erasedBy === row.erased_by && span.toVersion === version - 1)
        erasedSpans[open!] = { ...span, toVersion: version, toPosition: positionOf(row) };
      else {
        spanOfStream.set(row.stream_id, erasedSpans.length);
        erasedSpans.push({
          streamId: row.stream_id,
          fromVersion: version,
          toVersion: version,
          fromPosition: positionOf(row),
          toPosition: positionOf(row),
          erasedBy: row.erased_by,
          erasedAt: row.erased_at ?? '',
        });
      }
      erasers.add(row.erased_by);
    } else if (!(checks & CHECK.payload)) {
      throw finding('changed_payload', row, `the payload of event ${row.event_id} (${row.type}) was changed`);
    }
    if (!(checks & CHECK.content))
      throw finding(
        'changed_event',
        row,
        `the envelope or metadata of event ${row.event_id} (${row.type}) were changed`,
      );
    if (!(checks & CHECK.stream))
      throw finding(
        'broken_chain',
        row,
        `the stream hash of ${row.stream_id}@${version} does not follow from its predecessor`,
      );
    streams.set(row.stream_id, version);

    if (row.chain_index === null) {
      unsealed += 1;
    } else {
      const index = nextIndex;
      if (!(checks & CHECK.chain))
        throw finding(
          'broken_chain',
          row,
          `the global chain hash at index ${index} does not follow from its predecessor`,
        );
      lastSealed = { index, row };
      nextIndex += 1;
      const checkpoints = expected.get(index);
      if (checkpoints) {
        for (const checkpoint of checkpoints)
          checkCheckpoint(checkpoint, row.chain_head ?? '', positionOf(row));
        expected.delete(index);
      }
    }
    return false;
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
    throw new Finding({
      kind: sealed.present ? 'reordered' : 'removed',
      position,
      eventId: sealed.event_id,
      streamId: null,
      detail: sealed.present
        ? `event ${sealed.event_id}, sealed at position ${position}, is no longer there in the global order`
        : `event ${sealed.event_id}, sealed at position ${position}, was removed from the log`,
    });
  }
}
