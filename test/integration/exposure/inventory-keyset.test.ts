/**
 * Deep inventory pages by keyset (issue 16, ADR 84): whatever boundaries the service remembers, every page it
 * answers is exactly the page plain OFFSET gives over the same read model, for the default order and for
 * group_by=host, with and without evaluation filters, on PGlite and the PostgreSQL server. After a refresh that
 * inserts services in the middle of the order, remembered boundaries of the old revision are never used.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { SAMPLE_KEV, SAMPLE_NVD } from '../../../src/catalogue/sample/sample-catalogue.js';
import { parseCatalogueText } from '../../../src/catalogue/import/parse-catalogue-files.js';
import type { ScopeAccess } from '../../../src/exposure/commands/exposure-access.js';
import { declarationKey } from '../../../src/exposure/domain/coverage.js';
import { refreshDecider, refreshRunStreamId, runKeyHash } from '../../../src/exposure/domain/refresh-run.js';
import {
  ExposureQueries,
  INVENTORY_PAGE,
  inventoryPageBoundaries,
  KEYSET_FROM_OFFSET,
} from '../../../src/exposure/queries/exposure-queries.js';
import { RefreshWorkerPool } from '../../../src/exposure/refresh-worker-pool.js';
import { spaceDecider, spaceStreamId } from '../../../src/organizations/domain/space.js';
import { commandEnvelope } from '../../../src/platform/event-sourcing/command-metadata.js';
import type { Filter, ReadDocument } from '../../../src/platform/read-store/read-store.port.js';
import {
  EXPOSURE_HOSTS,
  EXPOSURE_SUBJECTS,
  type ExposureSubjectDocument,
} from '../../../projections/exposure-inventory.projection.js';
import { cpe, host } from '../../support/host-observations.js';
import { SQL_KINDS, type TestDatabaseKind } from '../../support/databases.js';
import { startTestService, waitForProjections, type TestService } from '../../support/service.js';
import { waitUntil } from '../../support/storage.js';

const DOMAIN = 'keyset-inventory.example';
/** Two services on each host: more subjects and more hosts than the offset where seeking starts. */
const HOSTS = 1_300;
const SOFTWARE = [
  { vendor: 'apache', product: 'http_server', version: '2.4.49' },
  { vendor: 'apache', product: 'http_server', version: '2.4.58' },
  { vendor: 'f5', product: 'nginx', version: '1.18.0' },
  {},
] as const;

function observation(hostIndex: number, port: number) {
  const ip = `10.9.${hostIndex >> 8}.${hostIndex & 255}`;
  const software = SOFTWARE[(hostIndex + port) % SOFTWARE.length]!;
  const identity =
    'vendor' in software
      ? { ...software, cpe: [cpe(software.vendor, software.product, software.version)] }
      : {};
  return host(ip, port, { hostnames: [`h${hostIndex}.${DOMAIN}`], ...identity });
}

const FILTERS = [undefined, 'result:kev', 'result:matched', 'coverage:no_identifiers', 'kind:service'];

