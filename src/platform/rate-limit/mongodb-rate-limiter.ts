/**
 * RateLimiter over MongoDB (official `mongodb` driver). Passes test/contract/rate-limiter.contract.ts. Every
 * instance using the same database shares the limits. No transactions: every decision is one atomic
 * single-document `findOneAndUpdate` with an aggregation-pipeline update, so a standalone server works too.
 *
 * - `rl_windows`: `{ _id: { rule, key }, admissions, admitted, expiresAt }`, the admission times still inside
 *   the window in epoch microseconds (integral doubles: exact below 2^53 µs, i.e. for the next two centuries), at
 *   most `limit` of them. The pipeline keeps the admissions with `now − window < a`, admits when fewer than
 *   `limit` remain, appends this one when admitted, and stores `admitted` (the outcome, read back from the
 *   returned document) and `expiresAt` (when the last admission leaves the window, for prune). Upserted on first
 *   use; concurrent first upserts of one key can collide on `_id`, and the loser retries.
 * - `rl_slots`: `{ _id: { name, key }, holders: [{ id, expiresAt }] }`, one document per key. An acquire is
 *   one pipeline update: drop lapsed holders, then append a holder only when fewer than `max` remain. Release
 *   pulls the holder by its random id; renew extends it while it is live.
 *
 * Time is the injected Clock's, passed in the update; the server's clock is never used (no TTL indexes, which
 * would follow the server's clock). Stale documents never change a decision; prune() deletes them.
 */
import { randomUUID } from 'node:crypto';
import { MongoClient, MongoServerError, type Collection, type Db, type Document } from 'mongodb';
import type { Clock } from '../clock/clock.js';
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
import { databaseNameOf } from '../mongodb/connect.js';

export const RATE_LIMIT_WINDOWS_COLLECTION = 'rl_windows';
/** The token-bucket collection of earlier versions: its state is dropped (limits are short-lived). */
const RETIRED_BUCKETS_COLLECTION = 'rl_buckets';
export const RATE_LIMIT_SLOTS_COLLECTION = 'rl_slots';

const DUPLICATE_KEY = 11000;
const NAMESPACE_EXISTS = 48;
const UPSERT_ATTEMPTS = 5;

interface WindowDocument {
  _id: { rule: string; key: string };
  /** Epoch microseconds of the admissions inside the window. */
  admissions: number[];
  admitted: boolean;
  /** Epoch microseconds: when the last admission leaves the window. */
  expiresAt: number;
}

interface SlotHolder {
  id: string;
  /** Epoch microseconds. */
  expiresAt: number;
}

interface SlotsDocument {
  _id: { name: string; key: string };
  holders: SlotHolder[];
}

export interface MongoRateLimiterOptions {
  /** Close the MongoClient in close() (true when the limiter created it). */
  readonly ownsClient?: boolean;
}

export class MongoRateLimiter implements RateLimiter {
  private readonly db: Db;
  private readonly windows: Collection<WindowDocument>;
  private readonly slots: Collection<SlotsDocument>;
  private readonly ownsClient: boolean;

  constructor(
    private readonly client: MongoClient,
    dbName: string,
    private readonly clock: Clock,
    options: MongoRateLimiterOptions = {},
  ) {
    this.db = client.db(dbName, { writeConcern: { w: 'majority' }, ignoreUndefined: true });
    this.windows = this.db.collection<WindowDocument>(RATE_LIMIT_WINDOWS_COLLECTION);
    this.slots = this.db.collection<SlotsDocument>(RATE_LIMIT_SLOTS_COLLECTION);
    this.ownsClient = options.ownsClient ?? false;
  }

  /** Connects to `url`; the database is `dbName`, else the one named in the URL path, else `exposure`. */
  static async connect(url: string, clock: Clock, dbName?: string): Promise<MongoRateLimiter> {
    const client = new MongoClient(url, {
      writeConcern: { w: 'majority' },
      ignoreUndefined: true,
      serverSelectionTimeoutMS: 10_000,
    });
    await client.connect();
    return new MongoRateLimiter(client, dbName ?? databaseNameOf(url) ?? 'exposure', clock, {
      ownsClient: true,
    });
  }

  async init(): Promise<void> {
    for (const name of [RATE_LIMIT_WINDOWS_COLLECTION, RATE_LIMIT_SLOTS_COLLECTION]) {
      try {
        await this.db.createCollection(name);
      } catch (error) {
        if (!hasCode(error, NAMESPACE_EXISTS)) throw error;
      }
    }
    await this.db
      .collection(RETIRED_BUCKETS_COLLECTION)
      .drop()
      .catch(() => undefined); // absent: nothing to drop
    await this.windows.createIndex({ expiresAt: 1 }, { name: 'by_expiry' });
  }

