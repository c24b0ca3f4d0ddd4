/**
 * Cases and evidence (`case-<id>`), rules 3 and 4. A case belongs to one real client space; General research
 * cannot own new cases (historical ones stay reviewable). Saving evidence attaches up to 20 records of a
 * completed search of the same space to an existing open case, with a note and a visibility; it never creates
 * a case and never runs a search.
 */
import type { Decider, DomainEvent } from '../../platform/event-sourcing/decider.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import { invalidField } from './organization.js';
import type { SpaceKind } from './space.js';

export const MAX_EVIDENCE_RECORDS_PER_SAVE = 20;
export const MAX_NOTE_LENGTH = 4_000;
export const MAX_CASE_TITLE_LENGTH = 200;
export type Visibility = 'internal' | 'client';

export function caseStreamId(caseId: string): string {
  return `case-${caseId}`;
}

/** A record of a completed search, named by dataset and record id (never by its position in a list). */
export interface RecordRef {
  readonly dataset: string;
  readonly id: string;
}

/** What the application knows about the completed search the records come from. */
export interface CompletedSearchFacts {
  readonly searchId: string;
  readonly organizationId: string;
  readonly spaceId: string;
  readonly spaceKind: SpaceKind;
  /** The records the search returned, by `${dataset}:${id}`, with the source record as returned. */
  readonly records: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

export interface OpenCase {
  readonly type: 'OpenCase';
  readonly caseId: string;
  readonly organizationId: string;
  readonly spaceId: string;
  readonly spaceKind: SpaceKind;
  readonly spaceArchived: boolean;
  readonly title: string;
  readonly openedBy: string;
}
export interface SaveEvidence {
  readonly type: 'SaveEvidence';
  readonly evidenceId: string;
  /** Null: the saver reaches no such completed search. */
  readonly search: CompletedSearchFacts | null;
  readonly records: readonly RecordRef[];
  readonly note: string;
  /** Undefined: the role's default (staff Internal, external users client-visible). */
  readonly visibility: Visibility | undefined;
  readonly savedBy: string;
  readonly savedByStaff: boolean;
}
export interface ArchiveCase {
  readonly type: 'ArchiveCase';
}
export type CaseCommand = OpenCase | SaveEvidence | ArchiveCase;

export type CaseOpened = DomainEvent<
  'CaseOpened',
  {
    caseId: string;
    organizationId: string;
    spaceId: string;
    title: string;
    openedBy: string;
    openedAt: string;
  }
>;
export type EvidenceSaved = DomainEvent<
  'EvidenceSaved',
  {
    evidenceId: string;
    caseId: string;
    organizationId: string;
    spaceId: string;
    searchId: string;
    records: Array<{ dataset: string; id: string; source: Record<string, unknown> }>;
    note: string;
    visibility: Visibility;
    savedBy: string;
    savedAt: string;
  }
>;
export type CaseArchived = DomainEvent<'CaseArchived', { archivedAt: string }>;
export type CaseEvent = CaseOpened | EvidenceSaved | CaseArchived;

export interface CaseState {
  readonly exists: boolean;
  readonly caseId: string | null;
  readonly organizationId: string | null;
  readonly spaceId: string | null;
  readonly title: string;
  readonly status: 'open' | 'archived';
  readonly evidenceCount: number;
}

export const initialCaseState: CaseState = {
  exists: false,
  caseId: null,
  organizationId: null,
  spaceId: null,
  title: '',
  status: 'open',
  evidenceCount: 0,
};

/**
 * What a case decides with besides its own stream. `selectedCase` (saving evidence): how the saver reaches the
 * case, from the organization and space streams: `reachable` when the case is of the saver's organization in a
 * space the saver reaches, `spaceArchived` when that space is archived.
 */
export interface CaseContext {
  readonly now: Date;
  readonly selectedCase?: { readonly reachable: boolean; readonly spaceArchived: boolean };
}

export const caseDecider: Decider<CaseCommand, CaseEvent, CaseState, CaseContext> = {
  initialState: initialCaseState,
  decide(command, state, { now, selectedCase }) {
    const at = now.toISOString();
    switch (command.type) {
      case 'OpenCase': {
        if (state.exists) throw new ServiceError('already_exists', 'the case exists');
        if (command.spaceKind === 'general') {
          // Rule 3: General research cannot own new cases.
          throw new ServiceError(
            'forbidden',
            'General research cannot own new cases: select a client first',
            {
              reason: 'general_research',
            },
          );
        }
        if (command.spaceArchived)
          throw new ServiceError('forbidden', 'the space is archived: restore it first');
        const title = typeof command.title === 'string' ? command.title.trim() : '';
        if (title.length === 0 || [...title].length > MAX_CASE_TITLE_LENGTH) {
          throw invalidField('title', `must be 1 to ${MAX_CASE_TITLE_LENGTH} characters`);
        }
        return [
          {
            type: 'CaseOpened',
            data: {
              caseId: command.caseId,
              organizationId: command.organizationId,
              spaceId: command.spaceId,
              title,
              openedBy: command.openedBy,
              openedAt: at,
            },
          },
        ];
      }
      case 'SaveEvidence':
        return saveEvidence(command, state, at, selectedCase);
      case 'ArchiveCase':
        if (!state.exists) throw new ServiceError('not_found', 'no such case');
        return state.status === 'archived' ? [] : [{ type: 'CaseArchived', data: { archivedAt: at } }];
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'CaseOpened':
        return {
          ...state,
          exists: true,
          caseId: event.data.caseId,
          organizationId: event.data.organizationId,
          spaceId: event.data.spaceId,
          title: event.data.title,
        };
      case 'EvidenceSaved':
        return { ...state, evidenceCount: state.evidenceCount + event.data.records.length };
      case 'CaseArchived':
        return { ...state, status: 'archived' };
      default:
        return state;
    }
  },
};

function saveEvidence(
  command: SaveEvidence,
  state: CaseState,
  at: string,
  selectedCase: CaseContext['selectedCase'],
): CaseEvent[] {
  if (state.exists) {
    if (!selectedCase) throw new Error('SaveEvidence is decided with the selected case facts');
    // The saver lost the case (removed from its space) or its space was archived: another case is needed.
    if (!selectedCase.reachable) {
      throw new ServiceError(
        'case_unavailable',
        'the selected case is no longer available: select another case',
      );
    }
    if (selectedCase.spaceArchived) {
      throw new ServiceError(
        'case_unavailable',
        "the selected case's space is archived: select another case",
      );
    }
  }
  if (!command.search) throw new ServiceError('not_found', 'no such search');
  const search = command.search;
  // The save never creates a case (rule 4): an unknown or archived case must be replaced first.
  if (!state.exists)
    throw new ServiceError('case_unavailable', 'the selected case no longer exists: select another case');
  if (state.status !== 'open') {
    throw new ServiceError(
      'case_unavailable',
      'the selected case is archived: select an open case before saving',
      {
        case_id: state.caseId,
      },
    );
  }
  if (search.organizationId !== state.organizationId) throw new ServiceError('not_found', 'no such search');
  if (search.spaceId !== state.spaceId) {
    // Rule 3: a General research observation is saved only after the search is rerun in the client's context.
    throw new ServiceError(
      'rerun_required',
      search.spaceKind === 'general'
        ? "this search ran in General research: select the case's client and rerun the search there, paid from its budget"
        : "this search ran in another space: rerun it in the case's client before saving",
      { search_space_id: search.spaceId, case_space_id: state.spaceId },
    );
  }
  const refs = command.records;
  if (!Array.isArray(refs) || refs.length === 0 || refs.length > MAX_EVIDENCE_RECORDS_PER_SAVE) {
    throw invalidField(
      'records',
      `select 1 to ${MAX_EVIDENCE_RECORDS_PER_SAVE} records of the completed search`,
    );
  }
  const seen = new Set<string>();
  const records: Array<{ dataset: string; id: string; source: Record<string, unknown> }> = [];
  for (const ref of refs) {
    const key = `${ref?.dataset}:${ref?.id}`;
    const source = Object.hasOwn(search.records, key) ? search.records[key] : undefined;
    if (!source) throw invalidField('records', `${key} is not a record of this search`);
    if (seen.has(key)) throw invalidField('records', `${key} is selected twice`);
    seen.add(key);
    records.push({ dataset: ref.dataset, id: ref.id, source: { ...source } });
  }
  const note = typeof command.note === 'string' ? command.note.trim() : '';
  if (note.length === 0 || [...note].length > MAX_NOTE_LENGTH) {
    throw invalidField('note', `must be 1 to ${MAX_NOTE_LENGTH} characters`);
  }
  let visibility: Visibility;
  if (command.visibility === undefined) visibility = command.savedByStaff ? 'internal' : 'client';
  else if (command.visibility !== 'internal' && command.visibility !== 'client') {
    throw invalidField('visibility', 'must be internal or client');
  } else visibility = command.visibility;
  if (!command.savedByStaff && visibility !== 'client') {
    throw new ServiceError('forbidden', 'external client users save client-visible evidence');
  }
  return [
    {
      type: 'EvidenceSaved',
      data: {
        evidenceId: command.evidenceId,
        caseId: state.caseId!,
        organizationId: state.organizationId!,
        spaceId: state.spaceId!,
        searchId: search.searchId,
        records,
        note,
        visibility,
        savedBy: command.savedBy,
        savedAt: at,
      },
    },
  ];
}
