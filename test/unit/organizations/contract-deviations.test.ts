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
  it('joining a second organization as staff is refused with staff_of_another_organization', () => {
    seat
      .given()
      .when(
        { type: 'TakeStaffSeat', organizationId: 'org-b', checked: ['org-a'], staffIn: ['org-a'] },
        context,
      )
      .then('staff_of_another_organization');
  });

  it('the first staff seat is taken; a seat whose organization no longer holds the account is taken over', () => {
    const first = seat
      .given()
      .when({ type: 'TakeStaffSeat', organizationId: 'org-a', checked: [], staffIn: [] }, context)
      .then([
        {
          type: 'StaffSeatTaken',
          data: { organizationId: 'org-a', previous: null, takenAt: now.toISOString() },
        },
      ]);
    seat
      .given(first.events)
      .when({ type: 'TakeStaffSeat', organizationId: 'org-b', checked: ['org-a'], staffIn: [] }, context)
      .then([
        {
          type: 'StaffSeatTaken',
          data: { organizationId: 'org-b', previous: 'org-a', takenAt: now.toISOString() },
        },
      ]);
    seat
      .given(first.events)
      .when({ type: 'TakeStaffSeat', organizationId: 'org-a', checked: [], staffIn: [] }, context)
      .then([]);
  });

  it('a seat taken by an organization the facts did not cover is a conflict, never a silent takeover', () => {
    const taken = seat
      .given()
      .when({ type: 'TakeStaffSeat', organizationId: 'org-a', checked: [], staffIn: [] }, context)
      .decided();
    seat
      .given(taken.events)
      .when({ type: 'TakeStaffSeat', organizationId: 'org-b', checked: [], staffIn: [] }, context)
      .then('version_conflict');
  });
});
