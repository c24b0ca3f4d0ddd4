#!/usr/bin/env node
/**
 * The OpenAPI document the service serves at /api/v2/openapi.json, built from the compiled code (run
 * `npm run build` first) on a throwaway embedded database, without listening on any port.
 *
 *   node scripts/openapi.mjs out.json   writes the document
 *   node scripts/openapi.mjs --lint     lints it with Redocly (rules and reasons in redocly.yaml) and checks that
 *                                       the console's API types match it; exits non-zero on any error. Offline:
 *                                       no telemetry, no update check.
 *   node scripts/openapi.mjs --console-types   writes the console's API types (console/src/api/schema.d.ts)
 */
import 'reflect-metadata';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dist = new URL('../dist/src/', import.meta.url);
const { loadConfig } = await import(new URL('platform/config/app-config.js', dist).href);
const { createHttpApp, buildOpenApiDocument } = await import(
  new URL('platform/http/create-http-app.js', dist).href
);
const { ServiceContext } = await import(new URL('platform/service-context.js', dist).href);
const { serviceComposition } = await import(new URL('composition/service-composition.js', dist).href);
const { AppModule } = await import(new URL('app.module.js', dist).href);

const lint = process.argv[2] === '--lint';
const consoleTypes = process.argv[2] === '--console-types';
const target = lint || consoleTypes ? undefined : process.argv[2];
if (!lint && !consoleTypes && !target) {
  process.stderr.write('usage: node scripts/openapi.mjs <out.json> | --lint | --console-types\n');
  process.exit(2);
}

const scratch = mkdtempSync(join(tmpdir(), 'openapi-'));
let status = 0;
try {
  const config = loadConfig({
    DATA_DIR: join(scratch, 'data'),
    EMBEDDED_ENGINE: 'pglite',
    LOG_LEVEL: 'silent',
    SEED_DEMO: 'false',
  });
  const context = await ServiceContext.open(config, { ...serviceComposition, serveSocket: false });
  let document;
  try {
    const app = await createHttpApp(context, AppModule.forContext(context), { logger: false });
    document = buildOpenApiDocument(app);
    await app.close();
  } finally {
    await context.close();
  }
  const file = target ?? join(scratch, 'openapi.json');
  writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
  if (lint || consoleTypes) {
    // The console's API types come from this document, so the console cannot drift from the API (issue 19).
    const typesFile = new URL('../console/src/api/schema.d.ts', import.meta.url);
    const { default: openapiTS, astToString } = await import('openapi-typescript');
    const header =
      "// Generated from the service's OpenAPI document by `npm run console:types`; do not edit.\n";
    const types = header + astToString(await openapiTS(document, { alphabetize: true }));
    if (consoleTypes) writeFileSync(typesFile, types);
    else if (!existsSync(typesFile) || readFileSync(typesFile, 'utf8') !== types) {
      process.stderr.write(
        'console/src/api/schema.d.ts does not match the OpenAPI document: run `npm run console:types`\n',
      );
      status = 1;
    }
  }
  if (lint) {
    const result = spawnSync(
      process.execPath,
      [
        new URL('../node_modules/@redocly/cli/bin/cli.js', import.meta.url).pathname,
        'lint',
        file,
        '--format=stylish',
      ],
      {
        stdio: 'inherit',
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        cwd: new URL('..', import.meta.url).pathname,
      },
    );
    status = status || (result.status ?? 1);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
process.exit(status);
