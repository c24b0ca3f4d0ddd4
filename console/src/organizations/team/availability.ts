import type { Organization } from '../../app/organization-frame';
import type { CaseSummary, SessionContext, Space } from './queries';

const words = (value: string): string => value.replaceAll('_', ' ');

/**
 * Why a search cannot run yet, from what the service answered: a restricted organization (rule 14) or no space
 * selected in this session (rule 2). Never a personal payer instead (rule 1).
 */
export function searchUnavailable(
  organization: Pick<Organization, 'restricted' | 'status' | 'action'>,
  context: Pick<SessionContext, 'space_id'>,
): string | null {
  if (organization.restricted) {
    return `The organization is ${words(organization.status)}${organization.action ? `: ${organization.action}` : ''}. Searches are unavailable until then; nothing is charged to a personal account.`;
  }
  if (!context.space_id) return 'Choose a space before searching: General research or a client.';
  return null;
}

/** Why the selected records cannot be saved as evidence yet (rules 3 and 4), or null. */
export function evidenceUnavailable(input: {
  readonly organization: Pick<Organization, 'restricted' | 'status' | 'action'>;
  readonly space: Pick<Space, 'kind'> | undefined;
  readonly selectedCaseId: string | null;
  readonly selectedCase: Pick<CaseSummary, 'status'> | null;
  readonly searchId: string | null;
  readonly records: number;
  readonly note: string;
}): string | null {
  const { organization, space, selectedCase } = input;
  if (organization.restricted) {
    return `The organization is ${words(organization.status)}: ${organization.action ?? 'restricted'}.`;
  }
  if (!input.searchId) return 'This search has no completed organization search to save from.';
  if (space?.kind === 'general') {
    return 'General research owns no cases: choose a client space and search again there to save evidence (rule 3).';
  }
  if (!selectedCase) {
    return input.selectedCaseId
      ? 'The selected case is no longer available: choose another case.'
      : 'Choose a case of this space first.';
  }
  if (selectedCase.status === 'archived')
    return 'The selected case is archived: choose an open case instead.';
  if (input.records === 0) return 'Select at least one record.';
  if (!input.note.trim()) return 'Write a note.';
  return null;
}
