import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommandBus } from '@nestjs/cqrs';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import pg from 'pg';
import {
  AUDIT_ENTRIES,
  auditEntryId,
  auditIndexProjection,
  auditKey,
  type AuditEntryDocument,
} from '../projections/audit-index.projection.js';
import { RegisterAccount } from '../src/accounts/commands/account.commands.js';
import { billingCycle, planById } from '../src/accounts/domain/plans.js';
import { AppModule } from '../src/app.module.js';
import { AuditLog, auditFilter, type AuditSearch } from '../src/audit/queries/audit-log.js';
import { serviceComposition } from '../src/composition/service-composition.js';
import { ledgerDecider, ledgerStreamId, type LedgerCommand } from '../src/credits/domain/ledger.js';
import { CHANNELS, USAGE_CATEGORIES, type LedgerState } from '../src/credits/domain/ledger-state.js';
import { organizationDecider, organizationStreamId } from '../src/organizations/domain/organization.js';
import { spaceDecider, spaceStreamId } from '../src/organizations/domain/space.js';
import { SESSION_COOKIE } from '../src/platform/auth/cookies.js';
import { SessionStore } from '../src/platform/auth/sessions.js';
import { loadConfig } from '../src/platform/config/app-config.js';
import { commandEnvelope } from '../src/platform/event-sourcing/command-metadata.js';
import { eventIdFor } from '../src/platform/event-store/event-id.js';
import type { EventMetadata, NewEvent } from '../src/platform/event-store/event-store.port.js';
import { createHttpApp } from '../src/platform/http/create-http-app.js';
import type {
  ProjectionDefinition,
  ProjectionView,
} from '../src/platform/projections/projection-definition.js';
import { physicalCollectionName } from '../src/platform/projections/projection-definition.js';
import { ProjectionMaintenance } from '../src/platform/projections/projection-maintenance.js';
import { buildFindStatement } from '../src/platform/read-store/postgres/filter-sql.js';
import type { Filter, FindOptions } from '../src/platform/read-store/read-store.port.js';
import { readStreamsUpTo, recordedBy } from '../src/platform/projections/as-of-replay.js';
import { ServiceContext } from '../src/platform/service-context.js';
import { searchesStreamId } from '../src/search/domain/search-record.js';
import { formatMeasurements, type Measurement } from './bench-support.js';

/**
 * The auditor's reading tools over a large log (issue 15 part 5): a log of `events` events over many accounts,
 * organizations and scopes, written the way the service writes it (accounts registered by the real command
 * handler; organizations, spaces and ledgers decided by their own deciders; searches as the search handler
 * records them), on PGlite and on the server. Every figure has its baseline from the same run and database.
 */

const SAMPLES = 15;
const LEGS = 4;
const LEG_EVENTS = 2000;
const PAGE = 50;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

/** Median milliseconds of `samples` runs of each, interleaved so drift of a shared machine falls on both. */
async function paired(
  service: () => Promise<unknown>,
  baseline: () => Promise<unknown>,
  samples = SAMPLES,
): Promise<{ service: number; baseline: number }> {
  await service();
  await baseline();
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < samples; i++) {
    if (i % 2 === 0) {
      a.push(await timed(service));
      b.push(await timed(baseline));
    } else {
      b.push(await timed(baseline));
      a.push(await timed(service));
    }
  }
  return { service: median(a), baseline: median(b) };
}

/** A projection that reads every event and writes nothing: the floor of any rebuild over the same log. */
const readOnlyProjection: ProjectionDefinition = {
  name: 'bench-read-only',
  version: 1,
  collections: { bench_nothing: {} },
  handles: ['*'],
  apply: () => undefined,
};

/**
 * The audit index as it was before ADR 78, rebuilt beside today's in the same run: the same handler writing into
 * collections of its own that carry the three btree indexes version 1 declared.
 */
const V1_ENTRIES = 'audit_entries_v1';
const V1_STREAMS = 'audit_streams_v1';
const renameV1 = (collection: string) =>
  collection === AUDIT_ENTRIES ? V1_ENTRIES : collection === 'audit_streams' ? V1_STREAMS : collection;
