import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { caseDecider, type CaseEvent } from '../../../src/organizations/domain/case.js';
import {
  organizationDecider,
  type OrganizationEvent,
  type OrganizationCommand,
} from '../../../src/organizations/domain/organization.js';
import { creationRefusal, redactWhoisRecord } from '../../../src/organizations/domain/policies.js';
import { requireSelectable, spaceDecider, type SpaceEvent } from '../../../src/organizations/domain/space.js';
import { ledgerDecider, type LedgerContext, type LedgerState } from '../../../src/credits/domain/ledger.js';
import { allOrNothing } from '../../../src/platform/event-sourcing/decider.js';
import { deciderSpec } from '../../support/decider-spec.js';

const now = new Date('2026-03-01T10:00:00.000Z');
const OWNER = 'owner-1';
const ADMIN = 'admin-1';
const ANALYST = 'analyst-1';
const org = deciderSpec(organizationDecider);

const created: OrganizationEvent[] = organizationDecider.decide(
  {
    type: 'CreateOrganization',
    organizationId: 'org-1',
    name: 'Acme',
    ownerAccountId: OWNER,
    start: 'trial',
    domain: 'acme.example',
    verificationToken: 'tok',
    generalSpaceId: 'general-1',
    transfer: { transferId: 't-1', credits: 10 },
  },
  organizationDecider.initialState,
  { now, actorAccountId: OWNER },
) as OrganizationEvent[];
const record = {
  type: 'TXT' as const,
  name: '_exposure-verification.acme.example',
  value: 'exposure-verification=tok',
};
const verify = (facts: Partial<{ d: boolean; a: boolean; approval: boolean }> = {}): OrganizationCommand => ({
  type: 'VerifyDomain',
  txt: [[record.value]],
  domainAlreadyUsedForTrial: facts.d ?? false,
  accountAlreadyHadTrial: facts.a ?? false,
  approvalRequired: facts.approval ?? false,
});
const active = [
  ...created,
  ...(organizationDecider.decide(verify(), org.given(created).state, {
    now,
    actorAccountId: OWNER,
  }) as OrganizationEvent[]),
];
const member = (
  accountId: string,
  role: 'administrator' | 'analyst' | 'external_client',
): OrganizationEvent => ({
  type: 'MemberAdded',
  data: { accountId, role, spaces: [], portion: null, invitationId: null, addedAt: now.toISOString() },
});

