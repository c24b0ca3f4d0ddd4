/**
 * Frozen reports, `as_of`, monitoring (watch runs) and email notifications of exposure scopes (issue 8, items 6,
 * 7 and 9) over real HTTP on real storage (PGlite), with the real refresh pool, the sample catalogue, and an
 * in-process SMTP server on loopback that receives what nodemailer sends. Time is a ManualClock.
 */
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SMTPServer } from 'smtp-server';
import { CommandBus } from '@nestjs/cqrs';
import { SAMPLE_KEV, SAMPLE_NVD } from '../../src/catalogue/sample/sample-catalogue.js';
import { parseCatalogueText } from '../../src/catalogue/import/parse-catalogue-files.js';
import { EnableExposition } from '../../src/exposure/commands/scope-lifecycle.commands.js';
import { exposureRuns } from '../../src/exposure/commands/exposure-write.js';
import { MAX_REPORTS_PER_SCOPE } from '../../src/exposure/domain/report.js';
import { ExposureMonitor } from '../../src/exposure/exposure-monitor.js';
import { ScopeErasureSweeper } from '../../src/exposure/scope-erasure-sweeper.js';
import { ManualClock } from '../../src/platform/clock/clock.js';
import { TestDnsServer } from '../support/dns-server.js';
import { cpe, host } from '../support/host-observations.js';
import { OrganizationHarness, operator, type Actor } from '../support/organizations.js';
import { startTestService, waitForProjections, type TestService } from '../support/service.js';
import { waitUntil } from '../support/storage.js';
import { expectOneEventBatchesToRebuildLiveDocuments } from '../support/one-event-batches.js';

const DOMAIN = 'reports-exposure.example';
const clock = new ManualClock(new Date('2026-11-20T10:00:00.000Z'));
let dns: TestDnsServer;
let smtp: SMTPServer;
const mails: Array<{ to: string[]; raw: string }> = [];
let service: TestService;
let h: OrganizationHarness;

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const json = (body: string): Json => JSON.parse(body) as Json;
const org = (id: string, rest = ''): string => `/api/v2/organizations/${id}${rest}`;

const HOSTS = [
  host('203.0.113.20', 443, {
    hostnames: [`www.${DOMAIN}`],
    product: 'http_server',
    vendor: 'apache',
    version: '2.4.58',
    cpe: [cpe('apache', 'http_server', '2.4.58')],
  }),
  host('203.0.113.21', 80, {
    hostnames: [`api.${DOMAIN}`],
    product: 'nginx',
    vendor: 'f5',
    version: '1.18.0',
    cpe: [cpe('f5', 'nginx', '1.18.0')],
  }),
  host('203.0.113.22', 22, { hostnames: [`ssh.${DOMAIN}`] }),
];
/** Observed later: a new service whose software the KEV catalogue lists. */
const LATER_KEV_HOST = host('203.0.113.23', 443, {
  hostnames: [`legacy.${DOMAIN}`],
  product: 'http_server',
  vendor: 'apache',
  version: '2.4.49',
  cpe: [cpe('apache', 'http_server', '2.4.49')],
});

let organizationId: string;
let owner: Actor;
let administrator: Actor;
let analyst: Actor;
let external: Actor;
let scopeId: string;

const exposure = (scope: string, rest = '') => org(organizationId, `/clients/${scope}/exposure${rest}`);
const ok = async (...args: Parameters<OrganizationHarness['ok']>): Promise<Json> =>
  (await h.ok(...args)) as Json;
/** Sessions idle out after two hours: after moving the clock by a day, everyone signs in again. */
async function signInAgain(): Promise<void> {
  owner = await h.login(owner);
  administrator = await h.login(administrator);
  analyst = await h.login(analyst);
  external = await h.login(external);
}

async function createScope(name: string): Promise<string> {
  const scope = await ok(owner, 'POST', org(organizationId, '/exposure/scopes'), {
    name,
    domain: DOMAIN,
    timezone: 'Europe/Paris',
    monitoring: false,
  });
  await refreshCompleted(scope.id as string);
  return scope.id as string;
}

