/**
 * The organization workspace over real HTTP on real storage (PGlite), with domain verification through a real
 * DNS resolver talking to a DNS server on loopback. Each test names the contract rule it proves.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CreditLedger } from '../../src/credits/commands/credit-ledger.js';
import { ledgerDecider, ledgerStreamId } from '../../src/credits/domain/ledger.js';
import { approvalFlagStreamId } from '../../src/organizations/commands/organization-workspace.js';
import { caseStreamId } from '../../src/organizations/domain/case.js';
import { commandEnvelope, causedBy } from '../../src/platform/event-sourcing/command-metadata.js';
import { eventIdFor } from '../../src/platform/event-store/event-id.js';
import { DATASETS } from '../../src/search/domain/datasets.js';
import { writeGenerated } from '../../src/search/data/demo-corpus.js';
import { SearchLog } from '../../src/search/search-log.js';
import { TestDnsServer } from '../support/dns-server.js';
import { OrganizationHarness, operator, type Actor } from '../support/organizations.js';
import { startTestService, type TestService } from '../support/service.js';
import { waitUntil } from '../support/storage.js';
import { expectOneEventBatchesToRebuildLiveDocuments } from '../support/one-event-batches.js';

let dns: TestDnsServer;
let service: TestService;
let h: OrganizationHarness;

const org = (id: string, rest = ''): string => `/api/v2/organizations/${id}${rest}`;
const json = (body: string): Record<string, unknown> => JSON.parse(body) as Record<string, unknown>;

async function balance(payer: string): Promise<{ purchased: number; available: number }> {
  const ledger = service.app.get(CreditLedger);
  const state = await ledger.state(payer);
  return { purchased: state.purchasedBalance, available: await ledger.available(payer) };
}

beforeAll(async () => {
  dns = await TestDnsServer.start();
  service = await startTestService('pglite', { env: { DNS_SERVERS: dns.address, DNS_TIMEOUT_MS: '2000' } });
  await waitUntil(() => service.context.projections.allLive());
  const now = new Date();
  for (const dataset of DATASETS) {
    await writeGenerated(service.context.observations, dataset, {
      count: 60,
      seed: 'organizations-e2e',
      now,
    });
  }
  h = new OrganizationHarness(service, dns);
});

afterAll(async () => {
  await service?.dispose();
  await dns?.close();
});

describe('rule 6: organization creation and the account transition', () => {
  it('rule 6: preview, explicit acceptance, the expected transfer, and purchased credits moving once', async () => {
    const owner = await h.account({ purchased: 120 });
    const preview = await h.ok(owner, 'GET', '/api/v2/organizations/creation-preview');
    expect(preview).toMatchObject({ allowed: true, transfer_credits: 120 });
    expect(preview).not.toHaveProperty('reason');

    const missingAcceptance = await h.request(owner, 'POST', '/api/v2/organizations', {
      name: 'Acme',
      expected_transfer: 120,
      start: 'subscription',
    });
    expect(missingAcceptance.statusCode).toBe(422);
    expect(json(missingAcceptance.body).code).toBe('invalid_input');
    const missingTransfer = await h.request(owner, 'POST', '/api/v2/organizations', {
      name: 'Acme',
      accept_account_transition: true,
      start: 'subscription',
    });
    expect(missingTransfer.statusCode).toBe(422);
    expect(json(missingTransfer.body).code).toBe('invalid_input');
    const changed = await h.request(owner, 'POST', '/api/v2/organizations', {
      name: 'Acme',
      accept_account_transition: true,
      expected_transfer: 100,
      start: 'subscription',
    });
    expect(changed.statusCode).toBe(409);
    expect(json(changed.body).code).toBe('transfer_changed');

    const created = await h.request(owner, 'POST', '/api/v2/organizations', {
      name: 'Acme',
      accept_account_transition: true,
      expected_transfer: 120,
      start: 'subscription',
    });
    expect(created.statusCode).toBe(201);
    const organization = json(created.body);
    // Subscribing without a trial: an empty billing workspace awaiting payment.
    expect(organization).toMatchObject({
      status: 'awaiting_payment',
      role: 'owner',
      plan: null,
      restricted: true,
    });
    const organizationId = organization.id as string;
    // Purchased credits moved; the monthly allowance (Free: 50) stayed personal and was not transferred.
    expect(await balance(`organization:${organizationId}`)).toMatchObject({ purchased: 120 });
    const personal = await balance(`account:${owner.accountId}`);
    expect(personal.purchased).toBe(0);
    expect(personal.available).toBe(50);

    const again = await h.ok(owner, 'GET', '/api/v2/organizations/creation-preview');
    expect(again).toMatchObject({ allowed: false, reason_code: 'owns_organization' });
    const refused = await h.request(owner, 'POST', '/api/v2/organizations', {
      name: 'Second',
      accept_account_transition: true,
      expected_transfer: 0,
      start: 'subscription',
    });
    expect(refused.statusCode).toBe(409);
    expect(json(refused.body).code).toBe('creation_unavailable');
  });

  it('rule 6: creation is unavailable with an active personal plan and for staff of an organization', async () => {
    const subscriber = await h.account({ plan: 'professional' });
    expect(await h.ok(subscriber, 'GET', '/api/v2/organizations/creation-preview')).toMatchObject({
      allowed: false,
      reason_code: 'personal_plan_active',
    });
    const { owner, organizationId } = await h.trialOrganization();
    const analyst = await h.member(organizationId, owner, 'analyst');
    expect(await h.ok(analyst, 'GET', '/api/v2/organizations/creation-preview')).toMatchObject({
      allowed: false,
      reason_code: 'staff_in_organization',
    });
  });

  it('rule 6: a session switched to an organization creates no other one (409 organization_session, nothing written); an external client creates from a personal session', async () => {
    const { owner, organizationId } = await h.trialOrganization();
    const client = await h.space(organizationId, owner);
    const external = await h.member(organizationId, owner, 'external_client', { spaces: [client] });
    await h.switchTo(external, organizationId);
    const creation = `organization-owner-${external.accountId}`;

    expect(await h.ok(external, 'GET', '/api/v2/organizations/creation-preview')).toMatchObject({
      allowed: false,
      reason_code: 'organization_session',
    });
    const refused = await h.request(external, 'POST', '/api/v2/organizations', {
      name: '3',
      accept_account_transition: true,
      start: 'subscription',
      expected_transfer: 0,
    });
    expect(refused.statusCode).toBe(409);
    expect(json(refused.body)).toMatchObject({
      code: 'creation_unavailable',
      details: { reason: 'organization_session' },
    });
    expect(await service.context.storage.eventStore.readStream(creation)).toEqual([]);
    expect((await h.ok(external, 'GET', '/api/v2/organizations')).organizations).toHaveLength(1);

    // Rule 6 refuses staff only: from a personal session the external client founds its own organization.
    const personal = await h.login(external);
    expect(await h.ok(personal, 'GET', '/api/v2/organizations/creation-preview')).toMatchObject({
      allowed: true,
    });
    const created = await h.request(personal, 'POST', '/api/v2/organizations', {
      name: 'Own Co',
      accept_account_transition: true,
      start: 'subscription',
      expected_transfer: 0,
    });
    expect(created.statusCode).toBe(201);
    expect(json(created.body)).toMatchObject({ name: 'Own Co', role: 'owner' });
  });

  it('rule 6: a crash anywhere in the transition is finished by recovery, moving the credits exactly once', async () => {
    const owner = await h.account({ purchased: 77 });
    const organizationId = crypto.randomUUID();
    const transferId = crypto.randomUUID();
    const started = {
      organizationId,
      transferId,
      credits: 77,
      name: 'Crashed Co',
      start: 'subscription',
      domain: null,
      verificationToken: 'token',
      generalSpaceId: crypto.randomUUID(),
    };
    const envelope = commandEnvelope({
      actor: `account:${owner.accountId}`,
      payer: `organization:${organizationId}`,
    });
    // The process died after recording its intent and moving the credits out, before the organization existed.
    const stream = `organization-owner-${owner.accountId}`;
    await service.context.storage.eventStore.append(
      stream,
      [
        {
          id: eventIdFor(`${envelope.commandId}@${stream}`, 0),
          type: 'OrganizationCreationStarted',
          schemaVersion: 1,
          data: started,
          metadata: envelope.metadata,
        },
      ],
      { expectedVersion: 'no_stream' },
    );
    const ledger = service.app.get(CreditLedger);
    await service.context.repository.handle(
      ledgerStreamId(`account:${owner.accountId}`),
      ledgerDecider,
      { type: 'TransferOut', transferId, credits: 77, to: `organization:${organizationId}` },
      await ledger.ledgerContext(`account:${owner.accountId}`),
      causedBy(envelope, `transition-out:${transferId}`),
    );
    expect((await balance(`account:${owner.accountId}`)).purchased).toBe(0);
    expect((await balance(`organization:${organizationId}`)).purchased).toBe(0);

    // Recovery (run twice, as a restarted service and a retry would) completes it once.
    await h.workspace.recoverCreation(owner.accountId);
    await h.workspace.recoverCreation(owner.accountId);
    expect((await balance(`account:${owner.accountId}`)).purchased).toBe(0);
    expect((await balance(`organization:${organizationId}`)).purchased).toBe(77);
    const overview = await h.ok(owner, 'GET', org(organizationId));
    expect(overview).toMatchObject({ name: 'Crashed Co', role: 'owner', status: 'awaiting_payment' });
    const transfersIn = (
      await service.context.storage.eventStore.readStream(ledgerStreamId(`organization:${organizationId}`))
    ).filter((event) => event.type === 'CreditsTransferredIn');
    expect(transfersIn).toHaveLength(1);
  });
});

describe('a GET never writes', () => {
  it('the creation preview leaves the event log where it was, even over an interrupted creation; the POST that creates finishes it', async () => {
    const eventStore = service.context.storage.eventStore;
    const owner = await h.account({ purchased: 30 });
    const organizationId = crypto.randomUUID();
    const envelope = commandEnvelope({
      actor: `account:${owner.accountId}`,
      payer: `organization:${organizationId}`,
    });
    // A creation that crashed right after its intent: finishing it would append (the organization, its space).
    const stream = `organization-owner-${owner.accountId}`;
    const { position } = await eventStore.append(
      stream,
      [
        {
          id: eventIdFor(`${envelope.commandId}@${stream}`, 0),
          type: 'OrganizationCreationStarted',
          schemaVersion: 1,
          data: {
            organizationId,
            transferId: crypto.randomUUID(),
            credits: 0,
            name: 'Interrupted Co',
            start: 'subscription',
            domain: null,
            verificationToken: 'token',
            generalSpaceId: crypto.randomUUID(),
          },
          metadata: envelope.metadata,
        },
      ],
      { expectedVersion: 'no_stream' },
    );
    await service.context.readYourWrites(['organizations'], position);
    const head = await eventStore.headPosition();

    // The account is becoming an owner: the preview says so, and writes nothing.
    expect(await h.ok(owner, 'GET', '/api/v2/organizations/creation-preview')).toMatchObject({
      allowed: false,
      reason_code: 'owns_organization',
      transfer_credits: 30,
    });
    expect(await eventStore.headPosition()).toBe(head);
    expect((await h.request(owner, 'GET', org(organizationId))).statusCode).toBe(404);
    const personal = await h.account({ purchased: 5 });
    const headBefore = await eventStore.headPosition();
    expect(await h.ok(personal, 'GET', '/api/v2/organizations/creation-preview')).toMatchObject({
      allowed: true,
      transfer_credits: 5,
    });
    expect(await eventStore.headPosition()).toBe(headBefore);

    // Creating finishes the interrupted creation first, then refuses a second organization.
    const refused = await h.request(owner, 'POST', '/api/v2/organizations', {
      name: 'Second',
      accept_account_transition: true,
      expected_transfer: 30,
      start: 'subscription',
    });
    expect(refused.statusCode).toBe(409);
    expect(json(refused.body).code).toBe('creation_unavailable');
    expect(await h.ok(owner, 'GET', org(organizationId))).toMatchObject({
      name: 'Interrupted Co',
      role: 'owner',
    });
  });
});

describe('rule 5: trial admission by a verified business domain', () => {
  it('rule 5: a personal mailbox domain is refused; the TXT record is checked through DNS; 1,000 credits, 14 days', async () => {
    const owner = await h.account();
    const personal = await h.request(owner, 'POST', '/api/v2/organizations', {
      name: 'Gmail Co',
      accept_account_transition: true,
      expected_transfer: 0,
      domain: 'gmail.com',
    });
    expect(personal.statusCode).toBe(422);
    expect(json(personal.body).code).toBe('personal_mailbox_domain');

    const domain = `verified-${Date.now()}.example`;
    const created = await h.ok(owner, 'POST', '/api/v2/organizations', {
      name: 'Verified Co',
      accept_account_transition: true,
      expected_transfer: 0,
      domain,
    });
    expect(created).toMatchObject({ status: 'pending_verification', restricted: true });
    const organizationId = created.id as string;
    const record = (created.verification as { record: { type: string; name: string; value: string } }).record;
    expect(record).toMatchObject({ type: 'TXT', name: `_exposure-verification.${domain}` });

    const unpublished = await h.request(owner, 'POST', org(organizationId, '/verification'));
    expect(unpublished.statusCode).toBe(409);
    expect(json(unpublished.body).code).toBe('domain_not_verified');
    dns.setTxt(record.name, 'some-other-value');
    expect((await h.request(owner, 'POST', org(organizationId, '/verification'))).statusCode).toBe(409);

    dns.setTxt(record.name, 'unrelated', record.value);
    const verified = await h.ok(owner, 'POST', org(organizationId, '/verification'));
    expect(verified).toMatchObject({ status: 'active', plan: 'trial', restricted: false });
    const trial = verified.trial as { started_at: string; ends_at: string };
    expect(Date.parse(trial.ends_at) - Date.parse(trial.started_at)).toBe(14 * 24 * 60 * 60 * 1000);
    expect((await balance(`organization:${organizationId}`)).available).toBe(1000);

    // Renaming creates no new trial and grants nothing.
    await h.ok(owner, 'PATCH', org(organizationId), { name: 'Renamed Co' });
    expect((await h.ok(owner, 'POST', org(organizationId, '/verification'))).trial).toEqual(verified.trial);
    expect((await balance(`organization:${organizationId}`)).available).toBe(1000);

    // One trial per verified domain: another account proving the same domain is not admitted.
    const other = await h.account();
    const second = await h.ok(other, 'POST', '/api/v2/organizations', {
      name: 'Copycat',
      accept_account_transition: true,
      expected_transfer: 0,
      domain,
    });
    const secondRecord = (second.verification as { record: { name: string; value: string } }).record;
    dns.setTxt(secondRecord.name, record.value, secondRecord.value);
    const refused = await h.request(other, 'POST', org(second.id as string, '/verification'));
    expect(refused.statusCode).toBe(403);
    expect(json(refused.body)).toMatchObject({ code: 'trial_ineligible' });
    expect((await balance(`organization:${second.id as string}`)).available).toBe(0);
  });

  it('rule 14: pending approval restricts the organization, the owner included, until approved', async () => {
    const owner = await h.account();
    await service.context.storage.eventStore.append(
      approvalFlagStreamId(owner.accountId),
      [
        {
          id: crypto.randomUUID(),
          type: 'TrialApprovalRequired',
          schemaVersion: 1,
          data: {},
          metadata: operator().metadata,
        },
      ],
      { expectedVersion: 'no_stream' },
    );
    const created = await h.ok(owner, 'POST', '/api/v2/organizations', {
      name: 'Flagged Co',
      accept_account_transition: true,
      expected_transfer: 0,
      domain: `flagged-${Date.now()}.example`,
    });
    const organizationId = created.id as string;
    const record = (created.verification as { record: { name: string; value: string } }).record;
    dns.setTxt(record.name, record.value);
    const pending = await h.ok(owner, 'POST', org(organizationId, '/verification'));
    expect(pending).toMatchObject({ status: 'pending_approval', restricted: true });
    expect((await balance(`organization:${organizationId}`)).available).toBe(0);

    const space = await h.request(owner, 'POST', org(organizationId, '/spaces'), { name: 'Client' });
    expect(space.statusCode).toBe(403);
    expect(json(space.body)).toMatchObject({
      code: 'organization_restricted',
      details: { status: 'pending_approval' },
    });
    await h.switchTo(owner, organizationId);
    const search = await h.search(owner, 'nginx');
    expect(search.statusCode).toBe(403);
    expect(json(search.body).code).toBe('organization_restricted');

    await h.workspace.operator(organizationId, { type: 'ApproveOrganization' }, operator());
    expect(await h.ok(owner, 'GET', org(organizationId))).toMatchObject({ status: 'active', plan: 'trial' });
    expect((await balance(`organization:${organizationId}`)).available).toBe(1000);
    expect(
      (await h.request(owner, 'POST', org(organizationId, '/spaces'), { name: 'Client' })).statusCode,
    ).toBe(201);
  });

  it('rule 14: awaiting payment restricts until checkout completes; inactive restricts too', async () => {
    const owner = await h.account();
    const created = await h.ok(owner, 'POST', '/api/v2/organizations', {
      name: 'Paying Co',
      accept_account_transition: true,
      expected_transfer: 0,
      start: 'subscription',
    });
    const organizationId = created.id as string;
    expect((await h.request(owner, 'POST', org(organizationId, '/spaces'), { name: 'X' })).statusCode).toBe(
      403,
    );
    // The billing action stays available to the owner while restricted.
    await h.ok(owner, 'PUT', org(organizationId, '/billing'), { plan: 'teams' });
    await h.workspace.operator(organizationId, { type: 'CompleteCheckout', plan: 'teams' }, operator());
    expect(await h.ok(owner, 'GET', org(organizationId))).toMatchObject({ status: 'active', plan: 'teams' });
    expect((await h.request(owner, 'POST', org(organizationId, '/spaces'), { name: 'X' })).statusCode).toBe(
      201,
    );
    await h.workspace.operator(organizationId, { type: 'SetInactive', inactive: true }, operator());
    const inactive = await h.request(owner, 'POST', org(organizationId, '/spaces'), { name: 'Y' });
    expect(json(inactive.body)).toMatchObject({
      code: 'organization_restricted',
      details: { status: 'inactive' },
    });
  });
});

describe('rules 1, 2 and 8: research in the organization context', () => {
  let owner: Actor;
  let organizationId: string;
  let generalSpaceId: string;

  beforeAll(async () => {
    ({ owner, organizationId, generalSpaceId } = await h.trialOrganization(
      await h.account({ purchased: 40 }),
    ));
  });

  it('rule 1: personal research is unavailable to a member, through a personal API key or an unswitched session', async () => {
    const key = await h.apiKey(owner);
    const viaKey = await service.app.inject({
      method: 'POST',
      url: '/api/v2/common/data/search',
      headers: { 'x-api-key': key },
      payload: { raw_query: 'nginx', stream: false },
    });
    // The Free owner had purchased credits: they moved to the organization, and nothing falls back to personal.
    // Rule 1 answers first, whatever the personal balance left.
    expect(viaKey.statusCode).toBe(403);
    expect(json(viaKey.body).code).toBe('personal_research_unavailable');
    const member = await h.member(organizationId, owner, 'analyst');
    await h.bus.execute(
      new (await import('../../src/accounts/commands/account.commands.js')).PurchaseCredits(
        member.accountId,
        30,
        operator(),
      ),
    );
    const memberKey = await h.apiKey(member);
    const personalSearch = await service.app.inject({
      method: 'POST',
      url: '/api/v2/common/data/search',
      headers: { 'x-api-key': memberKey },
      payload: { raw_query: 'nginx', stream: false },
    });
    expect(personalSearch.statusCode).toBe(403);
    expect(json(personalSearch.body).code).toBe('personal_research_unavailable');
    const unswitched = await h.search(member, 'nginx');
    expect(json(unswitched.body).code).toBe('personal_research_unavailable');
    const personalExport = await service.app.inject({
      method: 'POST',
      url: '/api/v2/common/exports/hosts',
      headers: { 'x-api-key': memberKey },
      payload: { raw_query: 'port:443', format: 'csv' },
    });
    expect(json(personalExport.body).code).toBe('personal_research_unavailable');
    expect((await balance(`account:${member.accountId}`)).purchased).toBe(30);
  });

  it('rule 1: research runs in the organization context, paid from its credits; a failed budget never falls back', async () => {
    await h.switchTo(owner, organizationId);
    const before = await balance(`organization:${organizationId}`);
    const personalBefore = await balance(`account:${owner.accountId}`);
    const response = await h.search(owner, 'nginx');
    expect(response.statusCode).toBe(200);
    const outcome = json(response.body);
    expect(outcome.credits_charged).toBeGreaterThan(0);
    expect(typeof outcome.search_id).toBe('string');
    expect((await balance(`organization:${organizationId}`)).purchased).toBe(
      before.purchased - (outcome.credits_charged as number),
    );
    expect(await balance(`account:${owner.accountId}`)).toEqual(personalBefore);

    // A space whose envelope is spent refuses with a clear code; the personal balance is never touched.
    const tiny = await h.space(organizationId, owner, { credit_limit: 6 });
    await h.ok(owner, 'PUT', org(organizationId, '/context'), { space_id: tiny });
    let refusal: Record<string, unknown> | null = null;
    for (let i = 0; i < 5 && !refusal; i++) {
      const attempt = await h.search(owner, 'nginx');
      if (attempt.statusCode !== 200) refusal = json(attempt.body);
    }
    expect(refusal).toMatchObject({ code: 'envelope_exhausted' });
    expect(await balance(`account:${owner.accountId}`)).toEqual(personalBefore);
  });

  it('rule 2: staff start in General research, external clients must choose, and the dashboard spends nothing', async () => {
    const client = await h.space(organizationId, owner);
    const external = await h.member(organizationId, owner, 'external_client', { spaces: [client] });
    const switched = await h.ok(external, 'POST', org(organizationId, '/switch'));
    expect(switched).toMatchObject({ space_id: null });
    const noSpace = await h.search(external, 'nginx');
    expect(noSpace.statusCode).toBe(409);
    expect(json(noSpace.body).code).toBe('space_required');
    // General research is internal: an external client cannot select it.
    const general = await h.request(external, 'PUT', org(organizationId, '/context'), {
      space_id: generalSpaceId,
    });
    expect(general.statusCode).toBe(404);
    await h.ok(external, 'PUT', org(organizationId, '/context'), { space_id: client });
    expect((await h.search(external, 'nginx')).statusCode).toBe(200);

    const analyst = await h.member(organizationId, owner, 'analyst');
    expect(await h.ok(analyst, 'POST', org(organizationId, '/switch'))).toMatchObject({
      space_id: generalSpaceId,
    });

    // Earlier searches' records are appended by the search log within its linger (ADR 132): in before counting.
    await service.app.get(SearchLog).settled();
    const positionBefore = await service.context.storage.eventStore.readAll({
      after: null,
      limit: 1_000_000,
    });
    const ledgerBefore = await balance(`organization:${organizationId}`);
    await h.ok(analyst, 'GET', org(organizationId));
    await h.ok(analyst, 'GET', org(organizationId, '/spaces'));
    await h.ok(analyst, 'GET', org(organizationId, '/credits'));
    const positionAfter = await service.context.storage.eventStore.readAll({ after: null, limit: 1_000_000 });
    expect(positionAfter.length).toBe(positionBefore.length);
    expect(await balance(`organization:${organizationId}`)).toEqual(ledgerBefore);
  });

  it('rule 8: managers see the shared balance, other members their permitted envelope', async () => {
    const client = await h.space(organizationId, owner, { credit_limit: 50 });
    const external = await h.member(organizationId, owner, 'external_client', {
      spaces: [client],
      portion: 20,
    });
    await h.switchTo(external, organizationId, client);
    const shared = await h.ok(owner, 'GET', org(organizationId, '/credits'));
    expect(shared).toMatchObject({ scope: 'shared' });
    const envelope = await h.ok(external, 'GET', org(organizationId, '/credits'));
    expect(envelope).toMatchObject({ scope: 'envelope', available: 20 });
    expect(envelope).not.toHaveProperty('balance');
  });

  it('rule 8: 100 concurrent reservations never exceed the scope envelope nor the shared balance', async () => {
    const ledger = service.app.get(CreditLedger);
    const payer = `organization:${organizationId}`;
    const envelopes = [{ key: `space:concurrency-${Date.now()}`, limit: 37 }];
    const before = await ledger.available(payer);
    const attempts = await Promise.allSettled(
      Array.from({ length: 100 }, () =>
        ledger.reserve(
          { payer, amount: 1, category: 'host', channel: 'session', envelopes },
          commandEnvelope({ actor: `account:${owner.accountId}`, payer: payer as `organization:${string}` }),
        ),
      ),
    );
    const held = attempts.filter((a) => a.status === 'fulfilled').length;
    expect(held).toBe(Math.min(37, before));
    const refused = attempts
      .filter((a) => a.status === 'rejected')
      .map((a) => (a as PromiseRejectedResult).reason);
    expect(
      refused.every((r) =>
        ['envelope_exhausted', 'insufficient_credits'].includes((r as { code: string }).code),
      ),
    ).toBe(true);
    expect(await ledger.available(payer)).toBe(before - held);
    for (const attempt of attempts) {
      if (attempt.status === 'fulfilled') await ledger.release(attempt.value, 'cancelled', operator());
    }
  });
});

describe('rules 3 and 4: cases and evidence', () => {
  it('rules 3 and 4: General research owns no new case; evidence needs a rerun in the client; the save is exact', async () => {
    const { owner, organizationId, generalSpaceId } = await h.trialOrganization();
    const client = await h.space(organizationId, owner);
    const inGeneral = await h.request(owner, 'POST', org(organizationId, '/cases'), {
      space_id: generalSpaceId,
      title: 'No',
    });
    expect(inGeneral.statusCode).toBe(403);
    const opened = await h.ok(owner, 'POST', org(organizationId, '/cases'), {
      space_id: client,
      title: 'Exposure',
    });
    const caseId = opened.id as string;

    await h.switchTo(owner, organizationId);
    const generalSearch = json((await h.search(owner, 'nginx')).body);
    const generalRecords = Object.values(
      generalSearch.results as Record<string, Array<{ dataset: string; id: string }>>,
    ).flat();
    expect(generalRecords.length).toBeGreaterThan(2);

    // Without a selected case, nothing is saved and no case is created.
    const noCase = await h.request(owner, 'POST', org(organizationId, '/evidence'), {
      search_id: generalSearch.search_id,
      records: [{ dataset: generalRecords[0]!.dataset, id: generalRecords[0]!.id }],
      note: 'look',
    });
    expect(json(noCase.body).code).toBe('case_required');
    await h.ok(owner, 'PUT', org(organizationId, '/context'), { space_id: client, case_id: caseId });
    const fromGeneral = await h.request(owner, 'POST', org(organizationId, '/evidence'), {
      search_id: generalSearch.search_id,
      records: [{ dataset: generalRecords[0]!.dataset, id: generalRecords[0]!.id }],
      note: 'look',
    });
    expect(fromGeneral.statusCode).toBe(409);
    expect(json(fromGeneral.body).code).toBe('rerun_required');

    // The explicit rerun in the client's context, paid from the organization (the client's budget).
    const orgBefore = await balance(`organization:${organizationId}`);
    const rerun = json((await h.search(owner, 'nginx')).body);
    expect((await balance(`organization:${organizationId}`)).purchased).toBe(
      orgBefore.purchased - (rerun.credits_charged as number),
    );
    // A search adds no evidence by itself.
    expect((await h.ok(owner, 'GET', org(organizationId, `/cases/${caseId}`))).evidence).toEqual([]);

    const records = Object.values(
      rerun.results as Record<string, Array<{ dataset: string; id: string; raw: unknown }>>,
    ).flat();
    // The client reorders its list: the records saved are the ones named, not positions.
    const picked = [records[2]!, records[0]!];
    // The rerun's record is appended by the search log within its linger (ADR 132): in before counting.
    await service.app.get(SearchLog).settled();
    const eventsBefore = (await service.context.storage.eventStore.readAll({ after: null, limit: 1_000_000 }))
      .length;
    const saved = await h.ok(owner, 'POST', org(organizationId, '/evidence'), {
      search_id: rerun.search_id,
      records: picked.map((r) => ({ dataset: r.dataset, id: r.id })),
      note: 'exposed admin panel',
    });
    expect(saved).toMatchObject({ visibility: 'internal', case_id: caseId, note: 'exposed admin panel' });
    expect((saved.records as Array<{ id: string; source: unknown }>).map((r) => r.id)).toEqual(
      picked.map((r) => r.id),
    );
    expect((saved.records as Array<{ source: unknown }>)[0]!.source).toEqual(picked[0]!.raw);
    // The save ran no search: only the case stream moved, no ledger event.
    const newEvents = (
      await service.context.storage.eventStore.readAll({ after: null, limit: 1_000_000 })
    ).slice(eventsBefore);
    expect(newEvents.map((e) => e.type)).toEqual(['EvidenceSaved']);
    expect(newEvents[0]!.streamId).toBe(caseStreamId(caseId));

    const tooMany = await h.request(owner, 'POST', org(organizationId, '/evidence'), {
      search_id: rerun.search_id,
      records: Array.from({ length: 21 }, (_, i) => ({ dataset: 'hosts', id: `x${i}` })),
      note: 'too many',
    });
    expect(tooMany.statusCode).toBe(422);

    // External client users save client-visible evidence.
    const external = await h.member(organizationId, owner, 'external_client', { spaces: [client] });
    await h.switchTo(external, organizationId, client);
    await h.ok(external, 'PUT', org(organizationId, '/context'), { space_id: client, case_id: caseId });
    const externalSearch = json((await h.search(external, 'nginx')).body);
    const externalRecord = Object.values(
      externalSearch.results as Record<string, Array<{ dataset: string; id: string }>>,
    ).flat()[0]!;
    const clientVisible = await h.ok(external, 'POST', org(organizationId, '/evidence'), {
      search_id: externalSearch.search_id,
      records: [{ dataset: externalRecord.dataset, id: externalRecord.id }],
      note: 'we see this too',
    });
    expect(clientVisible.visibility).toBe('client');
    const internalByExternal = await h.request(external, 'POST', org(organizationId, '/evidence'), {
      search_id: externalSearch.search_id,
      records: [{ dataset: externalRecord.dataset, id: externalRecord.id }],
      note: 'x',
      visibility: 'internal',
    });
    expect(internalByExternal.statusCode).toBe(403);
    // The external user sees only client-visible evidence of the case.
    const seen = await h.ok(external, 'GET', org(organizationId, `/cases/${caseId}`));
    expect((seen.evidence as Array<{ visibility: string }>).map((e) => e.visibility)).toEqual(['client']);

    // Changing space clears the selected case.
    const otherClient = await h.space(organizationId, owner);
    await h.ok(owner, 'PUT', org(organizationId, '/context'), { space_id: otherClient });
    expect(await h.ok(owner, 'GET', org(organizationId, '/context'))).toMatchObject({
      space_id: otherClient,
      case_id: null,
    });

    // An archived case must be replaced before saving.
    await h.ok(owner, 'PUT', org(organizationId, '/context'), { space_id: client, case_id: caseId });
    await h.ok(owner, 'POST', org(organizationId, `/cases/${caseId}/archive`));
    const archived = await h.request(owner, 'POST', org(organizationId, '/evidence'), {
      search_id: rerun.search_id,
      records: [{ dataset: picked[0]!.dataset, id: picked[0]!.id }],
      note: 'again',
    });
    expect(archived.statusCode).toBe(409);
    expect(json(archived.body).code).toBe('case_unavailable');
  });

  it('rule 3: a historical case of General research stays reviewable', async () => {
    const { owner, organizationId, generalSpaceId } = await h.trialOrganization();
    const caseId = crypto.randomUUID();
    await service.context.storage.eventStore.append(
      caseStreamId(caseId),
      [
        {
          id: crypto.randomUUID(),
          type: 'CaseOpened',
          schemaVersion: 1,
          data: {
            caseId,
            organizationId,
            spaceId: generalSpaceId,
            title: 'Before the rule',
            openedBy: owner.accountId,
            openedAt: new Date().toISOString(),
          },
          metadata: operator().metadata,
        },
      ],
      { expectedVersion: 'no_stream' },
    );
    await waitUntil(
      async () => (await h.request(owner, 'GET', org(organizationId, `/cases/${caseId}`))).statusCode === 200,
    );
    expect(await h.ok(owner, 'GET', org(organizationId, `/cases/${caseId}`))).toMatchObject({
      title: 'Before the rule',
      space_id: generalSpaceId,
    });
  });
});

describe('rule 7: trial WHOIS redaction', () => {
  it('rule 7: the trial omits natural-person contacts and refuses filtering on them before reserving; Teams shows all', async () => {
    const now = new Date().toISOString();
    await service.context.observations.write('whois', [
      {
        id: 'trialco.example',
        domain: 'trialco.example',
        registrar: 'example registrar, inc.',
        name_servers: ['ns1.trialco.example'],
        registrant: {
          organization: 'Trialco',
          name: 'Jane Doe',
          email: 'jane@trialco.example',
          country: 'FR',
        },
        admin: { name: 'John Admin', email: 'admin@trialco.example' },
        tech: { name: 'Tess Tech', email: 'tech@trialco.example' },
        first_seen: now,
        last_seen: now,
      },
    ]);
    const { owner, organizationId } = await h.trialOrganization();
    await h.switchTo(owner, organizationId);
    const response = await h.request(owner, 'POST', '/api/v2/data/whois', {
      raw_query: 'domain:trialco.example',
      results_per_page: 10,
    });
    expect(response.statusCode).toBe(200);
    const rows = json(response.body).data as Array<Record<string, Record<string, unknown> | unknown>>;
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      const registrant = (row.registrant ?? {}) as Record<string, unknown>;
      expect(registrant).not.toHaveProperty('name');
      expect(registrant).not.toHaveProperty('email');
      expect((row.admin ?? {}) as object).not.toHaveProperty('email');
      expect((row.tech ?? {}) as object).not.toHaveProperty('name');
      expect(row).toHaveProperty('registrar');
    }
    expect(
      rows.some((row) => (row.registrant as Record<string, unknown> | undefined)?.organization !== undefined),
    ).toBe(true);

    const ledgerBefore = (
      await service.context.storage.eventStore.readStream(ledgerStreamId(`organization:${organizationId}`))
    ).length;
    const filtered = await h.search(owner, 'registrant.email:someone@example.com');
    expect(filtered.statusCode).toBe(403);
    expect(json(filtered.body)).toMatchObject({
      code: 'trial_field_omitted',
      details: { fields: ['registrant.email'] },
    });
    const aggregated = await h.request(owner, 'POST', '/api/v2/data/whois', {
      raw_query: 'domain:trialco.example',
      aggregate: true,
      include: 'admin.name',
    });
    expect(aggregated.statusCode).toBe(403);
    expect(
      (await service.context.storage.eventStore.readStream(ledgerStreamId(`organization:${organizationId}`)))
        .length,
    ).toBe(ledgerBefore);

    await h.workspace.operator(organizationId, { type: 'CompleteCheckout', plan: 'teams' }, operator());
    const teams = await h.request(owner, 'POST', '/api/v2/data/whois', {
      raw_query: 'domain:trialco.example',
      results_per_page: 10,
    });
    const teamRows = json(teams.body).data as Array<Record<string, unknown>>;
    expect(
      teamRows.some((row) => (row.registrant as Record<string, unknown> | undefined)?.email !== undefined),
    ).toBe(true);
  });
});

describe('rule 11: review queue and report comparisons', () => {
  it('rule 11: internal members review across accessible spaces; external clients keep the published view', async () => {
    const { owner, organizationId } = await h.trialOrganization();
    const alpha = await h.space(organizationId, owner);
    const beta = await h.space(organizationId, owner);
    const analyst = await h.member(organizationId, owner, 'analyst', { spaces: [alpha] });
    const external = await h.member(organizationId, owner, 'external_client', { spaces: [alpha] });
    const caseId = (
      await h.ok(owner, 'POST', org(organizationId, '/cases'), { space_id: alpha, title: 'Alpha' })
    ).id as string;

    await h.switchTo(owner, organizationId, alpha);
    const alphaSearch = json((await h.search(owner, 'nginx')).body);
    const alphaRecords = Object.values(
      alphaSearch.results as Record<string, Array<{ dataset: string; id: string }>>,
    ).flat();
    await h.ok(owner, 'PUT', org(organizationId, '/context'), { space_id: beta });
    const betaSearch = json((await h.search(owner, 'nginx')).body);
    const betaRecord = Object.values(
      betaSearch.results as Record<string, Array<{ dataset: string; id: string }>>,
    ).flat()[0]!;

    const itemAlpha = (
      await h.ok(owner, 'POST', org(organizationId, '/review-queue'), {
        search_id: alphaSearch.search_id,
        record: { dataset: alphaRecords[0]!.dataset, id: alphaRecords[0]!.id },
      })
    ).id as string;
    await h.ok(owner, 'POST', org(organizationId, '/review-queue'), {
      search_id: betaSearch.search_id,
      record: { dataset: betaRecord.dataset, id: betaRecord.id },
    });
    expect(((await h.ok(owner, 'GET', org(organizationId, '/review-queue'))).items as unknown[]).length).toBe(
      2,
    );
    const analystQueue = (await h.ok(analyst, 'GET', org(organizationId, '/review-queue'))).items as Array<{
      space_id: string;
    }>;
    expect(analystQueue.map((i) => i.space_id)).toEqual([alpha]);
    expect((await h.request(external, 'GET', org(organizationId, '/review-queue'))).statusCode).toBe(403);

    await h.ok(owner, 'PUT', org(organizationId, '/context'), { space_id: alpha, case_id: caseId });
    const evidence = await h.ok(owner, 'POST', org(organizationId, '/evidence'), {
      search_id: alphaSearch.search_id,
      records: [
        { dataset: alphaRecords[0]!.dataset, id: alphaRecords[0]!.id },
        { dataset: alphaRecords[1]!.dataset, id: alphaRecords[1]!.id },
      ],
      note: 'two records',
      visibility: 'client',
    });
    const updated = await h.ok(analyst, 'PATCH', org(organizationId, `/review-queue/${itemAlpha}`), {
      assignee: analyst.accountId,
      due_date: '2027-01-15',
      source: { case_id: caseId, evidence_id: evidence.id },
    });
    expect(updated).toMatchObject({
      assignee: analyst.accountId,
      due_date: '2027-01-15',
      source: { case_id: caseId, evidence_id: evidence.id },
    });
    const badAssignee = await h.request(owner, 'PATCH', org(organizationId, `/review-queue/${itemAlpha}`), {
      assignee: external.accountId,
    });
    expect(badAssignee.statusCode).toBe(422);

    const comparison = await h.ok(owner, 'POST', org(organizationId, '/comparisons'), {
      space_id: alpha,
      title: 'Alpha compared',
      evidence_ids: [evidence.id],
    });
    expect(comparison.rows as unknown[]).toHaveLength(2);
    expect(
      (await h.ok(external, 'GET', org(organizationId, `/clients/${alpha}/published`)))
        .comparisons as unknown[],
    ).toEqual([]);
    expect(
      (await h.request(external, 'GET', org(organizationId, `/comparisons/${comparison.id as string}`)))
        .statusCode,
    ).toBe(404);
    await h.ok(owner, 'POST', org(organizationId, `/comparisons/${comparison.id as string}/publish`));
    const published = (await h.ok(external, 'GET', org(organizationId, `/clients/${alpha}/published`)))
      .comparisons as Array<{ id: string }>;
    expect(published.map((c) => c.id)).toEqual([comparison.id]);
  });
});

describe('rules 10 and 13: monitoring activation and archiving a space', () => {
  it('rule 10: monitoring collects only after explicit activation', async () => {
    const { owner, organizationId } = await h.trialOrganization();
    const space = await h.space(organizationId, owner);
    expect(await h.ok(owner, 'GET', org(organizationId, `/clients/${space}`))).toMatchObject({
      monitoring: false,
    });
    const activated = await h.ok(owner, 'PUT', org(organizationId, `/clients/${space}/monitoring`), {
      enabled: true,
    });
    expect(activated).toMatchObject({ monitoring: true });
  });

  it('rule 13: archiving pauses schedules and revokes shares; restoring keeps history and recreates neither', async () => {
    const { owner, organizationId } = await h.trialOrganization();
    const space = await h.space(organizationId, owner, { monitoring: true });
    const share = await h.ok(owner, 'POST', org(organizationId, `/clients/${space}/shares`));
    const before = await h.ok(owner, 'GET', org(organizationId, `/clients/${space}`));
    expect(before).toMatchObject({
      monitoring: true,
      state: 'active',
      shares: [{ id: share.id, revoked: false }],
    });

    const stale = await h.request(
      owner,
      'PATCH',
      org(organizationId, `/clients/${space}`),
      { state: 'archived' },
      { 'if-match': '"0"' },
    );
    expect(stale.statusCode).toBe(409);
    const noPrecondition = await h.request(owner, 'PATCH', org(organizationId, `/clients/${space}`), {
      state: 'archived',
    });
    expect(noPrecondition.statusCode).toBe(428);
    const archived = await h.ok(
      owner,
      'PATCH',
      org(organizationId, `/clients/${space}`),
      { state: 'archived' },
      { 'if-match': before.version as string },
    );
    expect(archived).toMatchObject({
      state: 'archived',
      monitoring: false,
      shares: [{ id: share.id, revoked: true }],
    });
    // Work in the archived space pauses: it cannot be selected for research.
    await h.switchTo(owner, organizationId);
    expect(
      (await h.request(owner, 'PUT', org(organizationId, '/context'), { space_id: space })).statusCode,
    ).toBe(403);

    const restored = await h.ok(
      owner,
      'PATCH',
      org(organizationId, `/clients/${space}`),
      { state: 'active' },
      { 'if-match': archived.version as string },
    );
    expect(restored).toMatchObject({
      state: 'active',
      monitoring: false,
      shares: [{ id: share.id, revoked: true }],
    });
    const history = await service.context.storage.eventStore.readStream(`client-${space}`);
    expect(history.map((e) => e.type)).toEqual([
      'SpaceCreated',
      'MonitoringActivated',
      'ShareCreated',
      'SpaceArchived',
      'MonitoringStopped',
      'ShareRevoked',
      'SpaceRestored',
    ]);
  });

  it('rule 13: a space update is all-or-nothing: refused for an archived space, it renames nothing either', async () => {
    const { owner, organizationId } = await h.trialOrganization();
    const space = await h.space(organizationId, owner);
    const active = await h.ok(owner, 'GET', org(organizationId, `/clients/${space}`));
    // Set together with the archive, the limit applies first: the request that archives succeeds whole.
    const archived = await h.ok(
      owner,
      'PATCH',
      org(organizationId, `/clients/${space}`),
      { name: 'Renamed and archived', credit_limit: 40, state: 'archived' },
      { 'if-match': active.version as string },
    );
    expect(archived).toMatchObject({ name: 'Renamed and archived', credit_limit: 40, state: 'archived' });
    const before = await service.context.storage.eventStore.readStream(`client-${space}`);

    // Archived, the limit is refused (restore first), and the rename sent with it is not applied either.
    const refused = await h.request(
      owner,
      'PATCH',
      org(organizationId, `/clients/${space}`),
      { name: 'Half applied', credit_limit: 5 },
      { 'if-match': archived.version as string },
    );
    expect(refused.statusCode).toBe(403);
    expect(json(refused.body)).toMatchObject({ code: 'forbidden' });
    expect(await service.context.storage.eventStore.readStream(`client-${space}`)).toHaveLength(
      before.length,
    );
    expect(await h.ok(owner, 'GET', org(organizationId, `/clients/${space}`))).toMatchObject({
      name: 'Renamed and archived',
      version: archived.version,
    });
  });
});

describe('Roles and Authentication 1, 6–8: members, sessions, ownership', () => {
  it('Authentication 8: removing a member or an assignment revokes the matching access at once', async () => {
    const { owner, organizationId } = await h.trialOrganization();
    const space = await h.space(organizationId, owner);
    const analyst = await h.member(organizationId, owner, 'analyst', { spaces: [space] });
    expect((await h.request(analyst, 'GET', org(organizationId, `/clients/${space}`))).statusCode).toBe(200);
    await h.request(owner, 'DELETE', org(organizationId, `/members/${analyst.accountId}/spaces/${space}`));
    expect((await h.request(analyst, 'GET', org(organizationId, `/clients/${space}`))).statusCode).toBe(404);
    expect((await h.request(analyst, 'GET', org(organizationId))).statusCode).toBe(200);
    const removed = await h.request(owner, 'DELETE', org(organizationId, `/members/${analyst.accountId}`));
    expect(removed.statusCode).toBe(204);
    const fresh = await h.login(analyst);
    expect((await h.request(fresh, 'GET', org(organizationId))).statusCode).toBe(404);
  });

  it('Authentication 1: a session switched to an organization stays restricted to it', async () => {
    const first = await h.trialOrganization();
    const second = await h.trialOrganization();
    const both = await h.member(first.organizationId, first.owner, 'analyst');
    // Staff of one organization at most: the second membership is an external client's.
    const invitation = await h.ok(second.owner, 'POST', org(second.organizationId, '/invitations'), {
      email: both.email,
      role: 'external_client',
    });
    await h.ok(both, 'POST', org(second.organizationId, `/invitations/${invitation.id as string}/accept`));
    await h.switchTo(both, first.organizationId);
    expect((await h.request(both, 'GET', org(second.organizationId))).statusCode).toBe(404);
    expect((await h.request(both, 'POST', org(second.organizationId, '/switch'))).statusCode).toBe(404);
    const listed = (await h.ok(both, 'GET', '/api/v2/organizations')).organizations as Array<{ id: string }>;
    expect(listed.map((o) => o.id)).toEqual([first.organizationId]);
  });

  it('rule 12: ownership transfer needs the recipient to accept; billing and transfer stay owner-only', async () => {
    const { owner, organizationId } = await h.trialOrganization();
    const administrator = await h.member(organizationId, owner, 'administrator');
    const analyst = await h.member(organizationId, owner, 'analyst');
    const byAdmin = await h.request(administrator, 'POST', org(organizationId, '/ownership-transfer'), {
      account_id: analyst.accountId,
    });
    expect(byAdmin.statusCode).toBe(403);
    expect(
      (await h.request(administrator, 'PUT', org(organizationId, '/billing'), { plan: 'business' }))
        .statusCode,
    ).toBe(403);
    await h.ok(owner, 'POST', org(organizationId, '/ownership-transfer'), {
      account_id: administrator.accountId,
    });
    expect(await h.ok(owner, 'GET', org(organizationId))).toMatchObject({
      owner_account_id: owner.accountId,
    });
    expect(
      (await h.request(analyst, 'POST', org(organizationId, '/ownership-transfer/accept'))).statusCode,
    ).toBe(404);
    const accepted = await h.ok(administrator, 'POST', org(organizationId, '/ownership-transfer/accept'));
    expect(accepted).toMatchObject({ owner_account_id: administrator.accountId, role: 'owner' });
    expect(await h.ok(owner, 'GET', org(organizationId))).toMatchObject({ role: 'administrator' });
  });

  it('Roles: a member change is all-or-nothing: a refused portion leaves the role and the staff seat as they were', async () => {
    const { owner, organizationId } = await h.trialOrganization();
    const space = await h.space(organizationId, owner);
    const external = await h.member(organizationId, owner, 'external_client', { spaces: [space] });
    const log = service.context.storage.eventStore;
    const seatBefore = await log.readStream(`staff-seat-${external.accountId}`);
    const organizationBefore = await log.readStream(`organization-${organizationId}`);

    // A portion applies to external users only: made an analyst, the member cannot keep one.
    const refused = await h.request(owner, 'PATCH', org(organizationId, `/members/${external.accountId}`), {
      role: 'analyst',
      portion: 2,
    });
    expect(refused.statusCode).toBe(422);
    expect(json(refused.body)).toMatchObject({ code: 'invalid_input' });
    expect(await log.readStream(`staff-seat-${external.accountId}`)).toHaveLength(seatBefore.length);
    expect(await log.readStream(`organization-${organizationId}`)).toHaveLength(organizationBefore.length);
    const members = (await h.ok(owner, 'GET', org(organizationId, '/members'))).members as unknown[];
    expect(members).toContainEqual(
      expect.objectContaining({ account_id: external.accountId, role: 'external_client' }),
    );

    // The same change without the portion goes through whole.
    await h.ok(owner, 'PATCH', org(organizationId, `/members/${external.accountId}`), { role: 'analyst' });
    expect((await log.readStream(`staff-seat-${external.accountId}`)).map((e) => e.type)).toEqual([
      'StaffSeatTaken',
    ]);
  });
});

describe('projections: one-event batches', () => {
  it('every projection takes each event of this log on its own and builds the documents it holds live', async () => {
    await expectOneEventBatchesToRebuildLiveDocuments(service);
  });
});