  async consume(rule: RateLimitRule, key: string): Promise<RateLimitDecision> {
    const parameters = windowParameters(rule);
    assertKey(key);
    const nowMicros = micros(this.clock.now());
    const update: Document[] = [
      {
        $set: {
          _live: {
            $filter: {
              input: { $ifNull: ['$admissions', []] },
              as: 'a',
              cond: { $gt: ['$$a', nowMicros - parameters.windowMicros] },
            },
          },
        },
      },
      { $set: { admitted: { $lt: [{ $size: '$_live' }, rule.limit] } } },
      {
        $set: {
          admissions: {
            $cond: ['$admitted', { $concatArrays: ['$_live', { $literal: [nowMicros] }] }, '$_live'],
          },
          expiresAt: {
            $cond: [
              '$admitted',
              { $max: [{ $ifNull: ['$expiresAt', 0] }, nowMicros + parameters.windowMicros] },
              { $ifNull: ['$expiresAt', 0] },
            ],
          },
        },
      },
      { $unset: '_live' },
    ];
    const window = await this.upsert(() =>
      this.windows.findOneAndUpdate({ _id: { rule: rule.name, key } }, update, {
        upsert: true,
        returnDocument: 'after',
      }),
    );
    const admissions = window.admissions;
    return windowDecision(
      rule,
      parameters,
      nowMicros,
      window.admitted,
      admissions.length,
      admissions.length > 0 ? Math.min(...admissions) : null,
    );
  }

  async acquireSlot(rule: ConcurrencyRule, key: string): Promise<SlotAttempt> {
    assertConcurrencyRule(rule);
    assertKey(key);
    const nowMicros = micros(this.clock.now());
    const slotId = randomUUID();
    const holder: SlotHolder = { id: slotId, expiresAt: nowMicros + leaseMicros(rule) };
    const update: Document[] = [
      {
        $set: {
          holders: {
            $filter: {
              input: { $ifNull: ['$holders', []] },
              as: 'h',
              cond: { $gt: ['$$h.expiresAt', nowMicros] },
            },
          },
        },
      },
      {
        $set: {
          holders: {
            $cond: [
              { $lt: [{ $size: '$holders' }, rule.max] },
              { $concatArrays: ['$holders', { $literal: [holder] }] },
              '$holders',
            ],
          },
        },
      },
    ];
    const slots = await this.upsert(() =>
      this.slots.findOneAndUpdate({ _id: { name: rule.name, key } }, update, {
        upsert: true,
        returnDocument: 'after',
      }),
    );
    if (slots.holders.some((h) => h.id === slotId)) {
      return {
        acquired: true,
        rule,
        slotId,
        release: () => this.release(rule, key, slotId),
        renew: () => this.renew(rule, key, slotId),
      };
    }
    const soonest = Math.min(...slots.holders.map((h) => h.expiresAt));
    return { acquired: false, rule, retryAfterSeconds: ceilSeconds(soonest - nowMicros) };
  }

  async prune(): Promise<number> {
    const nowMicros = micros(this.clock.now());
    // A window whose admissions all left is an empty window, exactly like a missing document; likewise a slots
    // document without a live holder. Each delete is atomic per document, so a concurrent consume or acquire
    // either lands before (the document then is live and stays) or after (it upserts a new document).
    const windows = await this.windows.deleteMany({ expiresAt: { $lte: nowMicros } });
    const slots = await this.slots.deleteMany({
      holders: { $not: { $elemMatch: { expiresAt: { $gt: nowMicros } } } },
    });
    return windows.deletedCount + slots.deletedCount;
  }

  /** Closes the client when this limiter created it (connect()); a shared client belongs to its opener. */
  async close(): Promise<void> {
    if (this.ownsClient) await this.client.close();
  }

  private async release(rule: ConcurrencyRule, key: string, slotId: string): Promise<void> {
    await this.slots.updateOne({ _id: { name: rule.name, key } }, { $pull: { holders: { id: slotId } } });
  }

  private async renew(rule: ConcurrencyRule, key: string, slotId: string): Promise<boolean> {
    const nowMicros = micros(this.clock.now());
    const result = await this.slots.updateOne(
      {
        _id: { name: rule.name, key },
        holders: { $elemMatch: { id: slotId, expiresAt: { $gt: nowMicros } } },
      },
      { $set: { 'holders.$.expiresAt': nowMicros + leaseMicros(rule) } },
    );
    return result.matchedCount === 1;
  }

  /** Runs an upsert, again when a concurrent first upsert of the same `_id` won the insert. */
  private async upsert<T>(run: () => Promise<T | null>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        const document = await run();
        if (!document) throw new Error('rate limiter: the upsert returned no document');
        return document;
      } catch (error) {
        if (!hasCode(error, DUPLICATE_KEY) || attempt >= UPSERT_ATTEMPTS) throw error;
      }
    }
  }
}

function hasCode(error: unknown, ...codes: number[]): boolean {
  return error instanceof MongoServerError && typeof error.code === 'number' && codes.includes(error.code);
}