async function refreshCompleted(scope: string, runs = 1): Promise<void> {
  await waitUntil(async () => {
    const found = await exposureRuns(service.context.projections).find({
      scopeId: scope,
      status: 'completed',
    });
    return found.length >= runs;
  }, 30_000);
  await waitUntil(async () => {
    const response = await h.request(owner, 'GET', exposure(scope));
    return response.statusCode === 200 && json(response.body).latest_refresh?.status === 'completed';
  }, 10_000);
}

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        mails.push({
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const port = (smtp.server.address() as { port: number }).port;
  dns = await TestDnsServer.start();
  service = await startTestService('pglite', {
    clock,
    env: {
      DNS_SERVERS: dns.address,
      DNS_TIMEOUT_MS: '2000',
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: String(port),
      SMTP_FROM: 'Exposure <exposure@reports.test>',
    },
  });
  await waitUntil(() => service.context.projections.allLive());
  await service.context.observations.write('hosts', HOSTS);
  await service.context.catalogue.importParsed([
    parseCatalogueText('sample:nvd', JSON.stringify(SAMPLE_NVD)),
    parseCatalogueText('sample:kev', JSON.stringify(SAMPLE_KEV)),
  ]);
  h = new OrganizationHarness(service, dns);
  const created = await h.trialOrganization();
  organizationId = created.organizationId;
  owner = created.owner;
  await service.app.get(CommandBus).execute(new EnableExposition(organizationId, 'capacity', operator()));
  scopeId = await createScope('Reports scope');
  administrator = await h.member(organizationId, owner, 'administrator');
  analyst = await h.member(organizationId, owner, 'analyst', { spaces: [scopeId] });
  external = await h.member(organizationId, owner, 'external_client', { spaces: [scopeId] });
}, 120_000);

afterAll(async () => {
  await service?.dispose();
  await dns?.close();
  await new Promise<void>((resolve) => (smtp ? smtp.close(() => resolve()) : resolve()));
});

