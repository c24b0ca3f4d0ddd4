/**
 * The load benchmark's client, in a process of its own (forked by load.bench.ts): `concurrency` closed-loop
 * clients, spread over the payers' API keys, send the mix (load-mix.ts) through keep-alive HTTP for a fixed time;
 * or, for the SQL leg, run the same requests' hand-written statements through a pool of the same concurrency on
 * the same database. A busy refusal is honoured as a well-behaved client would: it waits its Retry-After.
 */
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import pg from 'pg';
import { PgliteDatabase } from '../src/platform/database/pglite-database.js';
import { requestAt, type Sample } from './load-mix.js';

export interface LegTask {
  readonly leg: 'service' | 'sql';
  readonly concurrency: number;
  readonly seconds: number;
  /** Requests before this many seconds are sent but not counted (connections, caches, JIT). */
  readonly warmupSeconds: number;
  /** Service leg: where and as whom. */
  readonly base?: string;
  readonly keys?: readonly string[];
  /** SQL leg on the server: its URL and the pool size (the server's connection limit may cap it). */
  readonly databaseUrl?: string;
  readonly poolSize?: number;
  /** SQL leg on the embedded default: its DATA_DIR, opened here while the service is stopped. */
  readonly dataDir?: string;
}

export interface LegResult {
  readonly samples: Sample[];
  readonly seconds: number;
  /** Every request completed before the end, warm-up included (what the database's commits are divided by). */
  readonly sent: number;
  /** Requests abandoned unanswered ABANDON_AFTER_END_MS after the window closed. */
  readonly hung: number;
}

interface Answer {
  readonly status: number;
  readonly retryAfter: string | undefined;
  readonly text: string;
}

/**
 * Requests still unanswered this long after the window closed are abandoned (counted as errors, `hung`), so a
 * service that stopped answering ends the leg instead of the benchmark.
 */
const ABANDON_AFTER_END_MS = 30_000;

/** Longest a refused client waits before its next request (the service says 1 s for busy). */
const MAX_RETRY_WAIT_MS = 5000;

function post(agent: Agent, url: URL, key: string, body: unknown): Promise<Answer> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          'x-api-key': key,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            retryAfter: response.headers['retry-after'],
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}

/** Classifies an answer; returns how long the client waits before its next request. */
function classify(kind: Sample['kind'], ms: number, answer: Answer): { sample: Sample; waitMs: number } {
  const retryAfter = answer.retryAfter !== undefined;
  if (answer.status === 200) {
    if (kind === 'unified') {
      const outcome = JSON.parse(answer.text) as { per_type_status?: Record<string, string> };
      if (Object.values(outcome.per_type_status ?? {}).includes('busy'))
        return { sample: { kind, ms, outcome: 'partial_busy', status: 200, retryAfter }, waitMs: 0 };
    }
    return { sample: { kind, ms, outcome: 'ok', status: 200 }, waitMs: 0 };
  }
  const seconds = Number(answer.retryAfter ?? 0);
  const wait = Number.isFinite(seconds) ? Math.min(MAX_RETRY_WAIT_MS, Math.max(0, seconds) * 1000) : 0;
  if (answer.status === 503 && /"status":"busy"/.test(answer.text))
    return { sample: { kind, ms, outcome: 'busy', status: 503, retryAfter }, waitMs: wait };
  if (answer.status === 429)
    return {
      sample: { kind, ms, outcome: 'rate_limited', status: 429, retryAfter },
      waitMs: wait,
    };
  return { sample: { kind, ms, outcome: 'error', status: answer.status }, waitMs: 0 };
}

async function runLeg(task: LegTask): Promise<LegResult> {
  const samples: Sample[] = [];
  let next = 0;
  // Set when the clients start, after the leg's set-up (opening an embedded database takes seconds).
  let countFrom = Infinity;
  let end = Infinity;
  let sent = 0;
  let hung = 0;
  const record = (sample: Sample, at: number): void => {
    if (at < end) sent++;
    if (at >= countFrom && at < end) samples.push(sample);
  };

  let execute: (worker: number) => Promise<void>;
  let close: () => Promise<void>;
  if (task.leg === 'service') {
    const agent = new Agent({ keepAlive: true, maxSockets: task.concurrency });
    const keys = task.keys!;
    let abandonTimer: NodeJS.Timeout | undefined;
    const abandoned = new Promise<'hung'>((resolve) => {
      abandonTimer = setTimeout(
        () => resolve('hung'),
        (task.warmupSeconds + task.seconds) * 1000 + ABANDON_AFTER_END_MS,
      );
    });
    let errorsShown = 0;
    execute = async (worker) => {
      const n = next++;
      const req = requestAt(n);
      const t0 = performance.now();
      const answer = await Promise.race([
        post(agent, new URL(req.path, task.base), keys[worker % keys.length]!, req.body),
        abandoned,
      ]);
      if (answer === 'hung') {
        hung++;
        return;
      }
      const t1 = performance.now();
      const { sample, waitMs } = classify(req.kind, t1 - t0, answer);
      record(sample, t1);
      if (sample.outcome === 'error' && errorsShown++ < 3)
        process.stderr.write(`${req.kind} ${req.path}: HTTP ${answer.status} ${answer.text.slice(0, 300)}\n`);
      if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
    };
    close = async () => {
      clearTimeout(abandonTimer);
      agent.destroy();
    };
  } else if (task.databaseUrl) {
    const pool = new pg.Pool({ connectionString: task.databaseUrl, max: task.poolSize ?? task.concurrency });
    // An idle connection ended by its server (the embedded one stops after the last leg) is no failure.
    pool.on('error', () => undefined);
    execute = async () => {
      const req = requestAt(next++);
      const t0 = performance.now();
      // One connection for the request's statements, as the service holds one per dataset query.
      const client = await pool.connect();
      try {
        for (const statement of req.sql) await client.query(statement);
      } finally {
        client.release();
      }
      const t1 = performance.now();
      record({ kind: req.kind, ms: t1 - t0, outcome: 'ok' }, t1);
    };
    close = () => pool.end();
  } else {
    const db = await PgliteDatabase.open(join(task.dataDir!, 'pglite'));
    execute = async () => {
      const req = requestAt(next++);
      const t0 = performance.now();
      for (const statement of req.sql) await db.query(statement);
      const t1 = performance.now();
      record({ kind: req.kind, ms: t1 - t0, outcome: 'ok' }, t1);
    };
    close = () => db.close();
  }
  let errorsLogged = 0;
  countFrom = performance.now() + task.warmupSeconds * 1000;
  end = countFrom + task.seconds * 1000;
  try {
    await Promise.all(
      Array.from({ length: task.concurrency }, async (_, worker) => {
        while (performance.now() < end) {
          try {
            await execute(worker);
          } catch (error) {
            // A refused connection or a failed statement is counted, and the client goes on.
            record({ kind: 'unified', ms: 0, outcome: 'error' }, performance.now());
            if (errorsLogged++ < 3) process.stderr.write(`load client: ${String(error)}\n`);
          }
        }
      }),
    );
  } finally {
    await close();
  }
  return { samples, seconds: task.seconds, sent, hung };
}

process.on('message', (task: LegTask | 'exit') => {
  if (task === 'exit') process.exit(0);
  runLeg(task).then(
    (result) => process.send!({ ok: true, result }),
    (error: unknown) =>
      process.send!({
        ok: false,
        error: error instanceof Error ? (error.stack ?? error.message) : String(error),
      }),
  );
});
