/**
 * Start-up recovery of interrupted organization creations (rule 6's resumable transition): a creation that
 * cannot be finished is logged through the service logger and shown by /health/ready, without stopping the
 * others or the service; once it no longer fails, the check clears.
 */
import { rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  OrganizationWorkspace,
  RECOVERY_CHECK,
} from '../../src/organizations/commands/organization-workspace.js';
import { organizationDecider, organizationStreamId } from '../../src/organizations/domain/organization.js';
import { loadConfig } from '../../src/platform/config/app-config.js';
import { createHttpApp } from '../../src/platform/http/create-http-app.js';
import { AppModule } from '../../src/app.module.js';
import { serviceComposition } from '../../src/composition/service-composition.js';
import { ServiceContext } from '../../src/platform/service-context.js';
import { appendInterruptedCreation, operator } from '../support/organizations.js';
import { waitUntil } from '../support/storage.js';
import { freshDataDir } from '../support/pglite-template.js';

interface LogLine {
  level: string;
  message: string;
  fields: Record<string, unknown>;
}

describe('rule 6: start-up recovery of interrupted organization creations', () => {
  let dataDir: string;
  let context: ServiceContext;
  const apps: NestFastifyApplication[] = [];
  const logs: LogLine[] = [];

  beforeAll(async () => {
    dataDir = await freshDataDir('org-recovery-');
    context = await ServiceContext.open(
      loadConfig({ DATA_DIR: dataDir, EMBEDDED_ENGINE: 'pglite', LOG_LEVEL: 'silent', SEED_DEMO: 'false' }),
      {
        ...serviceComposition,
        pollIntervalMs: 20,
        log: (level, message, fields) => logs.push({ level, message, fields: fields ?? {} }),
      },
    );
    await context.projections.start();
  });

  afterAll(async () => {
    for (const app of apps) await app.close();
    await context?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const interruptedCreation = (name: string) => appendInterruptedCreation(context, name);

  it('rule 6: a creation that cannot be finished is logged and shown by /health/ready; the others finish; the check clears once it no longer fails', async () => {
    const healthy = await interruptedCreation('Resumed Co');
    // A name the organization decider refuses: finishing this intent fails every time.
    const broken = await interruptedCreation('');

    // Start-up: the application's bootstrap runs the recovery.
    const app = await createHttpApp(context, AppModule.forContext(context), { logger: false });
    apps.push(app);
    const resumed = await context.repository.load(
      organizationStreamId(healthy.organizationId),
      organizationDecider,
    );
    expect(resumed.state).toMatchObject({
      exists: true,
      name: 'Resumed Co',
      transition: { completed: true },
    });

    const failures = logs.filter((line) => line.level === 'error');
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({
      message: 'an interrupted organization creation could not be finished',
      fields: { accountId: broken.accountId, organizationId: broken.organizationId },
    });
    expect(failures[0]!.fields.err).toBeInstanceOf(Error);

    const ready = await app.inject({ method: 'GET', url: '/health/ready' });
    // The service still serves: a failed recovery is shown, it does not take the instance out of rotation.
    expect(ready.statusCode).toBe(200);
    const body = ready.json();
    expect(body.status).toBe('ready');
    expect(body.background[RECOVERY_CHECK]).toEqual({ ok: false, failing_since: expect.any(String) });
    // Which accounts failed is for operators (the log, the service's own check), not the public route.
    expect(context.background.get(RECOVERY_CHECK)?.detail).toContain(
      `1 of 2 interrupted organization creations could not be finished (owner accounts ${broken.accountId})`,
    );

    // An operator abandons the broken intent; the next pass (the sweeper's retry) clears the check.
    const stream = `organization-owner-${broken.accountId}`;
    const { position } = await context.storage.eventStore.append(
      stream,
      [
        {
          id: randomUUID(),
          type: 'OrganizationCreationAbandoned',
          schemaVersion: 1,
          data: { organizationId: broken.organizationId },
          metadata: operator().metadata,
        },
      ],
      { expectedVersion: 0 },
    );
    await context.readYourWrites(['organizations'], position);
    const workspace = app.get(OrganizationWorkspace);
    expect(workspace.recoveryFailing).toBe(true);
    expect(await workspace.recoverAll()).toEqual({ pending: 0, failed: 0 });
    await waitUntil(async () => {
      const again = (await app.inject({ method: 'GET', url: '/health/ready' })).json();
      return again.background[RECOVERY_CHECK].ok === true;
    });
    expect(workspace.recoveryFailing).toBe(false);
  });
});
