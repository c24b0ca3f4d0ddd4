/**
 * Issue 13, organization rules the black-box review found broken: each test names the contract rule and proves
 * it on the pure domain (deciders and policies).
 */
import { describe, expect, it } from '@jest/globals';
import {
  registrableDomain,
  requireBusinessDomain,
} from '../../../src/organizations/domain/business-domain.js';
import {
  organizationDecider,
  type OrganizationEvent,
} from '../../../src/organizations/domain/organization.js';
import {
  creditView,
  seesEvidence,
  seesStaff,
  visibleAuthor,
} from '../../../src/organizations/domain/policies.js';
import { can, ROLES } from '../../../src/organizations/domain/roles.js';
import { staffSeatDecider } from '../../../src/organizations/domain/staff-seat.js';
import { deciderSpec } from '../../support/decider-spec.js';

const now = new Date('2026-03-01T10:00:00.000Z');
const org = deciderSpec(organizationDecider);
const seat = deciderSpec(staffSeatDecider);

const created = organizationDecider.decide(
  {
    type: 'CreateOrganization',
    organizationId: 'org-1',
    name: 'Acme',
    ownerAccountId: 'owner-1',
    start: 'trial',
    domain: 'eu.acme.example.co.uk',
    verificationToken: 'tok',
    generalSpaceId: 'general-1',
    transfer: { transferId: 't-1', credits: 0 },
  },
  organizationDecider.initialState,
  { now, actorAccountId: 'owner-1' },
) as OrganizationEvent[];

describe('rule 5: a trial is granted once per registrable domain (public suffix list)', () => {
  it('subdomains share their registrable domain; suffixes of the list (public and private) are respected', () => {
    expect(registrableDomain('acme.example')).toBe('acme.example');
    expect(registrableDomain('eu.sales.acme.example')).toBe('acme.example');
    expect(registrableDomain('eu.acme.example.co.uk')).toBe('example.co.uk');
    expect(registrableDomain('acme.co.uk')).toBe('acme.co.uk');
    // github.io is a private suffix: each project under it is its own registrant's domain.
    expect(registrableDomain('acme.github.io')).toBe('acme.github.io');
    expect(registrableDomain('co.uk')).toBeNull();
  });

  it('a public suffix is not a business domain to verify', () => {
    expect(() => requireBusinessDomain('co.uk')).toThrow(/public suffix/);
    expect(requireBusinessDomain('Sub.Acme.Example.')).toBe('sub.acme.example');
  });

  it('the refusal names the registrable domain that already had its trial', () => {
    const refused = org
      .given(created)
      .when(
        {
          type: 'VerifyDomain',
          txt: [['exposure-verification=tok']],
          domainAlreadyUsedForTrial: true,
          accountAlreadyHadTrial: false,
          approvalRequired: false,
        },
        { now, actorAccountId: 'owner-1' },
      )
      .then('trial_ineligible');
    expect(refused.details).toEqual({ reason: 'domain_already_used', registrable_domain: 'example.co.uk' });
  });
});

describe('Roles: renaming an organization is an organization setting (owner only)', () => {
  it('only the owner holds organization.settings', () => {
    expect(ROLES.filter((role) => can(role, 'organization.settings'))).toEqual(['owner']);
  });

  it('an administrator cannot rename; the owner can', () => {
    const active = [
      ...created,
      {
        type: 'OrganizationStatusChanged',
        data: { from: 'pending_verification', to: 'active', changedAt: '' },
      },
      {
        type: 'MemberAdded',
        data: {
          accountId: 'admin-1',
          role: 'administrator',
          spaces: [],
          portion: null,
          invitationId: null,
          addedAt: '',
        },
      },
    ] as OrganizationEvent[];
    org
      .given(active)
      .when({ type: 'RenameOrganization', name: 'Renamed' }, { now, actorAccountId: 'admin-1' })
      .then('forbidden');
    expect(
      org
        .given(active)
        .when({ type: 'RenameOrganization', name: 'Renamed' }, { now, actorAccountId: 'owner-1' })
        .decided()
        .events.map((e) => e.type),
    ).toEqual(['OrganizationRenamed']);
  });
});

describe('rule 8: each member sees only the credits it may see', () => {
  const envelopes = [
    { key: 'space:s', limit: 50, available: 40 },
    { key: 'member:m', limit: 20, available: 12 },
  ];
  it('managers see the shared balance; analysts and external clients their tightest envelope', () => {
    expect(creditView('owner', 900, envelopes)).toEqual({ scope: 'shared', available: 900 });
    expect(creditView('administrator', 900, envelopes)).toEqual({ scope: 'shared', available: 900 });
    expect(creditView('external_client', 900, envelopes)).toEqual({
      scope: 'envelope',
      available: 12,
      envelopes,
    });
    expect(creditView('analyst', 5, envelopes)).toMatchObject({ scope: 'envelope', available: 5 });
  });
});

describe('rule 11: external clients keep only their published view', () => {
  it('no staff list, no staff identities, only client-visible evidence', () => {
    expect(ROLES.filter((role) => can(role, 'members.read'))).toEqual(['owner', 'administrator', 'analyst']);
    expect(seesStaff('external_client')).toBe(false);
    expect(seesEvidence('external_client', 'internal')).toBe(false);
    expect(seesEvidence('external_client', 'client')).toBe(true);
    expect(seesEvidence('analyst', 'internal')).toBe(true);
    expect(visibleAuthor('external_client', 'ext-1', 'owner-1')).toBeNull();
    expect(visibleAuthor('external_client', 'ext-1', 'ext-1')).toBe('ext-1');
    expect(visibleAuthor('analyst', 'an-1', 'owner-1')).toBe('owner-1');
  });
});