const auditIndexBeforeAdr78: ProjectionDefinition = {
  name: 'bench-audit-index-v1',
  version: 1,
  collections: {
    [V1_ENTRIES]: {
      indexes: [
        {
          name: 'by_key_position',
          fields: [
            ['key', 1],
            ['position', 1],
          ],
        },
        {
          name: 'by_key_type_position',
          fields: [
            ['key', 1],
            ['type', 1],
            ['position', 1],
          ],
        },
        { name: 'by_stream', fields: [['stream', 1]] },
      ],
    },
    [V1_STREAMS]: {},
  },
  handles: ['*'],
  reads: (event) =>
    (auditIndexProjection.reads?.(event) ?? []).map((ref) => ({
      ...ref,
      collection: renameV1(ref.collection),
    })),
  apply(event, view) {
    const renamed: ProjectionView = {
      get: (collection, id) => view.get(renameV1(collection), id),
      put: (collection, document) => view.put(renameV1(collection), document),
      patch: (collection, id, fields) => view.patch(renameV1(collection), id, fields),
      delete: (collection, id) => view.delete(renameV1(collection), id),
      deleteWhere: (collection, filter) => view.deleteWhere(renameV1(collection), filter),
    };
    auditIndexProjection.apply(event, renamed);
  },
};

/** The page query before ADR 78: containment on the key, sorted by position. */
function filterBeforeAdr78(search: AuditSearch): [Filter, FindOptions] {
  const position: Record<string, string> = {};
  if (search.after) position.$gt = search.after;
  const filter: Filter = {
    key: search.key,
    ...(search.type ? { type: search.type } : {}),
    ...(Object.keys(position).length > 0 ? { position } : {}),
  };
  return [filter, { sort: [['position', 1]], limit: search.limit + 1 }];
}

/** A seeded generator, so both targets get the same log. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

interface Organization {
  readonly id: string;
  readonly owner: string;
  readonly members: string[];
  readonly spaces: string[];
}

interface Target {
  readonly name: string;
  readonly context: ServiceContext;
  readonly app: NestFastifyApplication;
  readonly sql: ((text: string, params?: readonly unknown[]) => Promise<unknown[]>) | null;
  dispose(): Promise<void>;
}

async function openTarget(kind: 'pglite' | 'postgres'): Promise<Target | null> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-audit-'));
  let databaseUrl: string | undefined;
  const server =
    process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const name = `bench_audit_${Date.now().toString(36)}`;
  if (kind === 'postgres') {
    try {
      const admin = new pg.Client({ connectionString: server });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      await admin.end();
      const url = new URL(server);
      url.pathname = `/${name}`;
      databaseUrl = url.toString();
    } catch (error) {
      process.stderr.write(`  PostgreSQL server not reachable (${String(error)}): server figures skipped\n`);
      rmSync(dataDir, { recursive: true, force: true });
      return null;
    }
  }
  const context = await ServiceContext.open(
    loadConfig({
      DATA_DIR: dataDir,
      // The PGlite leg stays PGlite (the default would start a PostgreSQL server in DATA_DIR).
      EMBEDDED_ENGINE: 'pglite',
      LOG_LEVEL: 'silent',
      SEED_DEMO: 'false',
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    }),
    { ...serviceComposition, serveSocket: false },
  );
  const app = await createHttpApp(context, AppModule.forContext(context), { logger: false });
  const sqlDatabase = context.storage.sql;
  return {
    name: kind === 'postgres' ? 'PostgreSQL 15 server' : 'PGlite (embedded)',
    context,
    app,
    sql: sqlDatabase
      ? async (text, params = []) => (await sqlDatabase.query(text, [...params])).rows as unknown[]
      : null,
    dispose: async () => {
      await app.close();
      await context.close();
      rmSync(dataDir, { recursive: true, force: true });
      if (databaseUrl) {
        const cleanup = new pg.Client({ connectionString: server });
        await cleanup.connect();
        await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await cleanup.end();
      }
    },
  };
}

/**
 * Writes the log: accounts, organizations with members and spaces, then search traffic (reservation, search
 * record, settlement) until the log holds `events` events. `freezeAt`: the accounts of `frozen` stop searching
 * once the log holds this many events (their streams stop growing while the log keeps growing).
 */
class LogWriter {
  readonly accounts: string[] = [];
  readonly organizations: Organization[] = [];
  readonly frozen: string[] = [];
  private readonly spare: string[] = [];
  private readonly ledgers = new Map<string, { state: LedgerState; version: number | null }>();
  private readonly versions = new Map<string, number>();
  private readonly next = random(15);
  written = 0;

  constructor(private readonly target: Target) {}