describe('organization decider', () => {
  it('creation records the verification request and the owner', () => {
    expect(created.map((e) => e.type)).toEqual([
      'OrganizationCreated',
      'DomainVerificationRequested',
      'MemberAdded',
    ]);
    expect(org.given(created).state).toMatchObject({ status: 'pending_verification', ownerAccountId: OWNER });
  });

  it('rule 5: a missing TXT record, a used domain and a used account are refused', () => {
    org
      .given(created)
      .when({ ...verify(), txt: [['other']] } as OrganizationCommand, { now, actorAccountId: OWNER })
      .then('domain_not_verified');
    org
      .given(created)
      .when(verify({ d: true }), { now, actorAccountId: OWNER })
      .then('trial_ineligible');
    org
      .given(created)
      .when(verify({ a: true }), { now, actorAccountId: OWNER })
      .then('trial_ineligible');
  });

  it('rule 5: a verified domain starts a 14-day trial; a flagged account waits for approval', () => {
    expect(org.given(active).state).toMatchObject({ status: 'active', plan: 'trial' });
    const flagged = org
      .given(created)
      .when(verify({ approval: true }), { now, actorAccountId: OWNER })
      .decided();
    expect(flagged.state.status).toBe('pending_approval');
    expect(flagged.events.map((e) => e.type)).not.toContain('TrialStarted');
  });

  it('rule 5: the trial ends once its 14 days are over (or early, by an operator), then awaits payment', () => {
    const operator = (at: Date) => ({ now: at, actorAccountId: null });
    const day = 24 * 60 * 60 * 1000;
    const due = new Date(now.getTime() + 14 * day);
    org
      .given(active)
      .when({ type: 'EndTrial' }, operator(new Date(due.getTime() - 1)))
      .then([]);
    const ended = org
      .given(active)
      .when({ type: 'EndTrial' }, operator(due))
      .then([
        { type: 'TrialEnded', data: { endedAt: due.toISOString() } },
        {
          type: 'OrganizationStatusChanged',
          data: { from: 'active', to: 'awaiting_payment', changedAt: due.toISOString() },
        },
      ]);
    expect(ended.state).toMatchObject({ status: 'awaiting_payment', trial: { ended: true } });
    org
      .given([...active, ...ended.events])
      .when({ type: 'EndTrial' }, operator(due))
      .then([]);
    expect(
      org.given(active).when({ type: 'EndTrial', early: true }, operator(now)).decided().state.status,
    ).toBe('awaiting_payment');
    org
      .given(active)
      .when({ type: 'EndTrial', early: true }, { now, actorAccountId: OWNER })
      .then('forbidden');
  });

  it('rule 5: renaming never starts another trial', () => {
    const renamed = org
      .given(active)
      .when({ type: 'RenameOrganization', name: 'Acme 2' }, { now, actorAccountId: OWNER })
      .decided();
    expect(renamed.events.map((e) => e.type)).toEqual(['OrganizationRenamed']);
  });

  it('rule 14: a restricted organization refuses work even from the owner', () => {
    org
      .given(created)
      .when({ type: 'RenameOrganization', name: 'X' }, { now, actorAccountId: OWNER })
      .then('organization_restricted');
  });

  it('Roles: billing and the ownership transfer stay owner-only; only the recipient accepts', () => {
    const history = [...active, member(ADMIN, 'administrator'), member(ANALYST, 'analyst')];
    org
      .given(history)
      .when({ type: 'OfferOwnership', toAccountId: ANALYST }, { now, actorAccountId: ADMIN })
      .then('forbidden');
    org
      .given(history)
      .when({ type: 'RequestPlan', plan: 'teams' }, { now, actorAccountId: ADMIN })
      .then('forbidden');
    const offered = org
      .given(history)
      .when({ type: 'OfferOwnership', toAccountId: ANALYST }, { now, actorAccountId: OWNER })
      .then([
        {
          type: 'OwnershipTransferOffered',
          data: { from: OWNER, to: ANALYST, offeredAt: now.toISOString() },
        },
      ]);
    const after = [...history, ...offered.events];
    org.given(after).when({ type: 'AcceptOwnership' }, { now, actorAccountId: ADMIN }).then('not_found');
    const accepted = org
      .given(after)
      .when({ type: 'AcceptOwnership' }, { now, actorAccountId: ANALYST })
      .decided();
    expect(accepted.state.ownerAccountId).toBe(ANALYST);
    expect(accepted.state.members[OWNER]?.role).toBe('administrator');
  });

  it('Authentication 8: an analyst cannot manage members; an administrator cannot remove an administrator', () => {
    const history = [
      ...active,
      member(ADMIN, 'administrator'),
      member(ANALYST, 'analyst'),
      member('admin-2', 'administrator'),
    ];
    org
      .given(history)
      .when({ type: 'RemoveMember', accountId: ADMIN }, { now, actorAccountId: ANALYST })
      .then('forbidden');
    org
      .given(history)
      .when({ type: 'RemoveMember', accountId: 'admin-2' }, { now, actorAccountId: ADMIN })
      .then('forbidden');
    const removed = org
      .given(history)
      .when({ type: 'RemoveMember', accountId: ANALYST }, { now, actorAccountId: ADMIN })
      .decided();
    expect(removed.state.members[ANALYST]).toBeUndefined();
  });
});

