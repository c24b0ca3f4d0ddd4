/**
 * A second process for test/integration/pglite-socket.test.ts (plain ESM: child processes do not go through jest).
 *
 *   writer <socketDir> <label> <connections> <transactions>
 *       Each connection runs <transactions> explicit transactions through the socket, each reading max(n) and
 *       inserting two consecutive numbers in several statements. Prints one JSON line {committed, errors}.
 *   hold <socketDir> <marker>
 *       BEGIN, INSERT a row with `marker`, prints "ready", then waits (the test kills it mid-transaction).
 *   open <dataDir>
 *       openSqlDatabase({dataDir}) from the TypeScript sources (transpiled here with @swc/core), prints
 *       {"role": ...}, then executes one JSON line {sql, params} per stdin line, printing {rows} or {error};
 *       the line "close" closes the database and exits.
 */
import { readFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import swc from '@swc/core';

const [mode, ...args] = process.argv.slice(2);

/** The same transaction as the in-process writers of the test: two rows whose numbers must be adjacent. */
async function runWriterTransaction(client, label) {
  await client.query('BEGIN');
  try {
    const first = await client.query('SELECT coalesce(max(n), 0)::int AS m FROM seq');
    const n1 = first.rows[0].m + 1;
    await client.query('INSERT INTO seq (n, writer, step) VALUES ($1, $2, 0)', [n1, label]);
    const second = await client.query('SELECT max(n)::int AS m FROM seq');
    await client.query('INSERT INTO seq (n, writer, step) VALUES ($1, $2, 1)', [second.rows[0].m + 1, label]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

function socketClient(socketDir) {
  return new pg.Client({ host: socketDir, port: 5432, user: 'postgres', database: 'postgres' });
}

async function writer(socketDir, label, connections, transactions) {
  let committed = 0;
  const errors = [];
  await Promise.all(
    Array.from({ length: connections }, async (_, c) => {
      const client = socketClient(socketDir);
      await client.connect();
      for (let t = 0; t < transactions; t++) {
        try {
          await runWriterTransaction(client, `${label}-${c}-${t}`);
          committed++;
        } catch (error) {
          errors.push(`${error.code ?? ''} ${error.message}`);
        }
      }
      await client.end();
    }),
  );
  process.stdout.write(`${JSON.stringify({ committed, errors })}\n`);
}

async function hold(socketDir, marker) {
  const client = socketClient(socketDir);
  await client.connect();
  await client.query('BEGIN');
  await client.query('INSERT INTO seq (n, writer, step) VALUES ($1, $2, 0)', [1_000_000, marker]);
  process.stdout.write('ready\n');
  await new Promise(() => undefined);
}

/** Lets this process import the service's TypeScript sources: `.js` specifiers map to `.ts`, swc strips types. */
function registerTypeScript() {
  registerHooks({
    resolve(specifier, context, nextResolve) {
      try {
        return nextResolve(specifier, context);
      } catch (error) {
        if (specifier.startsWith('.') && specifier.endsWith('.js')) {
          return nextResolve(`${specifier.slice(0, -3)}.ts`, context);
        }
        throw error;
      }
    },
    load(url, context, nextLoad) {
      if (!url.endsWith('.ts')) return nextLoad(url, context);
      const filename = fileURLToPath(url);
      const { code } = swc.transformSync(readFileSync(filename, 'utf8'), {
        filename,
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
          target: 'es2023',
        },
        module: { type: 'es6' },
      });
      return { format: 'module', source: code, shortCircuit: true };
    },
  });
}

async function open(dataDir) {
  registerTypeScript();
  const source = new URL('../../src/platform/database/open-sql-database.ts', import.meta.url);
  const { openSqlDatabase } = await import(pathToFileURL(fileURLToPath(source)).href);
  const opened = await openSqlDatabase({ dataDir });
  process.stdout.write(`${JSON.stringify({ role: opened.role })}\n`);
  for await (const line of createInterface({ input: process.stdin })) {
    if (line === 'close') {
      await opened.close();
      process.stdout.write(`${JSON.stringify({ closed: true })}\n`);
      process.exit(0);
    }
    const { sql, params } = JSON.parse(line);
    try {
      const { rows } = await opened.db.query(sql, params);
      process.stdout.write(`${JSON.stringify({ rows })}\n`);
    } catch (error) {
      process.stdout.write(`${JSON.stringify({ error: error.message })}\n`);
    }
  }
}

const modes = {
  writer: () => writer(args[0], args[1], Number(args[2]), Number(args[3])),
  hold: () => hold(args[0], args[1]),
  open: () => open(args[0]),
};

if (mode in modes) {
  modes[mode]().catch((error) => {
    process.stderr.write(`${error.stack ?? error}\n`);
    process.exit(1);
  });
}