  private get context(): ServiceContext {
    return this.target.context;
  }

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  async skeleton(accounts: number, organizations: number): Promise<void> {
    const bus = this.target.app.get(CommandBus);
    for (let i = 0; i < accounts; i++) {
      const { accountId } = await bus.execute(
        new RegisterAccount(
          `audit-bench-${i}@example.com`,
          'free',
          undefined,
          commandEnvelope({ actor: 'operator:bench', payer: 'system', surface: 'cli' }),
        ),
      );
      this.accounts.push(accountId as string);
    }
    const owners = this.accounts.slice(0, organizations);
    const members = this.accounts.slice(organizations, organizations * 6);
    this.spare.push(...this.accounts.slice(organizations * 6, organizations * 8));
    this.frozen.push(...this.accounts.slice(organizations * 8, organizations * 8 + 5));
    for (const [o, owner] of owners.entries()) {
      const organization: Organization = { id: randomUUID(), owner, members: [], spaces: [] };
      const handle = (command: Parameters<typeof organizationDecider.decide>[0], actor: string | null) =>
        this.context.repository.handle(
          organizationStreamId(organization.id),
          organizationDecider,
          command,
          { now: new Date(), actorAccountId: actor },
          this.envelope(actor ? `account:${actor}` : 'operator:bench', `organization:${organization.id}`),
        );
      const transferId = randomUUID();
      await handle(
        {
          type: 'CreateOrganization',
          organizationId: organization.id,
          name: `Bench ${o}`,
          ownerAccountId: owner,
          start: 'subscription',
          domain: null,
          verificationToken: randomUUID(),
          generalSpaceId: randomUUID(),
          transfer: { transferId, credits: 0 },
        },
        owner,
      );
      await handle({ type: 'CompleteAccountTransition', transferId }, null);
      await handle({ type: 'CompleteCheckout', plan: 'teams' }, null);
      for (const member of members.slice(o * 5, o * 5 + 5)) await this.addMember(organization, member);
      for (let s = 0; s < 3; s++) {
        const spaceId = randomUUID();
        await this.context.repository.handle(
          spaceStreamId(spaceId),
          spaceDecider,
          {
            type: 'CreateSpace',
            spaceId,
            organizationId: organization.id,
            kind: 'client',
            name: `Client ${o}-${s}`,
            creditLimit: null,
            monitoring: false,
          },
          { now: new Date() },
          this.envelope(`account:${owner}`, `organization:${organization.id}`, spaceId),
        );
        organization.spaces.push(spaceId);
      }
      this.organizations.push(organization);
    }
  }

  private envelope(actor: string, payer: string, scope: string | null = null) {
    const personal = actor.startsWith('account:');
    return commandEnvelope({
      actor: actor as `account:${string}`,
      payer: payer as `account:${string}`,
      scope,
      surface: personal ? 'session' : 'cli',
      ...(personal ? { credential: `session:${randomUUID()}` as `session:${string}` } : {}),
      requestId: randomUUID(),
    });
  }

  async addMember(organization: Organization, accountId: string): Promise<void> {
    const invitationId = randomUUID();
    const email = `audit-bench-${this.accounts.indexOf(accountId)}@example.com`;
    const stream = organizationStreamId(organization.id);
    const payer = `organization:${organization.id}`;
    await this.context.repository.handle(
      stream,
      organizationDecider,
      { type: 'InviteMember', invitationId, email, role: 'analyst', spaces: [], portion: null },
      { now: new Date(), actorAccountId: organization.owner },
      this.envelope(`account:${organization.owner}`, payer),
    );
    await this.context.repository.handle(
      stream,
      organizationDecider,
      { type: 'AcceptInvitation', invitationId, accountId, email },
      { now: new Date(), actorAccountId: accountId },
      this.envelope(`account:${accountId}`, payer),
    );
    organization.members.push(accountId);
  }

