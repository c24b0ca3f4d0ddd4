/**
 * Applies the legacy event rewriters (LegacyEventRewriter: secrets moved out of the log, ADR 65) to the stored
 * events of the SQL event store, one transaction per rewritten event. A rewriter answers undefined for an event
 * it leaves alone, so a run over a log with nothing left to move changes nothing.
 *
 * Interim: the hash chain (issue 15 part 1) applies the same rewriters to each pre-chain event in the transaction
 * that hashes it; once it does, this pass is redundant and goes.
 */
import type { SqlDatabase } from '../database/sql-database.js';
import type { EventMetadata, RecordedEvent } from '../event-store/event-store.port.js';
import { encodePosition } from '../event-store/global-position.js';
import type { LegacyEventRewriter } from '../event-store/postgres/postgres-event-store.js';

/** A rewriter may name the event types it looks at, so the pass reads only those. */
export type TypedLegacyEventRewriter = LegacyEventRewriter & { readonly eventTypes?: readonly string[] };

const PAGE = 500;

interface Row {
  seq: string;
  stream_id: string;
  stream_version: string;
  event_id: string;
  type: string;
  schema_version: number;
  data: unknown;
  metadata: Partial<EventMetadata> | null;
  recorded_at: string;
  tx_id: string;
}

/** Rewrites what the rewriters change; answers how many events changed. */
export async function applyLegacyEventRewriters(
  db: SqlDatabase,
  rewriters: readonly TypedLegacyEventRewriter[],
): Promise<number> {
  if (rewriters.length === 0) return 0;
  const typed = rewriters.every((rewriter) => Array.isArray(rewriter.eventTypes));
  const types = typed ? [...new Set(rewriters.flatMap((rewriter) => rewriter.eventTypes ?? []))] : null;
  let after = '0';
  let changed = 0;
  for (;;) {
    const { rows } = await db.query<Row>(
      `SELECT seq::text AS seq, stream_id, stream_version::text AS stream_version, event_id::text AS event_id,
              type, schema_version, data, metadata, recorded_at, tx_id::text AS tx_id
         FROM es_events
        WHERE seq > $1::bigint
          AND ($2::jsonb IS NULL OR type IN (SELECT jsonb_array_elements_text($2::jsonb)))
        ORDER BY seq
        LIMIT ${PAGE}`,
      [after, types === null ? null : JSON.stringify(types)],
    );
    for (const row of rows) {
      const rewritten = await db.transaction(async (tx) => {
        let event = toRecordedEvent(row);
        let touched = false;
        for (const rewrite of rewriters) {
          const data = await rewrite(event, tx);
          if (data === undefined) continue;
          event = { ...event, data };
          touched = true;
        }
        if (!touched) return false;
        await tx.query(`UPDATE es_events SET data = $2::jsonb WHERE event_id = $1::uuid`, [
          row.event_id,
          JSON.stringify(event.data),
        ]);
        return true;
      });
      if (rewritten) changed += 1;
    }
    if (rows.length < PAGE) return changed;
    after = rows.at(-1)!.seq;
  }
}

function toRecordedEvent(row: Row): RecordedEvent {
  const metadata = row.metadata ?? {};
  return {
    id: row.event_id,
    type: row.type,
    schemaVersion: row.schema_version,
    data: row.data,
    metadata: {
      actor: metadata.actor ?? '',
      payer: metadata.payer ?? '',
      scope: metadata.scope ?? null,
      correlationId: metadata.correlationId ?? '',
      causationId: metadata.causationId ?? '',
    },
    streamId: row.stream_id,
    streamVersion: Number(row.stream_version),
    position: encodePosition(row.tx_id, row.seq),
    recordedAt: row.recorded_at,
  };
}
