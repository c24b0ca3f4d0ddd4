/**
 * The PostgreSQL event store's schema: valid on PostgreSQL 15 and on PGlite (PostgreSQL 18). Every statement
 * is idempotent; PostgresEventStore.init runs them all under one advisory lock.
 */
import { SEAL_BYTES } from '../event-hash.js';

/** A seal followed by the stream hash the appending process chained (es_append's p_seals when it chained them). */
const CHAINED_SEAL_BYTES = SEAL_BYTES + 32;

/** Arbitrary constant key of the advisory lock that serializes concurrent schema creation. */
export const SCHEMA_LOCK_KEY = 7_310_482_915_337_001n;

const SEAL_COLUMNS = `substring(p_seals FROM (e.ordinal::integer - 1) * v_stride + 1 FOR 16),
                substring(p_seals FROM (e.ordinal::integer - 1) * v_stride + 17 FOR 32),
                substring(p_seals FROM (e.ordinal::integer - 1) * v_stride + 49 FOR 32)`;

export const SCHEMA_STATEMENTS: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS es_streams (
     stream_id text PRIMARY KEY,
     -- version of the last event; -1 while the stream has none
     version bigint NOT NULL,
     deleted boolean NOT NULL DEFAULT false
   )`,
  `CREATE TABLE IF NOT EXISTS es_events (
     seq bigint GENERATED ALWAYS AS IDENTITY,
     tx_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
     stream_id text NOT NULL,
     stream_version bigint NOT NULL,
     event_id uuid PRIMARY KEY,
     type text NOT NULL,
     schema_version integer NOT NULL,
     data jsonb,
     metadata jsonb NOT NULL,
     -- text, not timestamptz: the writer's ISO string comes back byte for byte
     recorded_at text NOT NULL,
     UNIQUE (stream_id, stream_version)
   )`,
  // The hash columns (ADR 0060), added to a log created before them. Checked first: ALTER TABLE takes the
  // table's strongest lock even when it changes nothing.
  `DO $do$ BEGIN
     IF NOT EXISTS (SELECT 1 FROM information_schema.columns
                     WHERE table_schema = current_schema() AND table_name = 'es_events' AND column_name = 'stream_hash') THEN
       ALTER TABLE es_events
         ADD COLUMN salt bytea,
         ADD COLUMN payload_digest bytea,
         ADD COLUMN content_hash bytea,
         ADD COLUMN stream_hash bytea,
         ADD COLUMN erased_by uuid,
         ADD COLUMN erased_at text;
     END IF;
   END $do$`,
  // Events written before the chain, hashed once at init (PostgresEventStore.hashLegacyEvents).
  `CREATE INDEX IF NOT EXISTS es_events_unhashed ON es_events (stream_id) WHERE stream_hash IS NULL`,
  // The global chain: every visible event in global order, sealed by EventChain.seal.
  `CREATE TABLE IF NOT EXISTS es_chain (
     chain_index bigint PRIMARY KEY,
     event_id uuid NOT NULL UNIQUE,
     tx_id xid8 NOT NULL,
     seq bigint NOT NULL,
     chain_hash bytea NOT NULL
   )`,
  // The hash definitions of ADR 0060 in SQL: the canonical JSON of a value is its jsonb text (event-hash.ts
  // reproduces it for adapters without PostgreSQL). STABLE, as their bodies are (jsonb output, convert_to): the
  // planner inlines them only then, and verification runs them in the database at the speed of the expressions.
  `CREATE OR REPLACE FUNCTION es_payload_digest(p_salt bytea, p_data jsonb) RETURNS bytea
     LANGUAGE sql STABLE PARALLEL SAFE
     AS $fn$ SELECT sha256(p_salt || convert_to(coalesce(p_data::text, 'null'), 'UTF8')) $fn$`,
  `CREATE OR REPLACE FUNCTION es_content_hash(
     p_stream_id text, p_event_id uuid, p_type text, p_schema_version integer, p_metadata jsonb,
     p_recorded_at text, p_payload_digest bytea
   ) RETURNS bytea LANGUAGE sql STABLE PARALLEL SAFE
     AS $fn$ SELECT sha256(convert_to(concat_ws(',',
       to_json(p_stream_id)::text, p_event_id::text, to_json(p_type)::text, p_schema_version::text,
       coalesce(p_metadata::text, 'null'), to_json(p_recorded_at)::text, encode(p_payload_digest, 'hex')
     ), 'UTF8')) $fn$`,
  // Stream hashes are chained inside es_append now (a function call per append cost more than the hashing).
  `DROP FUNCTION IF EXISTS es_stream_chain(bytea, bigint, bytea[])`,
  `CREATE INDEX IF NOT EXISTS es_events_global_order ON es_events (tx_id, seq)`,
  // es_append's earlier signature computed salts, digests and content hashes in SQL; the append now brings
  // them (ADR 0081). Instances sharing a database upgrade together, as for any schema change.
  `DROP FUNCTION IF EXISTS es_append(text, smallint, bigint, jsonb, text)`,
  `DROP FUNCTION IF EXISTS es_append(text, smallint, bigint, jsonb, text, bytea)`,
  // The stream hashes the appending process chained came in a parameter of their own (ADR 0087).
  `DROP FUNCTION IF EXISTS es_append(text, smallint, bigint, jsonb, text, bytea, bytea, bytea)`,
  // Conditions on other streams came as a parameter of their own (ADR 0128); calls without them pass seven.
  `DROP FUNCTION IF EXISTS es_append(text, smallint, bigint, jsonb, text, bytea, bytea)`,
  // One round trip per append. Outcomes are returned, never raised, so callers branch on data, not on errors.
  // Measured on PGlite: separate statements beat one statement with data-modifying CTEs, and OUT parameters
  // beat RETURNS TABLE. p_seals holds each event's salt (16 bytes), payload digest and content hash (32 bytes
  // each), computed by the appending process (event-hash.ts, the definitions es_payload_digest and
  // es_content_hash hold in SQL); only the stream hashes need the stream lock. When the appending process
  // chained them from p_previous_hash, each event's stream hash follows its seal (ADR 0087: one parameter, on
  // PGlite every parameter and decode() cost about as much as the checks below); they are taken when
  // p_previous_hash is the stored one, and chained here otherwise. last_stream_hash is NULL when they were
  // taken: the caller has it. p_conditions (ADR 0128): [{"s": stream, "v": version or null}] of other streams,
  // locked FOR SHARE (a write to them waits for this transaction) and compared; one that moved makes the outcome
  // condition_failed, unless these events are stored already (a retry stays idempotent).
  `CREATE OR REPLACE FUNCTION es_append(
     p_stream_id text,
     p_expected_mode smallint,
     p_expected_version bigint,
     p_events jsonb,
     p_recorded_at text,
     p_seals bytea,
     p_previous_hash bytea,
     p_conditions jsonb DEFAULT NULL,
     OUT outcome text,
     OUT last_version bigint,
     OUT last_tx_id text,
     OUT last_seq text,
     OUT last_stream_hash bytea
   ) LANGUAGE plpgsql AS $fn$
   DECLARE
     v_count integer := jsonb_array_length(p_events);
     v_previous bigint;
     v_inserted integer;
     v_last_seq bigint;
     v_version bigint;
     v_deleted boolean;
     v_ids uuid[];
     v_in_stream integer;
     v_elsewhere integer;
     v_hash bytea;
     v_hashes bytea[];
     v_given boolean := false;
     v_stride integer := ${SEAL_BYTES};
     v_unmet text;
   BEGIN
     IF length(p_seals) = v_count * ${CHAINED_SEAL_BYTES} AND p_previous_hash IS NOT NULL THEN
       v_stride := ${CHAINED_SEAL_BYTES};
     ELSIF length(p_seals) IS DISTINCT FROM v_count * ${SEAL_BYTES} THEN
       RAISE EXCEPTION 'es_append: % bytes of seals for % events', length(p_seals), v_count;
     END IF;
     IF p_conditions IS NOT NULL THEN
       PERFORM 1 FROM es_streams s
        WHERE s.stream_id IN (SELECT c ->> 's' FROM jsonb_array_elements(p_conditions) c)
        ORDER BY s.stream_id FOR SHARE;
       SELECT c ->> 's' INTO v_unmet
         FROM jsonb_array_elements(p_conditions) c
         LEFT JOIN es_streams s ON s.stream_id = c ->> 's'
        WHERE coalesce(s.version, -1) <> coalesce((c ->> 'v')::bigint, -1)
        LIMIT 1;
     END IF;
     -- Fast path: lock the stream row by moving its version when the expectation holds (or by creating it,
     -- for no_stream), then insert the events unless one of their ids is already stored.
     IF v_unmet IS NOT NULL THEN
       NULL; -- an unmet condition: only the slow path's retry check can still accept these events
     ELSIF p_expected_mode = 1 THEN
       INSERT INTO es_streams (stream_id, version) VALUES (p_stream_id, v_count - 1)
       ON CONFLICT (stream_id) DO NOTHING
       RETURNING -1, decode(repeat('00', 32), 'hex') INTO v_previous, v_hash;
     ELSE
       -- The previous stream hash comes with the lock, in the same statement.
       UPDATE es_streams s SET version = s.version + v_count
        WHERE s.stream_id = p_stream_id AND NOT s.deleted
          AND (p_expected_mode = 0
               OR (p_expected_mode = 2 AND s.version >= 0)
               OR (p_expected_mode = 3 AND s.version = p_expected_version))
       RETURNING s.version - v_count,
                 CASE WHEN s.version - v_count < 0 THEN decode(repeat('00', 32), 'hex')
                      ELSE (SELECT e.stream_hash FROM es_events e
                             WHERE e.stream_id = s.stream_id AND e.stream_version = s.version - v_count) END
         INTO v_previous, v_hash;
     END IF;

     IF v_previous IS NOT NULL THEN
       -- The appending process chained the stream hashes from the predecessor it knew (its last append to this
       -- stream): they hold when that is the stored one. Otherwise they are chained here.
       v_given := v_stride = ${CHAINED_SEAL_BYTES} AND v_hash = p_previous_hash;
       IF NOT v_given THEN
         v_hashes := '{}';
         FOR v_i IN 1 .. v_count LOOP
           v_hash := sha256(v_hash || int8send(v_previous + v_i)
                            || substring(p_seals FROM (v_i - 1) * v_stride + 49 FOR 32));
           v_hashes[v_i] := v_hash;
         END LOOP;
       END IF;
       WITH inserted AS (
         INSERT INTO es_events (stream_id, stream_version, event_id, type, schema_version, data, metadata,
                                recorded_at, salt, payload_digest, content_hash, stream_hash)
         SELECT p_stream_id, v_previous + e.ordinal, e.id, e.type, e.schema_version, e.data, e.metadata,
                p_recorded_at, ${SEAL_COLUMNS},
                CASE WHEN v_given THEN substring(p_seals FROM (e.ordinal::integer - 1) * v_stride + 81 FOR 32)
                     ELSE v_hashes[e.ordinal] END
           FROM ROWS FROM (jsonb_to_recordset(p_events)
                  AS (id uuid, type text, schema_version integer, data jsonb, metadata jsonb))
                WITH ORDINALITY AS e (id, type, schema_version, data, metadata, ordinal)
          ORDER BY e.ordinal
         ON CONFLICT (event_id) DO NOTHING
         RETURNING es_events.seq
       )
       SELECT count(*), max(inserted.seq) INTO v_inserted, v_last_seq FROM inserted;

       IF v_inserted = v_count THEN
         outcome := 'ok';
         last_version := v_previous + v_count;
         last_tx_id := pg_current_xact_id()::text;
         last_seq := v_last_seq::text;
         IF NOT v_given THEN
           last_stream_hash := v_hash;
         END IF;
         RETURN;
       END IF;
       -- Some ids were already stored. We hold the stream lock, so the rows past v_previous are exactly ours:
       -- undo them and let the checks below tell a retry from a conflict.
       DELETE FROM es_events e WHERE e.stream_id = p_stream_id AND e.stream_version > v_previous;
       UPDATE es_streams s SET version = v_previous WHERE s.stream_id = p_stream_id;
     END IF;

     -- Slow path: a missing, deleted or moved-on stream, or a retry. Every check runs under the stream lock.
     SELECT s.version, s.deleted INTO v_version, v_deleted
       FROM es_streams s WHERE s.stream_id = p_stream_id FOR UPDATE;
     IF NOT FOUND THEN
       INSERT INTO es_streams (stream_id, version) VALUES (p_stream_id, -1) ON CONFLICT (stream_id) DO NOTHING;
       SELECT s.version, s.deleted INTO v_version, v_deleted
         FROM es_streams s WHERE s.stream_id = p_stream_id FOR UPDATE;
     END IF;
     last_version := v_version;

     IF v_deleted THEN
       outcome := 'deleted';
       RETURN;
     END IF;

     -- Checked before the expected version: a retried command must succeed even though the stream moved on.
     v_ids := ARRAY(SELECT (x ->> 'id')::uuid FROM jsonb_array_elements(p_events) x);
     SELECT count(*) FILTER (WHERE e.stream_id = p_stream_id), count(*) FILTER (WHERE e.stream_id <> p_stream_id)
       INTO v_in_stream, v_elsewhere
       FROM es_events e WHERE e.event_id = ANY (v_ids);
     IF v_elsewhere > 0 THEN
       outcome := 'event_id_in_other_stream';
       RETURN;
     END IF;
     IF v_in_stream = v_count THEN
       outcome := 'idempotent';
       SELECT e.stream_version, e.tx_id::text, e.seq::text INTO last_version, last_tx_id, last_seq
         FROM es_events e WHERE e.event_id = ANY (v_ids)
        ORDER BY e.stream_version DESC LIMIT 1;
       RETURN;
     END IF;
     IF v_unmet IS NOT NULL THEN
       outcome := 'condition_failed:' || v_unmet;
       RETURN;
     END IF;
     IF v_in_stream > 0
        OR (p_expected_mode = 1 AND v_version <> -1)
        OR (p_expected_mode = 2 AND v_version < 0)
        OR (p_expected_mode = 3 AND v_version IS DISTINCT FROM p_expected_version) THEN
       outcome := 'conflict';
       RETURN;
     END IF;

     IF v_version < 0 THEN
       v_hash := decode(repeat('00', 32), 'hex');
     ELSE
       SELECT e.stream_hash INTO v_hash FROM es_events e
        WHERE e.stream_id = p_stream_id AND e.stream_version = v_version;
     END IF;
     v_hashes := '{}';
     FOR v_i IN 1 .. v_count LOOP
       v_hash := sha256(v_hash || int8send(v_version + v_i)
                        || substring(p_seals FROM (v_i - 1) * v_stride + 49 FOR 32));
       v_hashes[v_i] := v_hash;
     END LOOP;
     WITH inserted AS (
       INSERT INTO es_events (stream_id, stream_version, event_id, type, schema_version, data, metadata,
                              recorded_at, salt, payload_digest, content_hash, stream_hash)
       SELECT p_stream_id, v_version + e.ordinal, e.id, e.type, e.schema_version, e.data, e.metadata,
              p_recorded_at, ${SEAL_COLUMNS}, v_hashes[e.ordinal]
         FROM ROWS FROM (jsonb_to_recordset(p_events)
                AS (id uuid, type text, schema_version integer, data jsonb, metadata jsonb))
              WITH ORDINALITY AS e (id, type, schema_version, data, metadata, ordinal)
        ORDER BY e.ordinal
       RETURNING es_events.seq
     )
     SELECT max(inserted.seq) INTO v_last_seq FROM inserted;

     UPDATE es_streams s SET version = v_version + v_count WHERE s.stream_id = p_stream_id;
     outcome := 'ok';
     last_version := v_version + v_count;
     last_tx_id := pg_current_xact_id()::text;
     last_seq := v_last_seq::text;
     last_stream_hash := v_hash;
   END
   $fn$`,
];