  /** Search traffic until the log holds `until` events. */
  async traffic(until: number, options: { readonly frozenSearch: boolean }): Promise<void> {
    let round = 0;
    while (this.written < until) {
      round++;
      if (round % 150 === 0 && this.spare.length > 0) {
        await this.addMember(this.pick(this.organizations), this.spare.pop()!);
        this.written += 2;
      }
      const personal = this.next() < 0.6;
      if (personal) {
        // One heavy personal user (a tenth of personal searches), the frozen accounts until frozen, the rest.
        const pool = options.frozenSearch && round % 10 === 0 ? this.frozen : this.accounts;
        const account = round % 10 === 5 ? this.accounts[7]! : this.pick(pool);
        if (!options.frozenSearch && this.frozen.includes(account)) continue;
        await this.searches(`account:${account}`, () => ({ actor: account, scope: null }));
      } else {
        // One large customer (half the organization traffic) among many small ones.
        const organization = this.next() < 0.5 ? this.organizations[0]! : this.pick(this.organizations);
        await this.searches(`organization:${organization.id}`, () => ({
          actor: this.pick([organization.owner, ...organization.members]),
          scope: this.pick(organization.spaces),
        }));
      }
    }
  }

  private async ledger(payer: string) {
    let ledger = this.ledgers.get(payer);
    if (!ledger) {
      const loaded = await this.context.repository.load(ledgerStreamId(payer), ledgerDecider);
      ledger = { state: loaded.state, version: loaded.version };
      this.ledgers.set(payer, ledger);
    }
    return ledger;
  }

  /** Eight searches of one payer: reservation, search record and settlement each, as the search path writes them. */
  private async searches(payer: string, who: () => { actor: string; scope: string | null }): Promise<void> {
    const ledger = await this.ledger(payer);
    const now = new Date();
    const context = {
      now,
      cycle: billingCycle(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString(), now),
      allowance: payer.startsWith('account:') ? planById('free').monthlyCredits : 0,
    };
    const ledgerEvents: NewEvent[] = [];
    const searchEvents: NewEvent[] = [];
    const decide = (command: LedgerCommand, metadata: EventMetadata, commandId: string) => {
      const events = ledgerDecider.decide(command, ledger.state, context);
      events.forEach((event, index) => {
        ledger.state = ledgerDecider.evolve(ledger.state, event);
        ledgerEvents.push({
          id: eventIdFor(commandId, index),
          type: event.type,
          schemaVersion: 1,
          data: event.data,
          metadata,
        });
      });
    };
    if (ledger.state.purchasedBalance < 1000) {
      const commandId = randomUUID();
      decide(
        { type: 'PurchaseCredits', purchaseId: commandId, credits: 1_000_000 },
        { ...this.envelope('operator:bench', payer).metadata, reason: 'bench top-up' },
        commandId,
      );
    }
    for (let i = 0; i < 8; i++) {
      const { actor, scope } = who();
      const metadata: EventMetadata = {
        ...this.envelope(`account:${actor}`, payer, scope).metadata,
        credential: `api_key:${actor.slice(0, 8)}`,
        surface: 'api',
      };
      const reservationId = randomUUID();
      const amount = 1 + Math.floor(this.next() * 5);
      const category = USAGE_CATEGORIES[Math.floor(this.next() * 4)]!;
      decide(
        {
          type: 'ReserveCredits',
          reservationId,
          amount,
          category,
          channel: this.pick(CHANNELS),
          ttlMs: 60_000,
        },
        metadata,
        `reserve:${reservationId}`,
      );
      searchEvents.push({
        id: eventIdFor(`search:${reservationId}`, 0),
        type: 'SearchPerformed',
        schemaVersion: 1,
        data: {
          kind: 'unified',
          query: `hostname:"h${Math.floor(this.next() * 1e6)}.example.com"`,
          timeFrame: 'all',
          broad: false,
          datasets: ['hosts', 'dns'],
          outcomes: [
            { dataset: 'hosts', status: 'ok', rows: 3, total: 3, lowerBound: false },
            { dataset: 'dns', status: 'ok', rows: 1, total: 1, lowerBound: false },
          ],
          creditsCharged: amount,
          at: now.toISOString(),
        },
        metadata,
      });
      decide(
        { type: 'SettleReservation', reservationId, charged: amount },
        metadata,
        `settle:${reservationId}`,
      );
    }
    const store = this.context.storage.eventStore;
    const ledgerStream = ledgerStreamId(payer);
    const appended = await store.append(ledgerStream, ledgerEvents, {
      expectedVersion: ledger.version ?? 'no_stream',
    });
    ledger.version = appended.nextExpectedVersion as number;
    const searchStream = searchesStreamId(payer);
    const version = this.versions.get(searchStream);
    const recorded = await store.append(searchStream, searchEvents, {
      expectedVersion: version ?? 'no_stream',
    });
    this.versions.set(searchStream, recorded.nextExpectedVersion as number);
    this.written += ledgerEvents.length + searchEvents.length;
  }
}