describe.each(SQL_KINDS)('inventory keyset paging on %s', (kind: TestDatabaseKind) => {
  let service: TestService;
  let queries: ExposureQueries;
  let access: ScopeAccess;
  const scopeId = randomUUID();
  const organizationId = randomUUID();
  const envelope = commandEnvelope({
    actor: 'operator:test',
    payer: `organization:${organizationId}`,
    scope: scopeId,
  });

  async function refresh(key: string): Promise<void> {
    const runId = runKeyHash(key);
    await service.context.repository.handle(
      refreshRunStreamId(scopeId, runId),
      refreshDecider,
      {
        type: 'RequestRefresh',
        runId,
        scopeId,
        organizationId,
        trigger: 'manual',
        input: declarationKey(DOMAIN, []),
        billing: 'capacity',
        reservation: null,
      },
      { now: new Date() },
      envelope,
    );
    service.app.get(RefreshWorkerPool).nudge();
    await waitUntil(async () => {
      const scope = await queries.scopeDocument(scopeId).catch(() => null);
      if (scope?.latestRefresh?.status === 'failed') throw new Error(scope.latestRefresh.error ?? 'failed');
      return scope?.lastCompletedRefresh?.runId === runId;
    }, 120_000);
    await waitForProjections(service, ['exposure-inventory', 'exposure-scopes']);
  }

  /** What plain OFFSET answers over the stored read model (the query before keyset paging, ADR 84). */
  async function offsetPage(offset: number, filter: string | undefined): Promise<string[]> {
    const subjects = service.context.projections.collection<ExposureSubjectDocument>(
      'exposure-inventory',
      EXPOSURE_SUBJECTS,
    );
    const where: Record<string, unknown> = { scopeId };
    if (filter) {
      const [field, value] = filter.split(':') as [string, string];
      if (field === 'result') Object.assign(where, { result: value, coverage: { $ne: 'shared_edge' } });
      else where[field] = value;
    }
    const rows = await subjects.find(where as Filter, {
      sort: [['order', 1]],
      offset,
      limit: INVENTORY_PAGE,
    });
    return rows.map((row) => row.subjectId);
  }

  async function offsetHostPage(offset: number): Promise<string[]> {
    const hosts = service.context.projections.collection<ReadDocument & { host: string }>(
      'exposure-inventory',
      EXPOSURE_HOSTS,
    );
    const rows = await hosts.find({ scopeId }, { sort: [['host', 1]], offset, limit: INVENTORY_PAGE });
    return rows.map((row) => row.host);
  }

  async function servicePage(offset: number, filter: string | undefined): Promise<string[]> {
    const answer = await queries.inventory(access, {
      offset: String(offset),
      ...(filter ? { filter } : {}),
    });
    return (answer.subjects as Array<{ id: string }>).map((subject) => subject.id);
  }

  async function serviceHostPage(offset: number): Promise<string[]> {
    const answer = await queries.inventory(access, { offset: String(offset), group_by: 'host' });
    return (answer.hosts as Array<{ host: string }>).map((entry) => entry.host);
  }

  beforeAll(async () => {
    service = await startTestService(kind);
    queries = new ExposureQueries({
      projections: service.context.projections,
      eventStore: service.context.storage.eventStore,
      clock: service.context.clock,
    });
    await service.context.catalogue.importParsed([
      parseCatalogueText('sample:nvd', JSON.stringify(SAMPLE_NVD)),
      parseCatalogueText('sample:kev', JSON.stringify(SAMPLE_KEV)),
    ]);
    const records = [];
    for (let index = 0; index < HOSTS; index++) {
      // Even hosts only at first: the second refresh puts the odd ones between them in the order.
      if (index % 2 === 0) records.push(observation(index, 443), observation(index, 8443));
    }
    await service.context.observations.write('hosts', records);
    await service.context.repository.handle(
      spaceStreamId(scopeId),
      spaceDecider,
      {
        type: 'CreateExposureScope',
        spaceId: scopeId,
        organizationId,
        name: 'Keyset scope',
        domain: DOMAIN,
        timezone: 'UTC',
        addresses: [],
        monitoring: false,
        creditLimit: null,
        billing: 'capacity',
      },
      { now: new Date() },
      envelope,
    );
    const space = await service.context.repository.load(spaceStreamId(scopeId), spaceDecider);
    access = { scopeId, space: space.state } as ScopeAccess;
    await refresh('keyset-refresh-key-0001');
  });

  afterAll(async () => {
    await service?.dispose();
  });

  /** Offsets that create boundaries first, then land on, between and beyond them. */
  const walk = (total: number) => [
    KEYSET_FROM_OFFSET,
    KEYSET_FROM_OFFSET + INVENTORY_PAGE,
    KEYSET_FROM_OFFSET + 50,
    KEYSET_FROM_OFFSET,
    KEYSET_FROM_OFFSET + 2 * INVENTORY_PAGE + 7,
    total - 30,
    total - 30,
    total,
    total + 500,
    0,
    KEYSET_FROM_OFFSET - 1,
  ];

  it('every page equals plain OFFSET, for each filter and for hosts, and deep pages seek', async () => {
    const boundaries = inventoryPageBoundaries(service.context.projections);
    const seeksBefore = boundaries.seeks;
    const total = (await queries.inventory(access, {})).totals.subjects;
    expect(total).toBe(HOSTS);
    for (const filter of FILTERS) {
      for (const offset of walk(total)) {
        expect(await servicePage(offset, filter)).toEqual(await offsetPage(offset, filter));
      }
    }
    const hosts = (await queries.inventory(access, {})).totals.hosts;
    expect(hosts).toBe(HOSTS / 2);
    for (const offset of [0, 100, 600, 649, 650, 700]) {
      expect(await serviceHostPage(offset)).toEqual(await offsetHostPage(offset));
    }
    // The walk came back to offsets whose boundaries it had remembered: those pages were sought.
    expect(boundaries.seeks).toBeGreaterThan(seeksBefore);
  });

  it('the pages before one visited first are sought backwards from it, and equal plain OFFSET', async () => {
    const boundaries = inventoryPageBoundaries(service.context.projections);
    const total = (await queries.inventory(access, {})).totals.subjects;
    for (const filter of [undefined, 'kind:service']) {
      boundaries.clear();
      // The deepest pages first (as a reader who jumps to the last page and goes back), then a page between.
      const offsets = [total - INVENTORY_PAGE, total - 2 * INVENTORY_PAGE, total - 3 * INVENTORY_PAGE + 40];
      expect(offsets.every((offset) => offset >= KEYSET_FROM_OFFSET)).toBe(true);
      const seeksBefore = boundaries.seeks;
      for (const offset of offsets) {
        const page = await servicePage(offset, filter);
        expect(page).toHaveLength(INVENTORY_PAGE);
        expect(page).toEqual(await offsetPage(offset, filter));
      }
      // Only the first was read by plain OFFSET: nothing was remembered before it or at its offset.
      expect(boundaries.seeks - seeksBefore).toBe(offsets.length - 1);
    }
  });

  it('pages at random offsets and filters equal plain OFFSET (property)', async () => {
    const total = (await queries.inventory(access, {})).totals.subjects;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: total + INVENTORY_PAGE }),
        fc.constantFrom(...FILTERS),
        async (offset, filter) => {
          expect(await servicePage(offset, filter)).toEqual(await offsetPage(offset, filter));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('after a refresh inserts services between remembered boundaries, pages still equal plain OFFSET', async () => {
    const before = await servicePage(KEYSET_FROM_OFFSET + INVENTORY_PAGE, undefined);
    const records = [];
    for (let index = 1; index < HOSTS; index += 2) records.push(observation(index, 443));
    await service.context.observations.write('hosts', records);
    await refresh('keyset-refresh-key-0002');
    const total = (await queries.inventory(access, {})).totals.subjects;
    expect(total).toBe(HOSTS + HOSTS / 2);
    const after = await servicePage(KEYSET_FROM_OFFSET + INVENTORY_PAGE, undefined);
    // The order moved under the old boundaries (otherwise this test would prove nothing).
    expect(after).not.toEqual(before);
    for (const filter of FILTERS) {
      for (const offset of walk(total)) {
        expect(await servicePage(offset, filter)).toEqual(await offsetPage(offset, filter));
      }
    }
    for (const offset of [600, 700, 950, 1000, 1100]) {
      expect(await serviceHostPage(offset)).toEqual(await offsetHostPage(offset));
    }
  });
});
