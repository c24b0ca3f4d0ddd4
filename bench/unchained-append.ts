/**
 * The append of the event store before the hash chain (es_append as of commit 6859619), installed under another
 * name in the benchmark database: the baseline the chained append is compared with, on the same tables, in the
 * same run (docs/benchmarks.md).
 */
export const UNCHAINED_APPEND_FUNCTION = 'es_append_unchained';

export const UNCHAINED_APPEND_SQL = `CREATE OR REPLACE FUNCTION es_append_unchained(
     p_stream_id text,
     p_expected_mode smallint,
     p_expected_version bigint,
     p_events jsonb,
     p_recorded_at text,
     OUT outcome text,
     OUT last_version bigint,
     OUT last_tx_id text,
     OUT last_seq text
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
   BEGIN
     -- Fast path: lock the stream row by moving its version when the expectation holds (or by creating it,
     -- for no_stream), then insert the events unless one of their ids is already stored.
     IF p_expected_mode = 1 THEN
       INSERT INTO es_streams (stream_id, version) VALUES (p_stream_id, v_count - 1)
       ON CONFLICT (stream_id) DO NOTHING
       RETURNING -1 INTO v_previous;
     ELSE
       UPDATE es_streams s SET version = s.version + v_count
        WHERE s.stream_id = p_stream_id AND NOT s.deleted
          AND (p_expected_mode = 0
               OR (p_expected_mode = 2 AND s.version >= 0)
               OR (p_expected_mode = 3 AND s.version = p_expected_version))
       RETURNING s.version - v_count INTO v_previous;
     END IF;

     IF v_previous IS NOT NULL THEN
       WITH inserted AS (
         INSERT INTO es_events (stream_id, stream_version, event_id, type, schema_version, data, metadata, recorded_at)
         SELECT p_stream_id, v_previous + e.ordinal, e.id, e.type, e.schema_version, e.data, e.metadata, p_recorded_at
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
     IF v_in_stream > 0
        OR (p_expected_mode = 1 AND v_version <> -1)
        OR (p_expected_mode = 2 AND v_version < 0)
        OR (p_expected_mode = 3 AND v_version IS DISTINCT FROM p_expected_version) THEN
       outcome := 'conflict';
       RETURN;
     END IF;

     WITH inserted AS (
       INSERT INTO es_events (stream_id, stream_version, event_id, type, schema_version, data, metadata, recorded_at)
       SELECT p_stream_id, v_version + e.ordinal, e.id, e.type, e.schema_version, e.data, e.metadata, p_recorded_at
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
   END
   $fn$`;