describe('an account is staff of at most one organization at a time', () => {
  const context = { now };
  const takenAt = now.toISOString();
  const folded = (organizationId: string, version: number | null, staff: boolean) => ({
    organizationId,
    version,
    staff,
  });
  const take = (
    organizationId: string,
    organizationVersion: number,
    checked = [] as ReturnType<typeof folded>[],
  ) => ({ type: 'TakeStaffSeat', organizationId, organizationVersion, checked }) as const;

  it('joining a second organization as staff is refused with staff_of_another_organization', () => {
    seat
      .given()
      .when(take('org-b', 3, [folded('org-a', 7, true)]), context)
      .then('staff_of_another_organization');
  });

  it('the first staff seat is claimed at the version its change was decided on; the same claim again decides nothing', () => {
    const first = seat
      .given()
      .when(take('org-a', 4), context)
      .then([
        {
          type: 'StaffSeatTaken',
          data: { organizationId: 'org-a', organizationVersion: 4, previous: null, takenAt },
        },
      ]);
    expect(first.state).toEqual({ holder: 'org-a', claim: { organizationVersion: 4 } });
    seat.given(first.events).when(take('org-a', 4), context).then([]);
    // The change lost its version and is decided again: a new claim.
    seat
      .given(first.events)
      .when(take('org-a', 6), context)
      .then([
        {
          type: 'StaffSeatTaken',
          data: { organizationId: 'org-a', organizationVersion: 6, previous: 'org-a', takenAt },
        },
      ]);
  });

  it("a claim holds the seat while its organization's stream has not moved past the claimed version, even though the account is not staff there yet", () => {
    const claimed = seat.given().when(take('org-a', 4), context).decided();
    seat
      .given(claimed.events)
      .when(take('org-b', 9, [folded('org-a', 4, false)]), context)
      .then('staff_of_another_organization');
  });

  it('once the holder moved past its claim and the account is not staff there (removed, demoted, or the change never landed), the seat is taken over', () => {
    const claimed = seat.given().when(take('org-a', 4), context).decided();
    seat
      .given(claimed.events)
      .when(take('org-b', 9, [folded('org-a', 5, true)]), context)
      .then('staff_of_another_organization');
    seat
      .given(claimed.events)
      .when(take('org-b', 9, [folded('org-a', 12, false)]), context)
      .then([
        {
          type: 'StaffSeatTaken',
          data: { organizationId: 'org-b', organizationVersion: 9, previous: 'org-a', takenAt },
        },
      ]);
  });

  it('a released claim frees the seat at once; the holder is still folded, so a change that landed after all still counts', () => {
    const claimed = seat.given().when(take('org-a', 4), context).decided();
    const released = seat
      .given(claimed.events)
      .when({ type: 'ReleaseStaffSeat', organizationId: 'org-a', organizationVersion: 4 }, context)
      .then([
        {
          type: 'StaffSeatReleased',
          data: { organizationId: 'org-a', organizationVersion: 4, releasedAt: takenAt },
        },
      ]);
    expect(released.state).toEqual({ holder: 'org-a', claim: null });
    const history = [...claimed.events, ...released.events];
    seat
      .given(history)
      .when(take('org-b', 9, [folded('org-a', 4, false)]), context)
      .then([
        {
          type: 'StaffSeatTaken',
          data: { organizationId: 'org-b', organizationVersion: 9, previous: 'org-a', takenAt },
        },
      ]);
    seat
      .given(history)
      .when(take('org-b', 9, [folded('org-a', 5, true)]), context)
      .then('staff_of_another_organization');
  });

  it('only the claim a failed change took is released: a seat taken over or claimed again since stays', () => {
    const claimed = seat.given().when(take('org-a', 4), context).decided();
    const again = seat.given(claimed.events).when(take('org-a', 6), context).decided();
    const history = [...claimed.events, ...again.events];
    seat
      .given(history)
      .when({ type: 'ReleaseStaffSeat', organizationId: 'org-a', organizationVersion: 4 }, context)
      .then([]);
    seat
      .given(history)
      .when({ type: 'ReleaseStaffSeat', organizationId: 'org-b', organizationVersion: 6 }, context)
      .then([]);
  });

  it('a seat taken by an organization the facts did not cover is a conflict, never a silent takeover', () => {
    const taken = seat.given().when(take('org-a', 4), context).decided();
    seat.given(taken.events).when(take('org-b', 9), context).then('version_conflict');
  });

  it('a seat taken before claims were versioned counts as settled: the fold of its holder decides', () => {
    const legacy = [
      {
        type: 'StaffSeatTaken' as const,
        data: { organizationId: 'org-a', previous: null, takenAt },
      },
    ];
    expect(seat.given(legacy).state).toEqual({ holder: 'org-a', claim: null });
    seat
      .given(legacy)
      .when(take('org-b', 9, [folded('org-a', 4, false)]), context)
      .decided();
  });
});