describe('space decider (rule 13)', () => {
  const space = deciderSpec(spaceDecider);
  const createdSpace = spaceDecider.decide(
    {
      type: 'CreateSpace',
      spaceId: 's',
      organizationId: 'o',
      kind: 'client',
      name: 'C',
      creditLimit: 10,
      monitoring: true,
    },
    spaceDecider.initialState,
    { now },
  ) as SpaceEvent[];
  it('archiving stops the schedule and revokes shares; restoring recreates neither', () => {
    const shared = [
      ...createdSpace,
      { type: 'ShareCreated', data: { shareId: 'sh', createdAt: now.toISOString() } } as SpaceEvent,
    ];
    const archived = space.given(shared).when({ type: 'ArchiveSpace' }, { now }).decided();
    expect(archived.events.map((e) => e.type)).toEqual([
      'SpaceArchived',
      'MonitoringStopped',
      'ShareRevoked',
    ]);
    const restored = space
      .given([...shared, ...archived.events])
      .when({ type: 'RestoreSpace' }, { now })
      .decided();
    expect(restored.events.map((e) => e.type)).toEqual(['SpaceRestored']);
    expect(restored.state).toMatchObject({
      state: 'active',
      schedule: null,
      shares: { sh: { revoked: true } },
    });
  });
  it('rule 2: a session selects an active space; an archived one is restored first', () => {
    const active = space.given(createdSpace).state;
    expect(() => requireSelectable(active)).not.toThrow();
    const archived = space.given([
      ...createdSpace,
      { type: 'SpaceArchived', data: { archivedAt: now.toISOString() } } as SpaceEvent,
    ]).state;
    expect(() => requireSelectable(archived)).toThrow(
      expect.objectContaining({ code: 'forbidden', message: 'the space is archived: restore it first' }),
    );
  });
  it('credit_limit follows the contract limits (6 to 1,000,000)', () => {
    space.given(createdSpace).when({ type: 'SetCreditLimit', creditLimit: 5 }, { now }).then('invalid_input');
  });
  it('rule 13: updates decided together are all-or-nothing: a refused limit on an archived space decides no rename', () => {
    const together = deciderSpec(allOrNothing(spaceDecider));
    const archived = [
      ...createdSpace,
      { type: 'SpaceArchived', data: { archivedAt: now.toISOString() } },
    ] as SpaceEvent[];
    together
      .given(archived)
      .when(
        [
          { type: 'RenameSpace', name: 'Renamed' },
          { type: 'SetCreditLimit', creditLimit: 50 },
        ],
        { now },
      )
      .then('forbidden');
    // Each command sees the state the ones before it leave: a restore makes the limit acceptable.
    const restored = together
      .given(archived)
      .when([{ type: 'RestoreSpace' }, { type: 'SetCreditLimit', creditLimit: 50 }], { now })
      .decided();
    expect(restored.events.map((e) => e.type)).toEqual(['SpaceRestored', 'CreditLimitSet']);
  });
  it('rule 13: one update decides the whole PATCH: a restore first, an archive last, a refused part refuses all', () => {
    const archived = [
      ...createdSpace,
      { type: 'SpaceArchived', data: { archivedAt: now.toISOString() } },
    ] as SpaceEvent[];
    // Sent with an archive, the rename and the limit apply first, to the active space.
    const archiving = space
      .given(createdSpace)
      .when({ type: 'UpdateSpace', name: 'Renamed', creditLimit: 40, state: 'archived' }, { now })
      .decided();
    expect(archiving.events.map((e) => e.type)).toEqual([
      'SpaceRenamed',
      'CreditLimitSet',
      'SpaceArchived',
      'MonitoringStopped',
    ]);
    // Sent with a restore, they apply after it.
    const restoring = space
      .given(archived)
      .when({ type: 'UpdateSpace', state: 'active', creditLimit: null }, { now })
      .decided();
    expect(restoring.events.map((e) => e.type)).toEqual(['SpaceRestored', 'CreditLimitSet']);
    expect(restoring.state).toMatchObject({ state: 'active', creditLimit: null });
    // Archived, a limit is refused, and the rename sent with it is not decided either.
    space
      .given(archived)
      .when({ type: 'UpdateSpace', name: 'Half applied', creditLimit: 50 }, { now })
      .then('forbidden');
    // Absent fields are left as they are; nothing asked, nothing decided.
    space.given(createdSpace).when({ type: 'UpdateSpace' }, { now }).then([]);
    space
      .given(createdSpace)
      .when({ type: 'UpdateSpace', state: 'paused' as 'active' }, { now })
      .then('invalid_input');
  });
});