export async function benchAudit(events: number): Promise<Measurement[]> {
  const measurements: Measurement[] = [];
  // BENCH_AUDIT_TARGETS=postgres (or pglite) runs one target only.
  const kinds = (process.env.BENCH_AUDIT_TARGETS ?? 'pglite,postgres').split(',');
  for (const kind of (['pglite', 'postgres'] as const).filter((k) => kinds.includes(k))) {
    const target = await openTarget(kind);
    if (!target) continue;
    try {
      const figures = await benchTarget(target, events);
      // Each target's figures as soon as they exist: a long run stopped later keeps them.
      process.stderr.write(`\n${formatMeasurements(figures)}\n`);
      measurements.push(...figures);
    } finally {
      await target.dispose();
    }
  }
  return measurements;
}

async function benchTarget(target: Target, events: number): Promise<Measurement[]> {
  const results: Measurement[] = [];
  const { context } = target;
  const store = context.storage.eventStore;
  const runner = context.projections;
  const log = (line: string) => process.stderr.write(`  [${target.name}] ${line}\n`);
  const caughtUp = async (names: readonly string[] = runner.projectionNames) => {
    const head = await store.headPosition();
    if (head && !(await runner.waitFor(names, head, 1_800_000))) throw new Error('projections stuck');
  };
  await runner.start();

  const writer = new LogWriter(target);
  const started = performance.now();
  await writer.skeleton(600, 40);
  writer.written = (await store.headPosition()) ? await countEvents(target) : 0;
  // The traffic is written with the projections stopped, then they catch up (as a service does after a deploy):
  // on a loaded 2-CPU machine, PGlite following 17 projections live in the writer's process took over half an hour.
  await runner.stop();
  await writer.traffic(Math.floor(events / 2), { frozenSearch: true });
  await runner.start();
  await caughtUp();
  const halfHead = (await store.headPosition())!;
  log(`${writer.written.toLocaleString('en-US')} events written, projections caught up`);

  // as_of of the frozen accounts with half the log written; measured again once the log has doubled.
  const sessions = target.app.get(SessionStore);
  const cookieOf = new Map<string, string>();
  const cookie = async (accountId: string) => {
    let value = cookieOf.get(accountId);
    if (!value) {
      const { sessionId } = await sessions.create(accountId);
      value = `${SESSION_COOKIE}=${sessionId}`;
      cookieOf.set(accountId, value);
    }
    return value;
  };
  const get = async (accountId: string, url: string) => {
    const response = await target.app.inject({
      method: 'GET',
      url,
      headers: { cookie: await cookie(accountId) },
    });
    if (response.statusCode !== 200)
      throw new Error(`${url} answered ${response.statusCode}: ${response.body}`);
    return JSON.parse(response.body) as Record<string, unknown>;
  };
  const frozen = writer.frozen[0]!;
  const frozenAsOf = () => get(frozen, `/api/v2/auth/credits?as_of=${halfHead}`);
  const frozenBefore = await paired(frozenAsOf, () => get(frozen, '/api/v2/auth/credits'));

  await runner.stop();
  await writer.traffic(events, { frozenSearch: false });
  await runner.start();
  await caughtUp();
  const buildSeconds = (performance.now() - started) / 1000;
  const total = await countEvents(target);
  log(
    `${total.toLocaleString('en-US')} events in the log (${buildSeconds.toFixed(0)} s, projections caught up)`,
  );
  results.push({
    target: target.name,
    name: `log written and projected (${total.toLocaleString('en-US')} events, ${writer.accounts.length} accounts, ${writer.organizations.length} organizations, ${writer.organizations.length * 3} spaces)`,
    value: Math.round(total / buildSeconds),
    unit: 'events/s',
  });

  const frozenAfter = await paired(frozenAsOf, () => get(frozen, '/api/v2/auth/credits'));
  results.push({
    target: target.name,
    name: `as_of credits of an account whose streams stopped growing, log ${total.toLocaleString('en-US')} events`,
    value: round(frozenAfter.service),
    unit: 'ms',
    baseline: round(frozenBefore.service),
    baselineName: `the same read with the log at ${Math.floor(events / 2).toLocaleString('en-US')} events`,
    ratio: frozenAfter.service / frozenBefore.service,
  });

  // Live catch-up: the same runner over fresh traffic, with the audit index following or stopped.
  const others = runner.projectionNames.filter((name) => name !== auditIndexProjection.name);
  const leg = async (withAudit: boolean): Promise<number> => {
    for (const name of runner.projectionNames) await runner.stopProjection(name);
    const before = writer.written;
    await writer.traffic(writer.written + LEG_EVENTS, { frozenSearch: false });
    const appended = writer.written - before;
    const names = withAudit ? runner.projectionNames : others;
    const ms = await timed(async () => {
      for (const name of names) await runner.startProjection(name);
      await caughtUp(names);
    });
    if (!withAudit) {
      await runner.startProjection(auditIndexProjection.name);
      await caughtUp();
    }
    return ms / appended;
  };
  const on: number[] = [];
  const off: number[] = [];
  for (let round = 0; round < LEGS; round++) {
    if (round % 2 === 0) {
      on.push(await leg(true));
      off.push(await leg(false));
    } else {
      off.push(await leg(false));
      on.push(await leg(true));
    }
  }
  results.push({
    target: target.name,
    name: `live catch-up of every projection with the audit index, per event (${LEGS} × ${LEG_EVENTS.toLocaleString('en-US')} events)`,
    value: round(median(on), 3),
    unit: 'ms',
    baseline: round(median(off), 3),
    baselineName: 'the same catch-up with the audit index stopped',
    ratio: median(off) / median(on),
  });

  // Rebuild: the audit index beside a projection that reads every event and writes nothing.
  const maintenance = new ProjectionMaintenance(runner.engine, { dropGraceMs: 0 });
  const floor = await maintenance.rebuild(readOnlyProjection);
  const audit = await maintenance.rebuild(auditIndexProjection);
  const entries = Number(
    (
      (await target.sql?.(`SELECT count(*)::bigint AS n FROM ${await entriesTable(target)}`)) as
        Array<{ n: string }> | undefined
    )?.[0]?.n ?? 0,
  );
  results.push({
    target: target.name,
    name: `audit-index rebuild (${audit.events.toLocaleString('en-US')} events, ${entries.toLocaleString('en-US')} entries)`,
    value: audit.eventsPerSecond,
    unit: 'events/s',
    baseline: floor.eventsPerSecond,
    baselineName: 'the same replay through a projection that writes nothing',
    ratio: audit.eventsPerSecond / floor.eventsPerSecond,
  });
  const v1 = await maintenance.rebuild(auditIndexBeforeAdr78);
  results.push({
    target: target.name,
    name: `audit-index rebuild as before ADR 78 (three declared btree indexes)`,
    value: v1.eventsPerSecond,
    unit: 'events/s',
    baseline: floor.eventsPerSecond,
    baselineName: 'the same replay through a projection that writes nothing',
    ratio: v1.eventsPerSecond / floor.eventsPerSecond,
  });
  await caughtUp();

  // events search and the audit route, beside hand-written SQL over the index table.
  const auditLog = new AuditLog({
    projections: runner,
    eventStore: store,
    credentials: context.credentials,
  });
  const busiest = writer.organizations[0]!;
  const table = await entriesTable(target);
  const v1Generation = await context.storage.readStore.getMeta<{ live: number }>(
    `projection:${auditIndexBeforeAdr78.name}`,
  );
  const v1Entries = () =>
    context.storage.readStore.collection<AuditEntryDocument>(
      physicalCollectionName(V1_ENTRIES, v1Generation!.live),
    );
  const account = writer.accounts[7]!;
  const subjects: Array<[string, string]> = [
    ['account', auditKey('account', account)],
    ['organization', auditKey('organization', busiest.id)],
    ['scope', auditKey('scope', busiest.spaces[0]!)],
    ['actor', auditKey('actor', `account:${busiest.owner}`)],
  ];
  for (const [subject, key] of subjects) {
    const count = await auditLog.page({ key, limit: 500 });
    let deep: string | null = null;
    // A deep page: the cursor of the page after about 80% of the subject's entries.
    const all = (await target.sql?.(
      `SELECT doc->>'position' AS p FROM ${table} WHERE doc->>'key' = $1 ORDER BY doc->>'position'`,
      [key],
    )) as Array<{ p: string }> | undefined;
    if (all && all.length > PAGE) deep = all[Math.floor(all.length * 0.8)]!.p;
    for (const [label, after] of [
      ['first page', undefined],
      ['deep page (cursor)', deep ?? undefined],
    ] as const) {
      if (label !== 'first page' && !after) continue;
      const figures = await paired(
        () => auditLog.page({ key, limit: PAGE, ...(after ? { after } : {}) }),
        () => handWritten(target, table, key, after),
      );
      const before = await paired(
        async () => {
          const [filter, options] = filterBeforeAdr78({ key, limit: PAGE, ...(after ? { after } : {}) });
          return v1Entries().find(filter, options);
        },
        () => handWritten(target, table, key, after),
      );
      results.push({
        target: target.name,
        name: `events search --${subject}, ${label} of ${PAGE} (${(all?.length ?? count.entries.length).toLocaleString('en-US')} entries)`,
        value: round(figures.service),
        unit: 'ms',
        baseline: round(figures.baseline),
        baselineName: 'hand-written SQL over the index table',
        ratio: figures.baseline / figures.service,
      });
      results.push({
        target: target.name,
        name: `  the same page as before ADR 78 (sorted by position, declared indexes)`,
        value: round(before.service),
        unit: 'ms',
        baseline: round(before.baseline),
        baselineName: 'hand-written SQL over the index table',
        ratio: before.baseline / before.service,
      });
    }
  }
  const typed = await paired(
    () => auditLog.page({ key: subjects[1]![1], type: 'MemberAdded', limit: PAGE }),
    () => handWritten(target, table, subjects[1]![1], undefined, 'MemberAdded'),
  );
  results.push({
    target: target.name,
    name: `events search --organization --type MemberAdded, first page`,
    value: round(typed.service),
    unit: 'ms',
    baseline: round(typed.baseline),
    baselineName: 'hand-written SQL over the index table',
    ratio: typed.baseline / typed.service,
  });

  const route = await paired(
    () => get(busiest.owner, `/api/v2/organizations/${busiest.id}/audit?limit=${PAGE}`),
    () => handWritten(target, table, auditKey('organization', busiest.id)),
  );
  results.push({
    target: target.name,
    name: `GET /organizations/{id}/audit first page of ${PAGE} over HTTP`,
    value: round(route.service),
    unit: 'ms',
    baseline: round(route.baseline),
    baselineName: 'hand-written SQL over the index table',
    ratio: route.baseline / route.service,
  });

  // as_of at an early, middle and late position, beside the live read of the same route.
  const head = (await store.headPosition())!;
  const positions = (await target.sql?.(
    `SELECT position FROM (SELECT ${positionExpression()} AS position, row_number() OVER (ORDER BY tx_id, seq) AS n,
       count(*) OVER () AS total FROM es_events) p WHERE n IN (GREATEST(1, total / 10), total / 2, total - 10)
     ORDER BY n`,
  )) as Array<{ position: string }> | undefined;
  const points: Array<[string, string]> = positions
    ? [
        ['early', positions[0]!.position],
        ['middle', positions[1]!.position],
        ['late', positions[2]!.position],
      ]
    : [['late', head]];
  const reads: Array<[string, string, string]> = [
    ['credits', account, '/api/v2/auth/credits'],
    ['credits/usage', account, '/api/v2/auth/credits/usage'],
    ['organization members', busiest.owner, `/api/v2/organizations/${busiest.id}/members`],
    ['organization credits', busiest.owner, `/api/v2/organizations/${busiest.id}/credits`],
  ];
  for (const [what, accountId, url] of reads) {
    for (const [when, position] of points) {
      const figures = await paired(
        () => get(accountId, `${url}?as_of=${position}`),
        () => get(accountId, url),
      );
      results.push({
        target: target.name,
        name: `as_of ${what} at an ${when} position`,
        value: round(figures.service),
        unit: 'ms',
        baseline: round(figures.baseline),
        baselineName: 'the live read of the same route',
        ratio: figures.baseline / figures.service,
      });
    }
  }

  // The stream reads of an as_of at the early position: a prefix (ADR 78) against the whole streams as before.
  if (positions) {
    const streams = [`account-${account}`, ledgerStreamId(`account:${account}`)];
    const point = { position: points[0]![1] };
    const streamReads = await paired(
      () => readStreamsUpTo(store, streams, point),
      async () => {
        const events = [];
        for (const stream of streams)
          events.push(...(await store.readStream(stream)).filter((event) => recordedBy(event, point)));
        return events;
      },
    );
    const length = (await store.readStream(streams[1]!)).length;
    results.push({
      target: target.name,
      name: `as_of stream reads at the early position (a ${length.toLocaleString('en-US')}-event ledger), prefix read`,
      value: round(streamReads.service),
      unit: 'ms',
      baseline: round(streamReads.baseline),
      baselineName: 'whole streams read and filtered, as before ADR 78',
      ratio: streamReads.baseline / streamReads.service,
    });
  }

  if (target.sql)
    await explainShapes(
      target,
      table,
      subjects,
      busiest,
      physicalCollectionName(V1_ENTRIES, v1Generation!.live),
    );
  await runner.stop();
  return results;
}

