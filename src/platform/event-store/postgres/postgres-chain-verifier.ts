/**
 * Verifies the PostgreSQL event log against its hashes (ADR 0061): every visible event in global order,
 * recomputing payload digests, content hashes, stream chains and the sealed global chain, and every signed
 * checkpoint. Stops at the first finding, which names the global position where the log stopped matching.
 */
import type { SqlDatabase } from '../../database/sql-database.js';
import {
  asBuffer,
  canonicalPlainJson,
  chainHash,
  contentHash,
  payloadDigest,
  streamHash,
  ZERO_HASH,
} from '../event-hash.js';
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

interface VerifyRow {
  stream_id: string;
  stream_version: string;
  event_id: string;
  type: string;
  schema_version: number;
  data: unknown;
  metadata: unknown;
  recorded_at: string;
  tx_id: string;
  seq: string;
  salt: Buffer | null;
  payload_digest: Buffer | null;
  content_hash: Buffer | null;
  stream_hash: Buffer | null;
  erased_by: string | null;
  erased_at: string | null;
  chain_index: string | null;
  chain_tx_id: string | null;
  chain_seq: string | null;
  chain_hash: Buffer | null;
}

interface StreamState {
  version: number;
  hash: Buffer;
}

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
    position: position ?? (row ? encodePosition(row.tx_id, row.seq) : null),
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
  const streams = new Map<string, StreamState>();
  const erasedSpans: ErasedSpan[] = [];
  let checked = 0;
  let unsealed = 0;
  let sealedThrough: ChainHead | null = null;
  let checkpointsChecked = 0;
  let lastVerifiedCheckpoint: ChainCheckpoint | null = null;

  const sealedCount = Number(
    (await db.query<{ n: string }>(`SELECT count(*)::text AS n FROM es_chain`)).rows[0]!.n,
  );
  // Where to start: after `from`, trusting the chain hash stored there (the checkpoints anchor it).
  let nextIndex = 0;
  let previousChain = ZERO_HASH;
  let after: { major: string; minor: string } | null = null;
  if (from) {
    const { major, minor } = decodePosition(from);
    after = { major: major.toString(), minor: minor.toString() };
    const { rows } = await db.query<{ chain_index: string; chain_hash: Buffer }>(
      `SELECT c.chain_index::text AS chain_index, c.chain_hash FROM es_chain c
        WHERE (c.tx_id, c.seq) <= ($1::text::xid8, $2::text::bigint) ORDER BY c.chain_index DESC LIMIT 1`,
      [after.major, after.minor],
    );
    if (rows[0]) {
      nextIndex = Number(rows[0].chain_index) + 1;
      previousChain = asBuffer(rows[0].chain_hash);
    }
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
  const checkCheckpoint = (checkpoint: ChainCheckpoint, hash: Buffer, position: GlobalPosition): void => {
    checkpointsChecked += 1;
    if (!options.checkSignature(checkpoint))
      throw new Finding({
        kind: 'checkpoint_mismatch',
        position: checkpoint.position,
        eventId: null,
        streamId: null,
        detail: `the checkpoint of ${checkpoint.at} at chain index ${checkpoint.chainIndex} has no valid signature (key ${checkpoint.keyId})`,
      });
    if (hash.toString('hex') !== checkpoint.chainHead || position !== checkpoint.position)
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
      const { rows } = await db.query<{ chain_hash: Buffer; tx_id: string; seq: string }>(
        `SELECT chain_hash, tx_id::text AS tx_id, seq::text AS seq FROM es_chain WHERE chain_index = $1`,
        [external.chainIndex],
      );
      const row = rows[0];
      if (!row)
        throw new Error(
          `the checkpoint names chain index ${external.chainIndex}, which the log does not have`,
        );
      try {
        checkCheckpoint(external, asBuffer(row.chain_hash), encodePosition(row.tx_id, row.seq));
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
    for (;;) {
      const { rows } = await db.query<VerifyRow>(
        `SELECT e.stream_id, e.stream_version::text AS stream_version, e.event_id::text AS event_id, e.type,
                e.schema_version, e.data, e.metadata, e.recorded_at, e.tx_id::text AS tx_id, e.seq::text AS seq,
                e.salt, e.payload_digest, e.content_hash, e.stream_hash, e.erased_by::text AS erased_by,
                e.erased_at, c.chain_index::text AS chain_index, c.tx_id::text AS chain_tx_id,
                c.seq::text AS chain_seq, c.chain_hash
           FROM es_events e LEFT JOIN es_chain c ON c.event_id = e.event_id
          WHERE ${VISIBLE} ${after ? 'AND (e.tx_id, e.seq) > ($2::text::xid8, $3::text::bigint)' : ''}
          ORDER BY e.tx_id, e.seq LIMIT $1`,
        after ? [VERIFY_PAGE_SIZE, after.major, after.minor] : [VERIFY_PAGE_SIZE],
      );
      if (rows.length === 0) break;
      for (const row of rows) {
        row.salt = asBuffer(row.salt);
        row.payload_digest = asBuffer(row.payload_digest);
        row.content_hash = asBuffer(row.content_hash);
        row.stream_hash = asBuffer(row.stream_hash);
        row.chain_hash = asBuffer(row.chain_hash);
      }
      await loadStreamHeads(rows);
      for (const row of rows) {
        if (checkEvent(row)) await missingFromLog(row);
        checked += 1;
      }
      const last = rows.at(-1)!;
      after = { major: last.tx_id, minor: last.seq };
      options.onProgress?.(checked, Math.max(total, checked));
      if (rows.length < VERIFY_PAGE_SIZE) break;
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

  /** With `from`, a stream first met past version 0 continues from its stored hash (trusted, as the chain). */
  async function loadStreamHeads(rows: VerifyRow[]): Promise<void> {
    if (!from) return;
    const wanted = new Map<string, number>();
    for (const row of rows)
      if (!streams.has(row.stream_id) && !wanted.has(row.stream_id))
        wanted.set(row.stream_id, Number(row.stream_version) - 1);
    const earlier = [...wanted].filter(([, version]) => version >= 0);
    if (earlier.length === 0) return;
    const { rows: heads } = await db.query<{
      stream_id: string;
      stream_version: string;
      stream_hash: Buffer;
    }>(
      `SELECT e.stream_id, e.stream_version::text AS stream_version, e.stream_hash
         FROM es_events e JOIN unnest($1::text[], $2::bigint[]) AS w (stream_id, stream_version)
           ON e.stream_id = w.stream_id AND e.stream_version = w.stream_version`,
      [earlier.map(([id]) => id), earlier.map(([, version]) => version)],
    );
    for (const head of heads)
      if (head.stream_hash)
        streams.set(head.stream_id, {
          version: Number(head.stream_version),
          hash: asBuffer(head.stream_hash),
        });
  }

  /** Checks one event; true when the sealed chain expected another one here (looked up by missingFromLog). */
  function checkEvent(row: VerifyRow): boolean {
    const position = encodePosition(row.tx_id, row.seq);
    const version = Number(row.stream_version);
    const state = streams.get(row.stream_id) ?? { version: -1, hash: ZERO_HASH };
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
      if (row.chain_tx_id !== row.tx_id || row.chain_seq !== row.seq)
        throw finding(
          'reordered',
          row,
          `event ${row.event_id} moved from position ${encodePosition(row.chain_tx_id!, row.chain_seq!)}`,
        );
    }
    if (version !== state.version + 1) {
      throw finding(
        version > state.version + 1 ? 'removed' : 'reordered',
        row,
        version > state.version + 1
          ? `${row.stream_id} jumps from version ${state.version} to ${version}: events are missing`
          : `${row.stream_id} version ${version} comes after version ${state.version}`,
      );
    }
    if (!row.payload_digest || !row.content_hash || !row.stream_hash)
      throw finding(
        'inserted',
        row,
        `event ${row.event_id} carries no hashes: it was not written by an append`,
      );
    if (row.erased_by) {
      const span = erasedSpans.at(-1);
      if (
        span &&
        span.streamId === row.stream_id &&
        span.erasedBy === row.erased_by &&
        span.toVersion === version - 1
      )
        erasedSpans[erasedSpans.length - 1] = { ...span, toVersion: version, toPosition: position };
      else
        erasedSpans.push({
          streamId: row.stream_id,
          fromVersion: version,
          toVersion: version,
          fromPosition: position,
          toPosition: position,
          erasedBy: row.erased_by,
          erasedAt: row.erased_at ?? '',
        });
      erasers.add(row.erased_by);
    } else if (
      !row.salt ||
      !payloadDigest(row.salt, canonicalPlainJson(row.data)).equals(row.payload_digest)
    ) {
      throw finding('changed_payload', row, `the payload of event ${row.event_id} (${row.type}) was changed`);
    }
    const content = contentHash(
      {
        streamId: row.stream_id,
        eventId: row.event_id,
        type: row.type,
        schemaVersion: row.schema_version,
        metadata: row.metadata,
        recordedAt: row.recorded_at,
        payloadDigest: row.payload_digest,
      },
      canonicalPlainJson(row.metadata),
    );
    if (!content.equals(row.content_hash))
      throw finding(
        'changed_event',
        row,
        `the envelope or metadata of event ${row.event_id} (${row.type}) were changed`,
      );
    const computed = streamHash(state.hash, version, content);
    if (!computed.equals(row.stream_hash))
      throw finding(
        'broken_chain',
        row,
        `the stream hash of ${row.stream_id}@${version} does not follow from its predecessor`,
      );
    streams.set(row.stream_id, { version, hash: computed });

    if (row.chain_index === null) {
      unsealed += 1;
    } else {
      const index = Number(row.chain_index);
      previousChain = chainHash(previousChain, row.stream_hash);
      if (!row.chain_hash || !previousChain.equals(row.chain_hash))
        throw finding(
          'broken_chain',
          row,
          `the global chain hash at index ${index} does not follow from its predecessor`,
        );
      sealedThrough = { chainIndex: index, position, chainHead: previousChain.toString('hex') };
      nextIndex += 1;
      const checkpoints = expected.get(index);
      if (checkpoints) {
        for (const checkpoint of checkpoints) checkCheckpoint(checkpoint, previousChain, position);
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
