/**
 * RateLimiter over MongoDB (official `mongodb` driver). Passes test/contract/rate-limiter.contract.ts. Every
 * instance using the same database shares the limits. No transactions: every decision is one atomic
 * single-document `findOneAndUpdate` with an aggregation-pipeline update, so a standalone server works too.
 *
 * - `rl_buckets`: `{ _id: { rule, key }, tat, admitted }`, the GCRA state with the TAT in epoch microseconds
 *   (an integral double: exact below 2^53 µs, i.e. for the next two centuries). The pipeline computes
 *   `base = max(tat, now)`, admits when `base + interval ≤ now + burst`, then stores `tat` (advanced only when
 *   admitted) and `admitted` (the outcome, read back from the returned document). Upserted on first use;
 *   concurrent first upserts of one key can collide on `_id`, and the loser retries.
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
  gcraDecision,
  gcraParameters,
  leaseMicros,
  micros,
  type ConcurrencyRule,
  type RateLimitDecision,
  type RateLimiter,
  type RateLimitRule,
  type SlotAttempt,
} from './rate-limiter.port.js';

export const RATE_LIMIT_BUCKETS_COLLECTION = 'rl_buckets';
export const RATE_LIMIT_SLOTS_COLLECTION = 'rl_slots';

const DUPLICATE_KEY = 11000;
const NAMESPACE_EXISTS = 48;
const UPSERT_ATTEMPTS = 5;

interface BucketDocument {
  _id: { rule: string; key: string };
  /** Epoch microseconds. */
  tat: number;
  admitted: boolean;
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
  private readonly buckets: Collection<BucketDocument>;
  private readonly slots: Collection<SlotsDocument>;
  private readonly ownsClient: boolean;

  constructor(
    private readonly client: MongoClient,
    dbName: string,
    private readonly clock: Clock,
    options: MongoRateLimiterOptions = {},
  ) {
    this.db = client.db(dbName, { writeConcern: { w: 'majority' }, ignoreUndefined: true });
    this.buckets = this.db.collection<BucketDocument>(RATE_LIMIT_BUCKETS_COLLECTION);
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
    for (const name of [RATE_LIMIT_BUCKETS_COLLECTION, RATE_LIMIT_SLOTS_COLLECTION]) {
      try {
        await this.db.createCollection(name);
      } catch (error) {
        if (!hasCode(error, NAMESPACE_EXISTS)) throw error;
      }
    }
    await this.buckets.createIndex({ tat: 1 }, { name: 'by_tat' });
  }

  async consume(rule: RateLimitRule, key: string): Promise<RateLimitDecision> {
    const parameters = gcraParameters(rule);
    assertKey(key);
    const nowMicros = micros(this.clock.now());
    const base = '$_base';
    const update: Document[] = [
      { $set: { _base: { $max: [{ $ifNull: ['$tat', nowMicros] }, nowMicros] } } },
      {
        $set: {
          admitted: {
            $lte: [{ $add: [base, parameters.intervalMicros] }, nowMicros + parameters.burstMicros],
          },
        },
      },
      { $set: { tat: { $cond: ['$admitted', { $add: [base, parameters.intervalMicros] }, base] } } },
      { $unset: '_base' },
    ];
    const bucket = await this.upsert(() =>
      this.buckets.findOneAndUpdate({ _id: { rule: rule.name, key } }, update, {
        upsert: true,
        returnDocument: 'after',
      }),
    );
    return gcraDecision(rule, parameters, nowMicros, bucket.admitted, bucket.tat);
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
    // A bucket whose TAT has passed is a full bucket, exactly like a missing document; likewise a slots
    // document without a live holder. Each delete is atomic per document, so a concurrent acquire either
    // lands before (the document then has a live holder and stays) or after (it upserts a new document).
    const buckets = await this.buckets.deleteMany({ tat: { $lte: nowMicros } });
    const slots = await this.slots.deleteMany({
      holders: { $not: { $elemMatch: { expiresAt: { $gt: nowMicros } } } },
    });
    return buckets.deletedCount + slots.deletedCount;
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

function databaseNameOf(url: string): string | undefined {
  const match = /^mongodb(?:\+srv)?:\/\/[^/]+\/([^?]+)/.exec(url);
  const name = match?.[1] ? decodeURIComponent(match[1]) : undefined;
  return name || undefined;
}
