/**
 * RateLimiter over the SqlDatabase seam (PGlite or a PostgreSQL server). Passes
 * test/contract/rate-limiter.contract.ts. Every instance using the same database shares the limits.
 *
 * Request rates: `rl_windows(rule, key, admissions, admitted, expires_us)`: the admission times (epoch
 * microseconds, bigint) still inside the window, at most `limit` of them. One statement per consume:
 * `INSERT … ON CONFLICT (rule, key) DO UPDATE SET …` keeps the admissions inside the window and appends this one
 * only when fewer than `limit` remain. The conflicting row is locked by the upsert, so concurrent consumes of one
 * key (from any connection or instance) apply one after the other to the latest set. `admitted` records the
 * outcome of the last update so RETURNING can tell it (PostgreSQL 15 has no `RETURNING old.*`). All arithmetic is
 * on whole microseconds, so it is exact. `expires_us` is when the last admission leaves the window (for prune).
 *
 * Concurrency slots: `rl_slots(name, key, slot_id, expires_at)`. An acquire is one transaction: an advisory
 * transaction lock on (name, key) in its own statement first (so the next statement's snapshot sees every
 * change committed by earlier holders of the lock), then one statement that counts the live slots, deletes the
 * lapsed ones and inserts the new slot only when fewer than `max` are live. Release deletes the slot by its
 * random id; renew extends it while it is still live.
 *
 * Time is the injected Clock's, passed as a parameter; the database server's clock is never used. Stale rows
 * (windows whose admissions all left, lapsed slots) never change a decision; prune() deletes them.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock/clock.js';
import type { SqlDatabase } from '../database/sql-database.js';
import {
  assertConcurrencyRule,
  assertKey,
  ceilSeconds,
  leaseMicros,
  micros,
  type ConcurrencyRule,
  type RateLimitDecision,
  type RateLimiter,
  type RateLimitRule,
  type SlotAttempt,
  windowDecision,
  windowParameters,
} from './rate-limiter.port.js';

export const RATE_LIMIT_WINDOWS_TABLE = 'rl_windows';
/** The token-bucket table of earlier versions: its state is dropped (limits are short-lived). */
const RETIRED_BUCKETS_TABLE = 'rl_buckets';
export const RATE_LIMIT_SLOTS_TABLE = 'rl_slots';

/**
 * Advisory locks of this adapter use the two-int4 key space (which never overlaps the single-bigint one the
 * event and read stores use): (namespace, 0) for schema creation, (namespace, hashtext(name, key)) per slot key.
 */
const ADVISORY_NAMESPACE = 0x726c_696d; // 'rlim'

const SCHEMA = `
  DROP TABLE IF EXISTS ${RETIRED_BUCKETS_TABLE};
  CREATE TABLE IF NOT EXISTS ${RATE_LIMIT_WINDOWS_TABLE} (
    rule text NOT NULL,
    key text NOT NULL,
    admissions bigint[] NOT NULL,
    admitted boolean NOT NULL DEFAULT true,
    expires_us bigint NOT NULL,
    PRIMARY KEY (rule, key)
  );
  CREATE INDEX IF NOT EXISTS ${RATE_LIMIT_WINDOWS_TABLE}_by_expiry ON ${RATE_LIMIT_WINDOWS_TABLE} (expires_us);
  CREATE TABLE IF NOT EXISTS ${RATE_LIMIT_SLOTS_TABLE} (
    name text NOT NULL,
    key text NOT NULL,
    slot_id text NOT NULL,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (name, key, slot_id)
  );
  CREATE INDEX IF NOT EXISTS ${RATE_LIMIT_SLOTS_TABLE}_by_expiry ON ${RATE_LIMIT_SLOTS_TABLE} (expires_at);
`;

/** The admissions of the stored row still inside the window ($3 now, $4 window, both in microseconds). */
const LIVE = `ARRAY(SELECT t.a FROM unnest(w.admissions) AS t(a) WHERE t.a > $3::bigint - $4::bigint)`;
const FITS = `cardinality(${LIVE}) < $5::int`;

/**
 * $1 rule, $2 key, $3 now (µs), $4 window (µs), $5 limit. Admitted when fewer than `limit` admissions are inside
 * the window (`now − window < a`); a refusal keeps the admissions as they are (minus those that left).
 */
const CONSUME = `
  INSERT INTO ${RATE_LIMIT_WINDOWS_TABLE} AS w (rule, key, admissions, admitted, expires_us)
  VALUES ($1, $2, ARRAY[$3::bigint], true, $3::bigint + $4::bigint)
  ON CONFLICT (rule, key) DO UPDATE SET
    admitted = ${FITS},
    admissions = CASE WHEN ${FITS} THEN ${LIVE} || $3::bigint ELSE ${LIVE} END,
    expires_us = CASE WHEN ${FITS} THEN greatest(w.expires_us, $3::bigint + $4::bigint) ELSE w.expires_us END
  RETURNING admitted, cardinality(admissions) AS live,
    (SELECT min(t.a) FROM unnest(admissions) AS t(a))::text AS oldest_us`;