describe('case decider (rules 3, 4)', () => {
  const cases = deciderSpec(caseDecider);
  const opened: CaseEvent[] = [
    {
      type: 'CaseOpened',
      data: {
        caseId: 'c',
        organizationId: 'o',
        spaceId: 's',
        title: 'T',
        openedBy: 'a',
        openedAt: now.toISOString(),
      },
    },
  ];
  const search = {
    searchId: 'q',
    organizationId: 'o',
    spaceId: 's',
    spaceKind: 'client' as const,
    records: { 'hosts:1': { id: '1' }, 'hosts:2': { id: '2' } },
  };
  /** The saver still reaches the case, in an active space (facts of the organization and space streams). */
  const reached = { now, selectedCase: { reachable: true, spaceArchived: false } };
  const save = (over: object = {}) => ({
    type: 'SaveEvidence' as const,
    evidenceId: 'e',
    search,
    records: [{ dataset: 'hosts', id: '2' }],
    note: 'n',
    visibility: undefined,
    savedBy: 'a',
    savedByStaff: true,
    ...over,
  });
  it('General research owns no new case', () => {
    cases
      .given([])
      .when(
        {
          type: 'OpenCase',
          caseId: 'c',
          organizationId: 'o',
          spaceId: 'g',
          spaceKind: 'general',
          spaceArchived: false,
          title: 'T',
          openedBy: 'a',
        },
        { now },
      )
      .then('forbidden');
  });
  it('a search of another space needs a rerun; an archived case must be replaced; staff default to internal', () => {
    cases
      .given(opened)
      .when(save({ search: { ...search, spaceId: 'g', spaceKind: 'general' } }), reached)
      .then('rerun_required');
    cases
      .given([...opened, { type: 'CaseArchived', data: { archivedAt: now.toISOString() } }])
      .when(save(), reached)
      .then('case_unavailable');
    const saved = cases.given(opened).when(save(), reached).decided();
    expect(saved.events[0]).toMatchObject({
      data: { visibility: 'internal', records: [{ id: '2', source: { id: '2' } }] },
    });
    const external = cases
      .given(opened)
      .when(save({ savedByStaff: false }), reached)
      .decided();
    expect(external.events[0]).toMatchObject({ data: { visibility: 'client' } });
  });
  it('a case the saver no longer reaches, or whose space is archived, is unavailable: another case is needed', () => {
    const unreachable = cases
      .given(opened)
      .when(save(), { now, selectedCase: { reachable: false, spaceArchived: false } })
      .then('case_unavailable');
    expect(unreachable.message).toBe('the selected case is no longer available: select another case');
    const archivedSpace = cases
      .given(opened)
      .when(save(), { now, selectedCase: { reachable: true, spaceArchived: true } })
      .then('case_unavailable');
    expect(archivedSpace.message).toBe("the selected case's space is archived: select another case");
  });
  it('the case is refused before the search: an unavailable case wins over a search the saver cannot reach', () => {
    cases
      .given(opened)
      .when(save({ search: null }), { now, selectedCase: { reachable: false, spaceArchived: false } })
      .then('case_unavailable');
    cases
      .given(opened)
      .when(save({ search: null }), reached)
      .then('not_found');
    // A case that no longer exists: an unknown search is named first, as before any case is looked at.
    cases
      .given([])
      .when(save({ search: null }), reached)
      .then('not_found');
    cases.given([]).when(save(), reached).then('case_unavailable');
  });
});

