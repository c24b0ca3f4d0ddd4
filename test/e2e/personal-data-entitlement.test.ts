import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Controller, Get, Module } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import {
  IssueApiKey,
  PurchaseCredits,
  RegisterAccount,
} from '../../src/accounts/commands/account.commands.js';
import type { PlanId } from '../../src/accounts/domain/plans.js';
import { Access } from '../../src/platform/auth/access.js';
import { ApiJson } from '../../src/platform/http/openapi/responses.js';
import { boolean, object } from '../../src/platform/http/openapi/schema.js';
import { commandEnvelope } from '../../src/platform/event-sourcing/command-metadata.js';
import { startTestService, type TestService } from '../support/service.js';

/** A free personal data operation (like the fields vocabulary or an enrichment): it charges nothing. */
@Controller('api/v2/common/data/probe-free')
class FreePersonalDataProbe {
  @Get()
  @Access({ surface: 'personal_api', permission: 'data.search', personalData: true })
  @ApiJson(200, object({ ok: boolean() }))
  probe(): { ok: true } {
    return { ok: true };
  }
}

@Module({ controllers: [FreePersonalDataProbe] })
class ProbeModule {}

const operator = () => commandEnvelope({ actor: 'operator:test', payer: 'system' });

describe('Authentication 3: every personal data request needs a paid subscription or purchased credits', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService('pglite', { modules: [ProbeModule] });
  });
  afterAll(async () => {
    await service.dispose();
  });

  async function keyFor(plan: PlanId, purchased = 0): Promise<{ accountId: string; key: string }> {
    const bus = service.app.get(CommandBus);
    const { accountId } = await bus.execute(
      new RegisterAccount(
        `${plan}-${Math.random().toString(36).slice(2)}@example.com`,
        plan,
        undefined,
        operator(),
      ),
    );
    if (purchased) await bus.execute(new PurchaseCredits(accountId, purchased, operator()));
    const { key } = await bus.execute(new IssueApiKey(accountId, 'probe', operator()));
    return { accountId, key };
  }

  const call = (key: string) =>
    service.app.inject({
      method: 'GET',
      url: '/api/v2/common/data/probe-free',
      headers: { 'x-api-key': key },
    });

  it('a Free account holding only its monthly allocation is refused with 402 entitlement_required, free operations included', async () => {
    const { accountId, key } = await keyFor('free');
    const refused = await call(key);
    expect(refused.statusCode).toBe(402);
    expect(refused.json()).toMatchObject({ code: 'entitlement_required' });
    // Checking the balance is not a data request.
    expect(
      (
        await service.app.inject({
          method: 'GET',
          url: '/api/v2/common/credits',
          headers: { 'x-api-key': key },
        })
      ).statusCode,
    ).toBe(200);

    await service.app.get(CommandBus).execute(new PurchaseCredits(accountId, 10, operator()));
    const allowed = await call(key);
    expect(allowed.statusCode).toBe(200);
    expect(allowed.json()).toEqual({ ok: true });
  });

  it('current paid subscriptions (Professional, Enterprise) pass without purchased credits', async () => {
    for (const plan of ['professional', 'enterprise'] as const) {
      const { key } = await keyFor(plan);
      expect((await call(key)).statusCode).toBe(200);
    }
  });

  it('Authentication 3: a legacy Basic account without purchased credits is refused like Free, and the 402 states the rule', async () => {
    const { accountId, key } = await keyFor('basic');
    const refused = await call(key);
    expect(refused.statusCode).toBe(402);
    const body = refused.json();
    expect(body).toMatchObject({
      code: 'entitlement_required',
      details: { plan: 'basic', purchased_credits: 0, qualifying_plans: ['professional', 'enterprise'] },
    });
    // The message is the rule itself, then why this account does not meet it.
    expect(body.message).toMatch(
      /current paid subscription \(Professional or Enterprise\) or a purchased credit balance above zero/,
    );
    expect(body.message).toMatch(/Basic \(legacy\).*not a current paid subscription/);
    const free = (await call((await keyFor('free')).key)).json();
    expect(free.message).toMatch(/current paid subscription \(Professional or Enterprise\)/);
    expect(free.details).toMatchObject({ plan: 'free', purchased_credits: 0 });

    // A purchased balance above zero opens the data API to a Basic account, as it does to a Free one.
    await service.app.get(CommandBus).execute(new PurchaseCredits(accountId, 1, operator()));
    expect((await call(key)).statusCode).toBe(200);
  });

  it('missing credentials are 401 before any entitlement question', async () => {
    const response = await service.app.inject({ method: 'GET', url: '/api/v2/common/data/probe-free' });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ code: 'unauthenticated' });
  });
});
