/**
 * Rules 5 and 14: the 14-day trial ends on its own. The organization sweeper, on the service's injected clock
 * (a ManualClock here), ends it; the organization is then awaiting payment and restricted, the owner included,
 * until checkout completes. Real HTTP (fastify inject) on PGlite; the domain proof through a loopback DNS server.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { OrganizationSweeper } from '../../src/organizations/organization-sweeper.js';
import { ManualClock } from '../../src/platform/clock/clock.js';
import { TestDnsServer } from '../support/dns-server.js';
import { OrganizationHarness, operator, type Actor } from '../support/organizations.js';
import { startTestService, type TestService } from '../support/service.js';
import { waitUntil } from '../support/storage.js';

const DAY = 24 * 60 * 60 * 1000;
const clock = new ManualClock(new Date('2026-03-02T09:00:00.000Z'));
let dns: TestDnsServer;
let service: TestService;
let h: OrganizationHarness;
let sweeper: OrganizationSweeper;

const org = (id: string, rest = ''): string => `/api/v2/organizations/${id}${rest}`;

beforeAll(async () => {
  dns = await TestDnsServer.start();
  service = await startTestService('pglite', {
    clock,
    env: { DNS_SERVERS: dns.address, DNS_TIMEOUT_MS: '2000' },
  });
  await waitUntil(() => service.context.projections.allLive());
  h = new OrganizationHarness(service, dns);
  sweeper = new OrganizationSweeper(service.context, h.workspace);
});

afterAll(async () => {
  await sweeper?.stop();
  await service?.dispose();
  await dns?.close();
});

describe('rules 5 and 14: the trial ends on its own', () => {
  it('rule 5: after 14 days the sweeper ends the trial; the organization awaits payment and is restricted until checkout', async () => {
    const { owner, organizationId } = await h.trialOrganization();
    const other = await h.trialOrganization();
    expect(await h.ok(owner, 'GET', org(organizationId))).toMatchObject({
      status: 'active',
      plan: 'trial',
      trial: { started_at: '2026-03-02T09:00:00.000Z', ends_at: '2026-03-16T09:00:00.000Z', ended: false },
    });

    // A minute before the end, nothing happens.
    clock.advance(14 * DAY - 60_000);
    expect(await sweeper.sweepOnce()).toBe(0);
    let session: Actor = await h.login(owner); // 14 days later the first session has long expired
    expect(await h.ok(session, 'GET', org(organizationId))).toMatchObject({
      status: 'active',
      plan: 'trial',
    });

    // Once the 14 days are over, the sweeper, running on its own timer, ends both trials.
    clock.advance(60_000);
    sweeper.start(20);
    await waitUntil(async () => (await h.ok(session, 'GET', org(organizationId))).status !== 'active');
    await sweeper.stop();
    const ended = await h.ok(session, 'GET', org(organizationId));
    expect(ended).toMatchObject({
      status: 'awaiting_payment',
      restricted: true,
      plan: 'trial',
      trial: { ended: true },
    });
    const otherSession = await h.login(other.owner);
    expect(await h.ok(otherSession, 'GET', org(other.organizationId))).toMatchObject({
      status: 'awaiting_payment',
    });
    const events = await service.context.storage.eventStore.readStream(`organization-${organizationId}`);
    const trialEnded = events.find((event) => event.type === 'TrialEnded');
    expect(trialEnded?.data).toEqual({ endedAt: '2026-03-16T09:00:00.000Z' });
    expect(trialEnded?.metadata).toMatchObject({ actor: 'system:organization-sweeper' });
    // Ending is once: another pass (or another instance) decides nothing.
    expect(await sweeper.sweepOnce()).toBe(0);
    expect(
      (await service.context.storage.eventStore.readStream(`organization-${organizationId}`)).filter(
        (event) => event.type === 'TrialEnded',
      ),
    ).toHaveLength(1);

    // Rule 14: restricted, the owner included: no new space, no research.
    const space = await h.request(session, 'POST', org(organizationId, '/spaces'), { name: 'After trial' });
    expect(space.statusCode).toBe(403);
    expect(space.json()).toMatchObject({
      code: 'organization_restricted',
      details: { status: 'awaiting_payment' },
    });
    await h.switchTo(session, organizationId);
    const search = await h.search(session, 'nginx');
    expect(search.statusCode).toBe(403);
    expect(search.json()).toMatchObject({ code: 'organization_restricted' });

    // The billing action stays open; checkout completing lifts the restriction.
    session = await h.login(owner);
    await h.ok(session, 'PUT', org(organizationId, '/billing'), { plan: 'business' });
    await h.workspace.operator(organizationId, { type: 'CompleteCheckout', plan: 'business' }, operator());
    expect(await h.ok(session, 'GET', org(organizationId))).toMatchObject({
      status: 'active',
      restricted: false,
      plan: 'business',
    });
    expect(
      (await h.request(session, 'POST', org(organizationId, '/spaces'), { name: 'Paid' })).statusCode,
    ).toBe(201);
  });
});