describe('policies', () => {
  it('rule 6: creation refusals in order', () => {
    expect(
      creationRefusal({
        personalPlan: 'free',
        personalPaymentProcessing: false,
        ownsOrganization: false,
        staffInOrganization: false,
        organizationSession: false,
      }),
    ).toBeNull();
    expect(
      creationRefusal({
        personalPlan: 'professional',
        personalPaymentProcessing: false,
        ownsOrganization: false,
        staffInOrganization: false,
        organizationSession: false,
      })?.code,
    ).toBe('personal_plan_active');
    expect(
      creationRefusal({
        personalPlan: 'free',
        personalPaymentProcessing: true,
        ownsOrganization: false,
        staffInOrganization: false,
        organizationSession: false,
      })?.code,
    ).toBe('personal_payment_processing');
  });
  it('rule 6 and Authentication 1: a session switched to an organization cannot create another one', () => {
    const facts = {
      personalPlan: 'free' as const,
      personalPaymentProcessing: false,
      ownsOrganization: false,
      staffInOrganization: false,
      organizationSession: true,
    };
    expect(creationRefusal(facts)?.code).toBe('organization_session');
    // Staff are told the rule that holds whatever the session: staff of one organization at most.
    expect(creationRefusal({ ...facts, staffInOrganization: true })?.code).toBe('staff_in_organization');
  });
  it('rule 7: redaction keeps organization, registrar and name servers', () => {
    expect(
      redactWhoisRecord({
        registrar: 'r',
        name_servers: ['ns'],
        registrant: { organization: 'O', name: 'N', email: 'E' },
        admin: { name: 'A', email: 'B' },
        tech: { name: 'T' },
      }),
    ).toEqual({
      registrar: 'r',
      name_servers: ['ns'],
      registrant: { organization: 'O' },
      admin: {},
      tech: {},
    });
  });
});

describe('credit envelopes (rule 8), property', () => {
  const context: LedgerContext = {
    now,
    cycle: { start: '2026-03-01T00:00:00.000Z', end: '2026-04-01T00:00:00.000Z' },
    allowance: 0,
  };
  it('settled plus reserved under an envelope never exceeds its limit, nor the balance', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 0, max: 60 }),
        fc.array(
          fc.oneof(
            fc.record({ kind: fc.constant('reserve' as const), amount: fc.integer({ min: 1, max: 15 }) }),
            fc.record({ kind: fc.constant('settle' as const), pick: fc.nat(), charge: fc.nat({ max: 15 }) }),
            fc.record({ kind: fc.constant('release' as const), pick: fc.nat() }),
          ),
          { maxLength: 40 },
        ),
        (balance, limit, steps) => {
          const envelope = { key: 'space:s', limit };
          let state: LedgerState = ledgerDecider.initialState;
          const apply = (command: Parameters<typeof ledgerDecider.decide>[0]) => {
            try {
              for (const event of ledgerDecider.decide(command, state, context))
                state = ledgerDecider.evolve(state, event);
            } catch {
              /* a refusal changes nothing */
            }
          };
          if (balance > 0) apply({ type: 'TransferIn', transferId: 'seed', credits: balance, from: 'trial' });
          let n = 0;
          for (const step of steps) {
            const open = Object.keys(state.openReservations);
            if (step.kind === 'reserve') {
              apply({
                type: 'ReserveCredits',
                reservationId: `r${n++}`,
                amount: step.amount,
                category: 'host',
                channel: 'session',
                ttlMs: 60_000,
                envelopes: [envelope],
              });
            } else if (open.length > 0) {
              const id = open[step.pick % open.length]!;
              const held = state.openReservations[id]!.amount;
              if (step.kind === 'settle')
                apply({ type: 'SettleReservation', reservationId: id, charged: Math.min(held, step.charge) });
              else apply({ type: 'ReleaseReservation', reservationId: id, reason: 'cancelled' });
            }
            const reserved = Object.values(state.openReservations).reduce((sum, r) => sum + r.amount, 0);
            const spent = state.envelopeSpent?.[envelope.key] ?? 0;
            expect(spent + reserved).toBeLessThanOrEqual(limit);
            expect(state.purchasedBalance).toBeGreaterThanOrEqual(0);
            expect(reserved).toBeLessThanOrEqual(state.purchasedBalance);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