function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

async function countEvents(target: Target): Promise<number> {
  const rows = (await target.sql!(`SELECT count(*)::bigint AS n FROM es_events`)) as Array<{ n: string }>;
  return Number(rows[0]!.n);
}

/** The global position text of an es_events row, as the store prints it. */
function positionExpression(): string {
  return `lpad(tx_id::text, 20, '0') || '-' || lpad(seq::text, 20, '0')`;
}

async function entriesTable(target: Target): Promise<string> {
  const generation = await target.context.storage.readStore.getMeta<{ live: number }>(
    `projection:${auditIndexProjection.name}`,
  );
  return `rs_${physicalCollectionName(AUDIT_ENTRIES, generation!.live)}`;
}

/** The floor: one subject's page by the primary key range, in the order the index keeps it. */
async function handWritten(
  target: Target,
  table: string,
  key: string,
  after?: string,
  type?: string,
): Promise<unknown[]> {
  return target.sql!(
    `SELECT doc FROM ${table} WHERE id > $1 AND id < $2 ${type ? `AND doc->>'type' = $4` : ''}
      ORDER BY id LIMIT $3`,
    [auditEntryId(key, after ?? ''), auditEntryId(key, '~'), PAGE + 1, ...(type ? [type] : [])],
  );
}

/** EXPLAIN of every query shape the audit reads send, printed for docs/benchmarks.md. */
async function explainShapes(
  target: Target,
  table: string,
  subjects: ReadonlyArray<[string, string]>,
  organization: Organization,
  v1Collection: string,
): Promise<void> {
  const collection = table.slice('rs_'.length);
  const key = subjects[1]![1];
  const middle = (
    (await target.sql!(
      `SELECT doc->>'position' AS p, doc->>'recordedAt' AS t FROM ${table} WHERE doc @> $1::jsonb ORDER BY id LIMIT 1 OFFSET 2000`,
      [JSON.stringify({ key })],
    )) as Array<{ p: string; t: string }>
  )[0];
  const shapes: Array<[string, Filter, FindOptions]> = [];
  const filters = auditFilter;
  for (const [subject, subjectKey] of subjects)
    shapes.push([subject, ...filters({ key: subjectKey, limit: PAGE })]);
  shapes.push(['type filter', ...filters({ key, type: 'MemberAdded', limit: PAGE })]);
  shapes.push(['actor filter', ...filters({ key, actor: `account:${organization.owner}`, limit: PAGE })]);
  if (middle) {
    shapes.push(['time range', ...filters({ key, since: { time: middle.t }, limit: PAGE })]);
    shapes.push(['position range', ...filters({ key, since: { position: middle.p }, limit: PAGE })]);
    shapes.push(['cursor', ...filters({ key, after: middle.p, limit: PAGE })]);
  }
  const plans: Array<[string, string, Filter, FindOptions]> = shapes.map(([shape, filter, options]) => [
    shape,
    collection,
    filter,
    options,
  ]);
  plans.push(['organization before ADR 78', v1Collection, ...filterBeforeAdr78({ key, limit: PAGE })]);
  if (middle)
    plans.push([
      'cursor before ADR 78',
      v1Collection,
      ...filterBeforeAdr78({ key, after: middle.p, limit: PAGE }),
    ]);
  for (const [shape, physical, filter, options] of plans) {
    const statement = buildFindStatement(physical, filter, options);
    const plan = (await target.sql!(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) ${statement.text}`, [
      ...statement.params,
    ])) as Array<Record<string, string>>;
    const lines = plan.map((row) => Object.values(row)[0]);
    process.stderr.write(`\n  [${target.name}] EXPLAIN ${shape}:\n    ${lines.join('\n    ')}\n`);
  }
}
