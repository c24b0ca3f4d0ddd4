/**
 * An account is staff of at most one organization at a time, even when acceptances race (issue 13, organization
 * rules; review findings on the staff seat). Two acceptances (or promotions) in two organizations at once: exactly
 * one wins, the other is 409 `staff_of_another_organization`. A refused acceptance writes nothing; one that fails
 * after taking the seat releases it. Real HTTP (fastify inject) on PGlite and the PostgreSQL server; domain proofs
 * through a loopback DNS server. Where a test needs a precise interleaving, it holds one append of the real event
 * store until the other request has answered.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { LightMyRequestResponse } from 'fastify';
import { memberOf, organizationDecider } from '../../src/organizations/domain/organization.js';
import { isStaff } from '../../src/organizations/domain/roles.js';
import { commandEnvelope } from '../../src/platform/event-sourcing/command-metadata.js';
import { EventSourcedRepository } from '../../src/platform/event-sourcing/event-sourced-repository.js';
import type { EventStore } from '../../src/platform/event-store/event-store.port.js';
import { SQL_KINDS } from '../support/databases.js';
import { TestDnsServer } from '../support/dns-server.js';
import { OrganizationHarness, operator, type Actor } from '../support/organizations.js';
import { startTestService, type TestService } from '../support/service.js';
import { waitUntil } from '../support/storage.js';

type Organization = { owner: Actor; organizationId: string };

const ROUNDS = 6;

describe.each(SQL_KINDS)('an account is staff of at most one organization at a time (%s)', (kind) => {
  let dns: TestDnsServer;
  let service: TestService;
  let h: OrganizationHarness;
  let a: Organization;
  let b: Organization;

  const org = (id: string, rest = '') => `/api/v2/organizations/${id}${rest}`;
  const log = (): EventStore => service.context.storage.eventStore;
  const seatStream = (accountId: string) => `staff-seat-${accountId}`;

  async function invite(to: Organization, person: Actor, role: 'analyst' | 'external_client') {
    const invitation = await h.ok(to.owner, 'POST', org(to.organizationId, '/invitations'), {
      email: person.email,
      role,
    });
    return invitation.id as string;
  }

  function accept(person: Actor, to: Organization, invitationId: string): Promise<LightMyRequestResponse> {
    return h.request(person, 'POST', org(to.organizationId, `/invitations/${invitationId}/accept`));
  }

  function promote(to: Organization, person: Actor): Promise<LightMyRequestResponse> {
    return h.request(to.owner, 'PATCH', org(to.organizationId, `/members/${person.accountId}`), {
      role: 'analyst',
    });
  }

  /** The organizations whose own stream (folded now, not a read model) holds the account as staff. */
  async function staffIn(person: Actor, organizations: Organization[]): Promise<string[]> {
    const found: string[] = [];
    for (const { organizationId } of organizations) {
      const { state } = await h.workspace.gate.organization(organizationId);
      const member = memberOf(state, person.accountId);
      if (member && isStaff(member.role)) found.push(organizationId);
    }
    return found;
  }

  /** Exactly one answer is a success, the other the staff-of-another-organization refusal in the one shape. */
  function expectOneWinner(answers: LightMyRequestResponse[]): number {
    const winners = answers.filter((answer) => answer.statusCode === 200);
    const losers = answers.filter((answer) => answer.statusCode !== 200);
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 409]);
    expect(losers[0]!.json()).toMatchObject({
      code: 'staff_of_another_organization',
      message: expect.any(String),
      request_id: expect.any(String),
    });
    expect(winners).toHaveLength(1);
    return answers.indexOf(winners[0]!);
  }

  /**
   * Holds the append of the first event of `type` for `accountId` to `streamId` until `release` resolves; answers
   * a promise that settles once that append is being held.
   */
  function holdAppend(streamId: string, type: string, accountId: string, release: Promise<unknown>) {
    const store = log();
    const append = store.append.bind(store);
    let held!: () => void;
    const reached = new Promise<void>((resolve) => (held = resolve));
    let done = false;
    store.append = async (stream, events, options) => {
      const matches = events.some(
        (event) => event.type === type && (event.data as { accountId?: string }).accountId === accountId,
      );
      if (!done && stream === streamId && matches) {
        done = true;
        held();
        await release.catch(() => undefined);
      }
      return append(stream, events, options);
    };
    return {
      reached,
      restore: () => {
        store.append = append;
      },
    };
  }

  beforeAll(async () => {
    dns = await TestDnsServer.start();
    service = await startTestService(kind, { env: { DNS_SERVERS: dns.address, DNS_TIMEOUT_MS: '2000' } });
    await waitUntil(() => service.context.projections.allLive());
    h = new OrganizationHarness(service, dns);
    a = await h.trialOrganization();
    b = await h.trialOrganization();
  }, 120_000);

  afterAll(async () => {
    await service?.dispose();
    await dns?.close();
  });

  it('two staff acceptances at once in two organizations: exactly one wins, the other is 409 staff_of_another_organization', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const person = await h.account();
      const [inA, inB] = await Promise.all([invite(a, person, 'analyst'), invite(b, person, 'analyst')]);
      const answers = await Promise.all([accept(person, a, inA), accept(person, b, inB)]);
      const winner = expectOneWinner(answers);
      expect(await staffIn(person, [a, b])).toEqual([[a, b][winner]!.organizationId]);
    }
  }, 120_000);

  it('two promotions to staff at once in two organizations: exactly one wins, the other is 409 staff_of_another_organization', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const person = await h.account();
      const [inA, inB] = await Promise.all([
        invite(a, person, 'external_client'),
        invite(b, person, 'external_client'),
      ]);
      expect((await accept(person, a, inA)).statusCode).toBe(200);
      expect((await accept(person, b, inB)).statusCode).toBe(200);
      const answers = await Promise.all([promote(a, person), promote(b, person)]);
      const winner = expectOneWinner(answers);
      expect(await staffIn(person, [a, b])).toEqual([[a, b][winner]!.organizationId]);
    }
  }, 120_000);

  it('an acceptance whose seat is taken but whose membership is not recorded yet keeps the seat: the other organization cannot take it over', async () => {
    const person = await h.account();
    const [inA, inB] = await Promise.all([invite(a, person, 'analyst'), invite(b, person, 'analyst')]);
    let answered!: (value: unknown) => void;
    const otherAnswered = new Promise((resolve) => (answered = resolve));
    // A's acceptance took the seat; its membership waits until B's acceptance has answered.
    const hold = holdAppend(
      `organization-${a.organizationId}`,
      'MemberAdded',
      person.accountId,
      otherAnswered,
    );
    try {
      const first = accept(person, a, inA);
      await hold.reached;
      const second = await accept(person, b, inB);
      answered(undefined);
      expect(second.statusCode).toBe(409);
      expect(second.json()).toMatchObject({ code: 'staff_of_another_organization' });
      expect((await first).statusCode).toBe(200);
    } finally {
      answered(undefined);
      hold.restore();
    }
    expect(await staffIn(person, [a, b])).toEqual([a.organizationId]);
  }, 60_000);

  it('a refused acceptance writes nothing: no staff seat, no membership', async () => {
    const closing = await h.trialOrganization();
    const person = await h.account();
    const invitationId = await invite(closing, person, 'analyst');
    // Awaiting payment, the organization is restricted (rule 14): acceptances are refused.
    await h.workspace.operator(closing.organizationId, { type: 'EndTrial', early: true }, operator());
    const before = await log().readStream(`organization-${closing.organizationId}`);

    const refused = await accept(person, closing, invitationId);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'organization_restricted' });
    expect(await log().readStream(seatStream(person.accountId))).toEqual([]);
    expect(await log().readStream(`organization-${closing.organizationId}`)).toHaveLength(before.length);

    // Still free: the account becomes staff elsewhere at once.
    const elsewhere = await invite(a, person, 'analyst');
    expect((await accept(person, a, elsewhere)).statusCode).toBe(200);
    expect(await staffIn(person, [a, closing])).toEqual([a.organizationId]);
  }, 60_000);

  it('an acceptance that fails after taking the seat releases it: the account is free to be staff elsewhere at once', async () => {
    const person = await h.account();
    const [inA, inB] = await Promise.all([invite(a, person, 'analyst'), invite(b, person, 'analyst')]);
    // Every time A's membership is about to be appended, the owner renames A first through another instance (its
    // own repository on the same store): the acceptance keeps losing its organization's version and gives up with
    // 409 version_conflict.
    const store = log();
    const append = store.append.bind(store);
    const otherInstance = new EventSourcedRepository(store, service.context.storage.readStore);
    let renames = 0;
    store.append = async (stream, events, options) => {
      if (
        stream === `organization-${a.organizationId}` &&
        events.some((event) => event.type === 'MemberAdded')
      ) {
        renames += 1;
        await otherInstance.handle(
          stream,
          organizationDecider,
          { type: 'RenameOrganization', name: `Renamed ${renames} ${Date.now()}` },
          { now: new Date(), actorAccountId: a.owner.accountId },
          commandEnvelope({ actor: `account:${a.owner.accountId}`, payer: 'system' }),
        );
      }
      return append(stream, events, options);
    };
    let failed: LightMyRequestResponse;
    try {
      failed = await accept(person, a, inA);
    } finally {
      store.append = append;
    }
    expect(failed.statusCode).toBe(409);
    expect(failed.json()).toMatchObject({ code: 'version_conflict' });
    expect(renames).toBeGreaterThan(1);
    const seat = await log().readStream(seatStream(person.accountId));
    expect(seat.at(-1)?.type).toBe('StaffSeatReleased');
    expect(await staffIn(person, [a, b])).toEqual([]);

    // Nothing moved in A since, and yet the seat is free.
    expect((await accept(person, b, inB)).statusCode).toBe(200);
    expect(await staffIn(person, [a, b])).toEqual([b.organizationId]);
  }, 60_000);
});