describe('frozen reports', () => {
  let report: Json;
  let document: string;

  it('POST freezes the current view (201): organization, scope, author, timezone, reference time, observations, history', async () => {
    const before = mails.length;
    const response = await h.request(analyst, 'POST', exposure(scopeId, '/reports'));
    expect(response.statusCode).toBe(201);
    report = json(response.body);
    expect(report).toMatchObject({
      sequence: 1,
      scope_id: scopeId,
      author_id: analyst.accountId,
      timezone: 'Europe/Paris',
      reference_time: clock.now().toISOString(),
      observations: 3,
      history_partial: false,
    });
    expect(report.content_sha256).toMatch(/^[0-9a-f]{64}$/);
    const fetched = await h.request(analyst, 'GET', exposure(scopeId, `/reports/${report.id as string}`));
    expect(fetched.statusCode).toBe(200);
    document = fetched.body;
    expect(createHash('sha256').update(fetched.rawPayload).digest('hex')).toBe(report.content_sha256);
    const frozen = json(document);
    expect(frozen.organization.name).toMatch(/^Acme /);
    expect(frozen.scope.name).toBe('Reports scope');
    expect(frozen.author).toEqual({ account_id: analyst.accountId, email: analyst.email });
    expect(frozen.timezone).toBe('Europe/Paris');
    expect(frozen.reference_time).toBe(report.reference_time);
    expect(frozen.observations).toHaveLength(3);
    expect(frozen.history.length).toBeGreaterThan(0);
    expect(frozen.history.length).toBeLessThanOrEqual(500);
    expect(frozen.history_partial).toBe(false);
    // No search, scan, guest link or email: nothing but the report's own event was appended.
    expect(mails.length).toBe(before);
    const list = await ok(analyst, 'GET', exposure(scopeId, '/reports'));
    expect(list.reports.map((r: Json) => r.id)).toEqual([report.id]);
    const history = await ok(owner, 'GET', exposure(scopeId, '/history'));
    expect(history.entries[0]).toMatchObject({ type: 'ReportFrozen', actor: `account:${analyst.accountId}` });
    expect(JSON.stringify(frozen)).not.toMatch(/scan(ned)?\b|check (was )?executed/i);
  });

  it('a later decision changes the inventory, never the saved document; as_of the reference time does not see it', async () => {
    clock.advance(60_000);
    const inventory = await ok(owner, 'GET', exposure(scopeId));
    const subject = (inventory.subjects as Json[])[0]!;
    await ok(owner, 'PATCH', exposure(scopeId, `/subjects/${subject.id as string}`), {
      version: subject.version,
      decision: 'investigating',
    });
    const again = await h.request(owner, 'GET', exposure(scopeId, `/reports/${report.id as string}`));
    expect(again.body).toBe(document);

    const live = await ok(owner, 'GET', exposure(scopeId));
    expect((live.subjects as Json[]).find((s) => s.id === subject.id)!.decision?.state).toBe('investigating');
    for (const asOf of [report.reference_time as string, report.reference_position as string]) {
      const past = await ok(owner, 'GET', exposure(scopeId, `?as_of=${encodeURIComponent(asOf)}`));
      expect(past.as_of.requested).toBe(asOf);
      const then = (past.subjects as Json[]).find((s) => s.id === subject.id)!;
      expect(then.decision?.state ?? 'new').toBe('new');
      expect(past.totals).toEqual({ ...json(document).inventory.totals });
      const pastHistory = await ok(
        owner,
        'GET',
        exposure(scopeId, `/history?as_of=${encodeURIComponent(asOf)}`),
      );
      expect(pastHistory.entries.map((e: Json) => e.type)).not.toContain('DecisionRecorded');
    }
    const liveHistory = await ok(owner, 'GET', exposure(scopeId, '/history'));
    expect(liveHistory.entries[0].type).toBe('DecisionRecorded');
    const bad = await h.request(owner, 'GET', exposure(scopeId, '?as_of=yesterday'));
    expect(bad.statusCode).toBe(422);
  });

  it('reads follow current permissions: a removed assignment, an external client, another scope', async () => {
    const url = exposure(scopeId, `/reports/${report.id as string}`);
    const refused = await h.request(external, 'GET', url);
    expect(refused.statusCode).toBe(403);
    const elsewhere = await createScope('Other scope');
    expect(
      (await h.request(owner, 'GET', exposure(elsewhere, `/reports/${report.id as string}`))).statusCode,
    ).toBe(404);
    await ok(owner, 'DELETE', org(organizationId, `/members/${analyst.accountId}/spaces/${scopeId}`));
    expect((await h.request(analyst, 'GET', url)).statusCode).toBe(404);
    expect((await h.request(analyst, 'GET', exposure(scopeId, '/reports'))).statusCode).toBe(404);
    expect((await h.request(analyst, 'POST', exposure(scopeId, '/reports'))).statusCode).toBe(404);
    await ok(owner, 'PUT', org(organizationId, `/members/${analyst.accountId}/spaces/${scopeId}`));
    expect((await h.request(analyst, 'GET', url)).statusCode).toBe(200);
  });

  it('a freeze the read models do not catch up with in time is refused (503 not_ready, Retry-After) and keeps nothing', async () => {
    const projections = service.context.projections;
    const listed = ((await ok(owner, 'GET', exposure(scopeId, '/reports'))).reports as Json[]).length;
    const files = readdirSync(join(service.dataDir, 'reports')).length;
    await projections.stopProjection('exposure-reports');
    try {
      // A decision the stopped projection does not apply: the log's head moves past its checkpoint.
      const inventory = await ok(owner, 'GET', exposure(scopeId));
      const subject = (inventory.subjects as Json[]).find((s) => (s.decision?.state ?? 'new') === 'new')!;
      await ok(owner, 'PATCH', exposure(scopeId, `/subjects/${subject.id as string}`), {
        version: subject.version,
        decision: 'investigating',
      });
      // Waits PROJECTION_WAIT_MS (5 s) for the stopped projection, then refuses instead of freezing a stale view.
      const refused = await h.request(owner, 'POST', exposure(scopeId, '/reports'));
      // Nothing frozen: no document file (before, the stale view was frozen and saved, then answered not_ready).
      expect(readdirSync(join(service.dataDir, 'reports')).length).toBe(files);
      expect(refused.statusCode).toBe(503);
      expect(json(refused.body).code).toBe('not_ready');
      expect(refused.headers['retry-after']).toBe('2');
    } finally {
      await projections.startProjection('exposure-reports');
    }
    const frozen = await h.request(owner, 'POST', exposure(scopeId, '/reports'));
    expect(frozen.statusCode).toBe(201);
    expect(((await ok(owner, 'GET', exposure(scopeId, '/reports'))).reports as Json[]).length).toBe(
      listed + 1,
    );
  });

  it(`at most ${MAX_REPORTS_PER_SCOPE} per scope: the next one is 409 report_limit_reached and stores nothing`, async () => {
    const scope = await createScope('Many reports');
    for (let i = 0; i < MAX_REPORTS_PER_SCOPE; i++) {
      const response = await h.request(administrator, 'POST', exposure(scope, '/reports'));
      expect(response.statusCode).toBe(201);
    }
    const files = readdirSync(join(service.dataDir, 'reports')).length;
    const refused = await h.request(administrator, 'POST', exposure(scope, '/reports'));
    expect(refused.statusCode).toBe(409);
    expect(json(refused.body).code).toBe('report_limit_reached');
    expect(readdirSync(join(service.dataDir, 'reports')).length).toBe(files);
    const list = await ok(administrator, 'GET', exposure(scope, '/reports'));
    expect(list.reports).toHaveLength(MAX_REPORTS_PER_SCOPE);
    expect(list.reports[0].sequence).toBe(MAX_REPORTS_PER_SCOPE);
  }, 90_000);
});