/** $1 name, $2 key, $3 now, $4 slot id, $5 lease, $6 max. Runs under the (name, key) advisory lock. */
const ACQUIRE = `
  WITH live AS (
    SELECT count(*)::int AS holders, min(expires_at) AS soonest
    FROM ${RATE_LIMIT_SLOTS_TABLE}
    WHERE name = $1 AND key = $2 AND expires_at > $3::timestamptz
  ), lapsed AS (
    DELETE FROM ${RATE_LIMIT_SLOTS_TABLE} WHERE name = $1 AND key = $2 AND expires_at <= $3::timestamptz
  ), taken AS (
    INSERT INTO ${RATE_LIMIT_SLOTS_TABLE} (name, key, slot_id, expires_at)
    SELECT $1, $2, $4, $3::timestamptz + $5::interval FROM live WHERE live.holders < $6::int
    RETURNING slot_id
  )
  SELECT EXISTS (SELECT 1 FROM taken) AS acquired,
         (extract(epoch FROM live.soonest) * 1000000)::bigint::text AS soonest_us
  FROM live`;

export class PostgresRateLimiter implements RateLimiter {
  constructor(
    private readonly db: SqlDatabase,
    private readonly clock: Clock,
  ) {}

  async init(): Promise<void> {
    // CREATE … IF NOT EXISTS races between instances starting together: serialize it.
    await this.db.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(${ADVISORY_NAMESPACE}, 0)`);
      for (const statement of SCHEMA.split(';').map((s) => s.trim())) {
        if (statement) await tx.query(statement);
      }
    });
  }

  async consume(rule: RateLimitRule, key: string): Promise<RateLimitDecision> {
    const parameters = windowParameters(rule);
    assertKey(key);
    const nowMicros = micros(this.clock.now());
    const { rows } = await this.db.query<{ admitted: boolean; live: number; oldest_us: string | null }>(
      CONSUME,
      [rule.name, key, String(nowMicros), String(parameters.windowMicros), rule.limit],
    );
    const row = rows[0];
    if (!row) throw new Error('rate limiter: the window upsert returned no row');
    return windowDecision(
      rule,
      parameters,
      nowMicros,
      row.admitted,
      Number(row.live),
      row.oldest_us === null ? null : Number(row.oldest_us),
    );
  }

  async acquireSlot(rule: ConcurrencyRule, key: string): Promise<SlotAttempt> {
    assertConcurrencyRule(rule);
    assertKey(key);
    const now = this.clock.now();
    const slotId = randomUUID();
    const row = await this.db.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(${ADVISORY_NAMESPACE}, hashtext($1))`, [
        JSON.stringify([rule.name, key]),
      ]);
      const { rows } = await tx.query<{ acquired: boolean; soonest_us: string | null }>(ACQUIRE, [
        rule.name,
        key,
        now.toISOString(),
        slotId,
        microsecondsInterval(leaseMicros(rule)),
        rule.max,
      ]);
      return rows[0];
    });
    if (!row) throw new Error('rate limiter: the slot statement returned no row');
    if (row.acquired) {
      return {
        acquired: true,
        rule,
        slotId,
        release: () => this.release(rule, key, slotId),
        renew: () => this.renew(rule, key, slotId),
      };
    }
    // Refused means `max` ≥ 1 live slots, so there is a soonest expiry.
    const soonest = row.soonest_us === null ? micros(now) : Number(row.soonest_us);
    return { acquired: false, rule, retryAfterSeconds: ceilSeconds(soonest - micros(now)) };
  }

  async prune(): Promise<number> {
    const now = this.clock.now();
    // A window whose admissions all left is an empty window, exactly like a missing row.
    const windows = await this.db.query(
      `DELETE FROM ${RATE_LIMIT_WINDOWS_TABLE} WHERE expires_us <= $1::bigint`,
      [String(micros(now))],
    );
    const slots = await this.db.query(
      `DELETE FROM ${RATE_LIMIT_SLOTS_TABLE} WHERE expires_at <= $1::timestamptz`,
      [now.toISOString()],
    );
    return windows.affectedRows + slots.affectedRows;
  }

  private async release(rule: ConcurrencyRule, key: string, slotId: string): Promise<void> {
    await this.db.query(
      `DELETE FROM ${RATE_LIMIT_SLOTS_TABLE} WHERE name = $1 AND key = $2 AND slot_id = $3`,
      [rule.name, key, slotId],
    );
  }

  private async renew(rule: ConcurrencyRule, key: string, slotId: string): Promise<boolean> {
    const now = this.clock.now().toISOString();
    const result = await this.db.query(
      `UPDATE ${RATE_LIMIT_SLOTS_TABLE} SET expires_at = $4::timestamptz + $5::interval
       WHERE name = $1 AND key = $2 AND slot_id = $3 AND expires_at > $4::timestamptz`,
      [rule.name, key, slotId, now, microsecondsInterval(leaseMicros(rule))],
    );
    return result.affectedRows === 1;
  }
}

/** An interval literal of whole microseconds: exact, unlike float arithmetic on intervals. */
function microsecondsInterval(value: number): string {
  return `${value} microseconds`;
}
