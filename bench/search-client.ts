/**
 * The search benchmark's client, in a process of its own (forked by search.bench.ts): it times the service over
 * HTTP and the hand-written SQL over its own connection, alternating, as any outside client would. Run inside the
 * service's process, the client's own work (fetch, JSON) shared the service's event loop and counted as service
 * time.
 */
import { Agent, request } from 'node:http';
import pg from 'pg';

export interface ClientTask {
  readonly base: string;
  readonly key: string;
  readonly databaseUrl: string;
  readonly runs: number;
  readonly queries: ReadonlyArray<{ raw: string; sql: string }>;
  readonly firstChunkRuns: number;
}

export interface ClientResult {
  readonly perQuery: ReadonlyArray<{ raw: string; service: number[]; sql: number[] }>;
  readonly firstChunk: number[];
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/** POSTs JSON; resolves with the status once the first body chunk (`untilFirstChunk`) or the whole body arrived. */
function post(url: URL, key: string, body: unknown, untilFirstChunk = false): Promise<number> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method: 'POST',
        agent: untilFirstChunk ? undefined : agent,
        headers: {
          'x-api-key': key,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
        },
      },
      (response) => {
        if (untilFirstChunk) {
          response.once('data', () => {
            resolve(response.statusCode ?? 0);
            response.destroy();
          });
        } else {
          response.on('data', () => undefined);
          response.on('end', () => resolve(response.statusCode ?? 0));
        }
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}

async function run(task: ClientTask): Promise<ClientResult> {
  const direct = new pg.Client({ connectionString: task.databaseUrl });
  await direct.connect();
  try {
    const hosts = new URL('/api/v2/common/data/hosts', task.base);
    const perQuery: Array<{ raw: string; service: number[]; sql: number[] }> = [];
    for (const query of task.queries) {
      const service: number[] = [];
      const sql: number[] = [];
      const throughService = async () => {
        const started = performance.now();
        const status = await post(hosts, task.key, { raw_query: query.raw, results_per_page: 10 });
        if (status !== 200) throw new Error(`${query.raw}: HTTP ${status}`);
        service.push(performance.now() - started);
      };
      const byHand = async () => {
        const started = performance.now();
        await direct.query(
          `SELECT count(*) FROM (SELECT 1 FROM obs_hosts WHERE ${query.sql} LIMIT 10001) AS capped`,
        );
        await direct.query(
          `SELECT doc FROM obs_hosts WHERE ${query.sql} ORDER BY last_seen DESC, id LIMIT 10`,
        );
        sql.push(performance.now() - started);
      };
      // The table is larger than shared_buffers: whichever runs second finds the pages the first one read.
      // Alternating who goes first shares that advantage evenly.
      for (let attempt = 0; attempt < task.runs; attempt++) {
        if (attempt % 2 === 0) {
          await throughService();
          await byHand();
        } else {
          await byHand();
          await throughService();
        }
      }
      perQuery.push({ raw: query.raw, service, sql });
    }
    const firstChunk: number[] = [];
    const unified = new URL('/api/v2/common/data/search', task.base);
    for (let attempt = 0; attempt < task.firstChunkRuns; attempt++) {
      const started = performance.now();
      await post(unified, task.key, { raw_query: 'product:nginx' }, true);
      firstChunk.push(performance.now() - started);
    }
    return { perQuery, firstChunk };
  } finally {
    await direct.end();
    agent.destroy();
  }
}

process.once('message', (task: ClientTask) => {
  run(task).then(
    (result) => process.send!({ ok: true, result }, () => process.exit(0)),
    (error: unknown) => process.send!({ ok: false, error: String(error) }, () => process.exit(1)),
  );
});
