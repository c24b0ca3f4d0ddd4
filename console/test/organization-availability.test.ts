import { describe, expect, it } from 'vitest';
import { evidenceUnavailable, searchUnavailable } from '../src/organizations/team/availability';

const active = { restricted: false, status: 'active', action: null } as const;
const awaitingPayment = {
  restricted: true,
  status: 'awaiting_payment',
  action: 'complete checkout in billing',
} as const;

describe('organization workspace availability', () => {
  it('rules 2 and 14: a search needs a space and an organization that is not restricted', () => {
    expect(searchUnavailable(active, { space_id: null })).toBe(
      'Choose a space before searching: General research or a client.',
    );
    expect(searchUnavailable(active, { space_id: 'general' })).toBeNull();
    // The restriction answers first, with what lifts it, and names no other payer.
    expect(searchUnavailable(awaitingPayment, { space_id: 'client' })).toBe(
      'The organization is awaiting payment: complete checkout in billing. Searches are unavailable until then; nothing is charged to a personal account.',
    );
  });

  const ready = {
    organization: active,
    space: { kind: 'client' },
    selectedCaseId: 'case-1',
    selectedCase: { status: 'open' },
    searchId: 'search-1',
    records: 3,
    note: 'exposed panel',
  } as const;

  it('rule 4: saving needs a completed search, an open case of a client space, records and a note', () => {
    expect(evidenceUnavailable(ready)).toBeNull();
    expect(evidenceUnavailable({ ...ready, searchId: null })).toMatch(/no completed organization search/);
    expect(evidenceUnavailable({ ...ready, records: 0 })).toBe('Select at least one record.');
    expect(evidenceUnavailable({ ...ready, note: '  ' })).toBe('Write a note.');
    expect(evidenceUnavailable({ ...ready, selectedCaseId: null, selectedCase: null })).toBe(
      'Choose a case of this space first.',
    );
  });

  it('rule 4: an archived or vanished case must be replaced; rule 3: General research owns no case', () => {
    expect(evidenceUnavailable({ ...ready, selectedCase: { status: 'archived' } })).toBe(
      'The selected case is archived: choose an open case instead.',
    );
    expect(evidenceUnavailable({ ...ready, selectedCase: null })).toBe(
      'The selected case is no longer available: choose another case.',
    );
    expect(evidenceUnavailable({ ...ready, space: { kind: 'general' } })).toMatch(
      /^General research owns no cases: choose a client space and search again there/,
    );
    expect(evidenceUnavailable({ ...ready, organization: awaitingPayment })).toBe(
      'The organization is awaiting payment: complete checkout in billing.',
    );
  });
});