describe('notification preference', () => {
  const url = () => exposure(scopeId, '/notifications');

  it('starts disabled at version 0; owner or administrator only', async () => {
    expect(await ok(owner, 'GET', url())).toMatchObject({
      enabled: false,
      recipients: [],
      language: 'en',
      version: 0,
    });
    for (const actor of [analyst, external]) {
      expect((await h.request(actor, 'GET', url())).statusCode).toBe(403);
      const put = await h.request(actor, 'PUT', url(), {
        enabled: false,
        recipients: [],
        language: 'en',
        version: 0,
      });
      expect(put.statusCode).toBe(403);
    }
  });

  it('limits: 0 to 20 member ids, one at least when enabled, fr or en, eligible members only; stale version 409', async () => {
    const cases: Array<[Json, string]> = [
      [{ enabled: true, recipients: [] }, 'recipients'],
      [
        {
          recipients: Array.from(
            { length: 21 },
            (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
          ),
        },
        'recipients',
      ],
      [{ recipients: [external.accountId] }, 'recipients'],
      [{ recipients: ['not-a-member'] }, 'recipients'],
      [{ recipients: [owner.accountId, owner.accountId] }, 'recipients'],
      [{ language: 'de' }, 'language'],
      [{ enabled: 'yes' }, 'enabled'],
    ];
    for (const [body, field] of cases) {
      const response = await h.request(owner, 'PUT', url(), {
        enabled: false,
        recipients: [],
        language: 'en',
        version: 0,
        ...body,
      });
      expect(response.statusCode).toBe(422);
      expect(json(response.body).details.fields[0].field).toBe(field);
    }
    const saved = await ok(administrator, 'PUT', url(), {
      enabled: true,
      recipients: [owner.accountId, analyst.accountId],
      language: 'fr',
      version: 0,
    });
    expect(saved).toMatchObject({ enabled: true, language: 'fr', version: 1 });
    const stale = await h.request(owner, 'PUT', url(), {
      enabled: false,
      recipients: [],
      language: 'en',
      version: 0,
    });
    expect(stale.statusCode).toBe(409);
    expect(json(stale.body).code).toBe('version_conflict');
    // Saving sends nothing and confirms nothing.
    expect(mails).toHaveLength(0);
  });
});

describe('monitoring: watch runs, baseline, email at delivery', () => {
  const monitor = () => service.app.get(ExposureMonitor);
  const deliveries = () =>
    service.context.projections.collection('exposure-monitoring', 'exposure_deliveries').find({ scopeId });

  it('PUT monitoring activates watches (owner or administrator); the first complete watch run is the baseline', async () => {
    const refused = await h.request(analyst, 'PUT', exposure(scopeId, '/monitoring'), { enabled: true });
    expect(refused.statusCode).toBe(403);
    const activated = await ok(owner, 'PUT', exposure(scopeId, '/monitoring'), { enabled: true });
    expect(activated.monitoring).toMatchObject({ enabled: true, baseline: null, interval_hours: 24 });
    await monitor().sweepOnce();
    await refreshCompleted(scopeId, 2);
    await waitUntil(async () => {
      await monitor().sweepOnce();
      const history = await ok(owner, 'GET', exposure(scopeId, '/history'));
      return history.entries.some((e: Json) => e.type === 'WatchBaselineEstablished');
    }, 10_000);
    const again = await ok(owner, 'PUT', exposure(scopeId, '/monitoring'), { enabled: true });
    expect(again.monitoring.baseline).toMatchObject({ services: 3 });
    expect(mails).toHaveLength(0);
  });

  it('a later watch that observes a new KEV service emails eligible recipients only, in their language', async () => {
    await service.context.observations.write('hosts', [LATER_KEV_HOST]);
    clock.advance(24 * 60 * 60 * 1000 + 1000);
    await signInAgain();
    await monitor().sweepOnce();
    await refreshCompleted(scopeId, 3);
    // The analyst loses the scope before the email goes: rechecked at delivery, skipped.
    await ok(owner, 'DELETE', org(organizationId, `/members/${analyst.accountId}/spaces/${scopeId}`));
    await waitUntil(async () => {
      await monitor().sweepOnce();
      const found = await deliveries();
      return found.length === 1 && found[0]!.status === 'finished';
    }, 15_000);
    const [delivery] = await deliveries();
    expect(delivery!.recipients).toEqual({
      [owner.accountId]: 'sent',
      [analyst.accountId]: 'skipped:not_eligible',
    });
    expect(mails).toHaveLength(1);
    expect(mails[0]!.to).toEqual([owner.email]);
    expect(mails[0]!.raw).toMatch(/legacy\.reports-exposure\.example|203\.0\.113\.23/);
    expect(mails[0]!.raw).toMatch(/KEV/);
    expect(mails[0]!.raw).not.toMatch(/scan|check (was )?(executed|run)\b(?! was)/i);
    const history = await ok(owner, 'GET', exposure(scopeId, '/history'));
    const compared = (history.entries as Json[]).find((e) => e.type === 'WatchRunCompared')!;
    expect(compared.details).toMatchObject({ newServices: 1, newKev: 1, notObserved: 0 });
    expect(compared.summary).toMatch(/not evidence that they disappeared/);
    const inventory = await ok(owner, 'GET', exposure(scopeId));
    expect(inventory.monitoring).toMatchObject({
      enabled: true,
      latest_watch: { outcome: 'compared', newly_observed_services: 1, new_kev_associations: 1 },
    });
    await ok(owner, 'PUT', org(organizationId, `/members/${analyst.accountId}/spaces/${scopeId}`));
  });

  it('archiving the scope cancels a pending email; nothing is sent', async () => {
    const pending = host('203.0.113.24', 8443, { hostnames: [`new.${DOMAIN}`] });
    await service.context.observations.write('hosts', [pending]);
    clock.advance(24 * 60 * 60 * 1000 + 1000);
    await signInAgain();
    await monitor().scheduleWatches();
    await refreshCompleted(scopeId, 4);
    await monitor().recordWatches();
    await waitUntil(async () => (await deliveries()).length === 2);
    const scope = await ok(owner, 'GET', org(organizationId, `/clients/${scopeId}`));
    await ok(
      owner,
      'PATCH',
      org(organizationId, `/clients/${scopeId}`),
      { state: 'archived' },
      {
        'if-match': scope.version as string,
      },
    );
    await waitUntil(async () => {
      await monitor().deliver();
      return (await deliveries()).some((d) => d.status === 'cancelled');
    });
    expect(mails).toHaveLength(1);
  });
});

describe('erasure', () => {
  it('erasing a deleted scope deletes its report documents and its report, watch and notification streams', async () => {
    await signInAgain();
    const doomed = await createScope('To erase with reports');
    const frozen = await ok(owner, 'POST', exposure(doomed, '/reports'));
    const reportsDir = join(service.dataDir, 'reports');
    const key = readdirSync(reportsDir).find((file) => file.includes(frozen.id as string));
    expect(key).toBeDefined();
    const scope = await ok(owner, 'GET', org(organizationId, `/clients/${doomed}`));
    await ok(
      owner,
      'DELETE',
      org(organizationId, `/clients/${doomed}`),
      { name: 'To erase with reports' },
      {
        'if-match': scope.version as string,
      },
    );
    clock.advance(8 * 24 * 60 * 60 * 1000);
    await service.app.get(ScopeErasureSweeper).sweepOnce();
    expect(readdirSync(reportsDir).some((file) => file.includes(frozen.id as string))).toBe(false);
    expect(await service.context.storage.eventStore.readStream(`report-${frozen.id as string}`)).toEqual([]);
    expect(
      await service.context.projections
        .collection('exposure-reports', 'exposure_reports')
        .find({ scopeId: doomed }),
    ).toEqual([]);
    await signInAgain();
  });
});

describe('projections: replaying the whole log into empty read models gives the same answers', () => {
  it.each(['exposure-reports', 'exposure-monitoring', 'exposure-history', 'exposure-inventory'])(
    'projections verify says equal: %s',
    async (name) => {
      await waitForProjections(service, [name]);
      const verdict = await service.context.maintenance.verify(service.context.projections.definition(name));
      expect(verdict.differences).toEqual([]);
      expect(verdict.equal).toBe(true);
    },
  );

  it('rebuilt read models answer byte-identical inventory, history and report lists', async () => {
    await signInAgain();
    const urls = [exposure(scopeId), exposure(scopeId, '/history'), exposure(scopeId, '/reports')];
    const read = async () => Promise.all(urls.map(async (url) => (await h.request(owner, 'GET', url)).body));
    const before = await read();
    for (const name of ['exposure-scopes', 'exposure-inventory', 'exposure-history', 'exposure-reports']) {
      await service.context.maintenance.rebuild(service.context.projections.definition(name));
    }
    expect(await read()).toEqual(before);
  });
});

describe('report size', () => {
  it('a view over 16 MiB is refused with 409 report_too_large; no report and no document are kept', async () => {
    const big = 'big-exposure.example';
    const label = (c: string) => c.repeat(60);
    // A subject keeps 10 hostnames: 5,600 services of about 3.1 KB each pass 16 MiB (5,000 stay under it).
    const records = Array.from({ length: 5600 }, (_, i) =>
      host(`10.${Math.floor(i / 250)}.${i % 250}.1`, 443, {
        hostnames: Array.from(
          { length: 10 },
          (_, j) => `${label('a')}${j}.${label('b')}.${label('c')}.h${i}.${big}`,
        ),
      }),
    );
    await service.context.observations.write('hosts', records);
    const scope = await ok(owner, 'POST', org(organizationId, '/exposure/scopes'), {
      name: 'Too big to freeze',
      domain: big,
      timezone: 'UTC',
      monitoring: false,
    });
    await refreshCompleted(scope.id as string);
    const files = readdirSync(join(service.dataDir, 'reports')).length;
    const refused = await h.request(owner, 'POST', exposure(scope.id as string, '/reports'));
    expect(refused.statusCode).toBe(409);
    expect(json(refused.body)).toMatchObject({ code: 'report_too_large' });
    expect(json(refused.body).details.limit_bytes).toBe(16 * 1024 * 1024);
    expect(readdirSync(join(service.dataDir, 'reports')).length).toBe(files);
    expect((await ok(owner, 'GET', exposure(scope.id as string, '/reports'))).reports).toEqual([]);
  }, 120_000);
});

describe('projections: one-event batches', () => {
  it('every projection takes each event of this log on its own and builds the documents it holds live', async () => {
    await expectOneEventBatchesToRebuildLiveDocuments(service);
  });
});
