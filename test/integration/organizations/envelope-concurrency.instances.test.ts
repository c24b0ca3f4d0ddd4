/**
 * Rule 8 on the PostgreSQL server: a space's credit envelope and the shared organization balance hold when two
 * service instances, each with its own connection pool, reserve against the same organization at once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CreditLedger } from '../../../src/credits/commands/credit-ledger.js';
import { ledgerDecider, ledgerStreamId } from '../../../src/credits/domain/ledger.js';
import { loadConfig } from '../../../src/platform/config/app-config.js';
import { commandEnvelope } from '../../../src/platform/event-sourcing/command-metadata.js';
import { serviceComposition } from '../../../src/composition/service-composition.js';
import { ServiceContext } from '../../../src/platform/service-context.js';
import { spaceDecider, spaceStreamId } from '../../../src/organizations/domain/space.js';
import { startTestService, type TestService } from '../../support/service.js';
import { createActiveOrganization } from '../../support/sso-organizations.js';

describe('rule 8: envelopes and the shared balance across two service instances on one PostgreSQL server', () => {
  let service: TestService;
  let second: ServiceContext;
  let dataDir: string;

  beforeAll(async () => {
    service = await startTestService('postgres');
    dataDir = mkdtempSync(join(tmpdir(), 'second-'));
    second = await ServiceContext.open(
      loadConfig({ DATABASE_URL: service.database!.url!, DATA_DIR: dataDir, LOG_LEVEL: 'silent' }),
      { ...serviceComposition, pollIntervalMs: 20 },
    );
  });

  afterAll(async () => {
    await second?.close();
    await service?.dispose();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('rule 8: 100 concurrent reservations split over two instances never exceed the scope envelope nor the shared balance', async () => {
    const context = service.context;
    const organizationId = await createActiveOrganization(context, randomUUID());
    const payer = `organization:${organizationId}`;
    const envelope = () =>
      commandEnvelope({ actor: 'operator:test', payer: payer as `organization:${string}` });
    await context.repository.handle(
      ledgerStreamId(payer),
      ledgerDecider,
      { type: 'TransferIn', transferId: randomUUID(), credits: 60, from: 'trial' },
      await new CreditLedger(context).ledgerContext(payer),
      envelope(),
    );
    const space = async (creditLimit: number): Promise<string> => {
      const spaceId = randomUUID();
      await context.repository.handle(
        spaceStreamId(spaceId),
        spaceDecider,
        {
          type: 'CreateSpace',
          spaceId,
          organizationId,
          kind: 'client',
          name: `Client ${spaceId.slice(0, 8)}`,
          creditLimit,
          monitoring: false,
        },
        { now: context.clock.now() },
        envelope(),
      );
      return spaceId;
    };
    const ledgers = [new CreditLedger(context), new CreditLedger(second)];
    /** 100 reservations of 1 credit, alternating instances; each reads the space's envelope from its own store. */
    const burst = async (spaceId: string) => {
      const outcomes = await Promise.allSettled(
        Array.from({ length: 100 }, async (_, i) => {
          const instance = i % 2 === 0 ? context : second;
          const { state } = await instance.repository.load(spaceStreamId(spaceId), spaceDecider);
          return ledgers[i % 2]!.reserve(
            {
              payer,
              amount: 1,
              category: 'host',
              channel: 'session',
              envelopes: [{ key: `space:${spaceId}`, limit: state.creditLimit! }],
            },
            envelope(),
          );
        }),
      );
      const refusals = outcomes
        .filter((o): o is PromiseRejectedResult => o.status === 'rejected')
        .map((o) => (o.reason as { code?: string }).code ?? String(o.reason));
      return { held: outcomes.length - refusals.length, refusals };
    };

    // The envelope (37) is the tighter limit: exactly 37 are held, the rest refused by the envelope.
    const envelopeBound = await burst(await space(37));
    expect(envelopeBound.held).toBe(37);
    expect(envelopeBound.refusals).toEqual(Array(63).fill('envelope_exhausted'));
    expect(await ledgers[1]!.available(payer)).toBe(23);

    // Then the shared balance (23 left) is tighter than another space's envelope (500).
    const balanceBound = await burst(await space(500));
    expect(balanceBound.held).toBe(23);
    expect(balanceBound.refusals).toEqual(Array(77).fill('insufficient_credits'));
    expect(await ledgers[0]!.available(payer)).toBe(0);
  });
});
