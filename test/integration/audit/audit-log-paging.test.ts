/**
 * The audit index's pages are ranges of its primary key (auditEntryId, ADR 78): on real storage (PGlite and the
 * server) they give each subject's entries, only its entries, in log order, whatever the page size, cursor,
 * position bounds or filters, even when another subject's key is this one's followed by `@` and a position (which
 * would fall inside this key's range if keys were not escaped in ids).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  AUDIT_ENTRIES,
  auditIndexProjection,
  auditKeys,
  type AuditEntryDocument,
} from '../../../projections/audit-index.projection.js';
import { auditFilter, type AuditSearch } from '../../../src/audit/queries/audit-log.js';
import type { RecordedEvent } from '../../../src/platform/event-store/event-store.port.js';
import { ProjectionRunner } from '../../../src/platform/projections/projection-runner.js';
import { SQL_KINDS } from '../../support/databases.js';
import {
  createTestStorage,
  newEvents,
  testMetadata,
  uniqueId,
  type TestStorage,
} from '../../support/storage.js';

describe.each(SQL_KINDS)('audit index pages on %s', (kind) => {
  let storage: TestStorage;
  let runner: ProjectionRunner;
  let log: RecordedEvent[];
  const operator = `operator:${uniqueId('auditor')}`;
  // A key that starts with the other's followed by `@`: its ids fall inside the other's id range.
  const lookalike = `${operator}@00000000000000000001-x`;
  const account = uniqueId('acct');

  beforeAll(async () => {
    storage = await createTestStorage(kind);
    runner = new ProjectionRunner(storage.eventStore, storage.readStore, [auditIndexProjection]);
    await runner.start();
    for (let i = 0; i < 40; i++) {
      const actor = i % 3 === 0 ? lookalike : operator;
      const stream = `account-${account}`;
      await storage.eventStore.append(
        stream,
        newEvents(
          uniqueId('cmd'),
          [{ type: i % 4 === 0 ? 'PlanChanged' : 'CreditsPurchased', data: { i } }],
          {
            ...testMetadata({ actor, payer: `account:${account}` }),
            reason: `step ${i}`,
          },
        ),
        { expectedVersion: i === 0 ? 'no_stream' : i - 1 },
      );
    }
    const head = await storage.eventStore.headPosition();
    expect(await runner.waitFor([auditIndexProjection.name], head!, 30_000)).toBe(true);
    log = await storage.eventStore.readAll({ after: null, limit: 1000 });
  });

  afterAll(async () => {
    await runner?.stop();
    await storage?.dispose();
  });

  const entries = () => runner.collection<AuditEntryDocument>(auditIndexProjection.name, AUDIT_ENTRIES);

  /** Every page of a search by cursor, as `events search` and the audit route walk it. */
  async function walk(search: Omit<AuditSearch, 'after'>): Promise<string[]> {
    const positions: string[] = [];
    let after: string | undefined;
    for (;;) {
      const [filter, options] = auditFilter({ ...search, ...(after ? { after } : {}) });
      const found = await entries().find(filter, options);
      expect(found.length).toBeLessThanOrEqual(search.limit + 1);
      const page = found.slice(0, search.limit);
      positions.push(...page.map((entry) => entry.position));
      if (found.length <= search.limit) return positions;
      after = page.at(-1)!.position;
    }
  }

  /** What the log says a subject's entries are, independently of the index. */
  const expected = (key: string, keep: (event: RecordedEvent) => boolean = () => true) =>
    log.filter((event) => auditKeys(event, null).includes(key) && keep(event)).map((event) => event.position);

  it("pages one subject's entries in log order, never another subject's", async () => {
    const operatorKey = `actor:${operator}`;
    const lookalikeKey = `actor:${lookalike}`;
    expect(expected(operatorKey)).toHaveLength(26);
    expect(expected(lookalikeKey)).toHaveLength(14);
    for (const limit of [1, 5, 26, 500]) {
      expect(await walk({ key: operatorKey, limit })).toEqual(expected(operatorKey));
      expect(await walk({ key: lookalikeKey, limit })).toEqual(expected(lookalikeKey));
    }
    expect(await walk({ key: `account:${account}`, limit: 7 })).toEqual(expected(`account:${account}`));
  });

  it('applies position bounds, type and actor filters inside the range', async () => {
    const key = `account:${account}`;
    const all = expected(key);
    const [since, until] = [all[5]!, all[30]!];
    expect(await walk({ key, since: { position: since }, until: { position: until }, limit: 4 })).toEqual(
      all.slice(5, 31),
    );
    expect(await walk({ key, type: 'PlanChanged', limit: 3 })).toEqual(
      expected(key, (event) => event.type === 'PlanChanged'),
    );
    expect(await walk({ key, actor: lookalike, limit: 3 })).toEqual(
      expected(key, (event) => event.metadata.actor === lookalike),
    );
    const middle = log.find((event) => event.position === all[20])!;
    expect(await walk({ key, since: { time: middle.recordedAt }, limit: 6 })).toEqual(
      expected(key, (event) => event.recordedAt >= middle.recordedAt),
    );
  });
});
