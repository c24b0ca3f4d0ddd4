/**
 * Rule 11: the review queue and report comparisons, and the completed-search record evidence is saved from.
 *
 * - `research-<searchId>`: a completed search in an organization space (what it returned, who ran it, where).
 * - `review-item-<id>`: an observation of a completed search queued for internal review; it can be assigned,
 *   given a due date and tied to a source (evidence) in a case.
 * - `comparison-<id>`: a report comparison prepared from selected evidence; published, it joins the client's
 *   space view (external clients see nothing else).
 */
import type { Decider, DomainEvent } from '../../platform/event-sourcing/decider.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import { invalidField } from './organization.js';

export const MAX_SEARCH_RECORDS_KEPT = 100;
export const MAX_COMPARISON_EVIDENCE = 20;

export const researchStreamId = (searchId: string): string => `research-${searchId}`;
export const reviewItemStreamId = (itemId: string): string => `review-item-${itemId}`;
export const comparisonStreamId = (comparisonId: string): string => `comparison-${comparisonId}`;

// ---- Completed search ----

export type SearchCompleted = DomainEvent<
  'SearchCompleted',
  {
    searchId: string;
    organizationId: string;
    spaceId: string;
    accountId: string;
    rawQuery: string;
    timeFrame: string;
    creditsCharged: number;
    records: Array<{ dataset: string; id: string; source: Record<string, unknown> }>;
    completedAt: string;
  }
>;
export interface RecordCompletedSearch {
  readonly type: 'RecordCompletedSearch';
  readonly data: Omit<SearchCompleted['data'], 'completedAt'>;
}
export interface CompletedSearchState {
  readonly exists: boolean;
  readonly data: SearchCompleted['data'] | null;
}
export const completedSearchDecider: Decider<
  RecordCompletedSearch,
  SearchCompleted,
  CompletedSearchState,
  { readonly now: Date }
> = {
  initialState: { exists: false, data: null },
  decide(command, state, { now }) {
    if (state.exists) return [];
    return [
      {
        type: 'SearchCompleted',
        data: {
          ...command.data,
          records: command.data.records.slice(0, MAX_SEARCH_RECORDS_KEPT),
          completedAt: now.toISOString(),
        },
      },
    ];
  },
  evolve: (_state, event) => ({ exists: true, data: event.data }),
};

// ---- Review queue item ----

export interface AddReviewItem {
  readonly type: 'AddReviewItem';
  readonly itemId: string;
  readonly organizationId: string;
  readonly spaceId: string;
  readonly searchId: string;
  readonly record: { dataset: string; id: string; source: Record<string, unknown> };
  readonly addedBy: string;
}
export interface UpdateReviewItem {
  readonly type: 'UpdateReviewItem';
  /** undefined: unchanged; null: cleared. */
  readonly assignee?: string | null;
  readonly dueDate?: string | null;
  readonly source?: { readonly caseId: string; readonly evidenceId: string } | null;
  /** True when the assignee is a member who reaches the item's space (checked by the application). */
  readonly assigneeReachesSpace: boolean;
  /** True when the case and evidence exist in the item's space (checked by the application). */
  readonly sourceInSpace: boolean;
}
export type ReviewItemCommand = AddReviewItem | UpdateReviewItem;

export type ReviewItemAdded = DomainEvent<
  'ReviewItemAdded',
  {
    itemId: string;
    organizationId: string;
    spaceId: string;
    searchId: string;
    record: { dataset: string; id: string; source: Record<string, unknown> };
    addedBy: string;
    addedAt: string;
  }
>;
export type ReviewItemAssigned = DomainEvent<'ReviewItemAssigned', { assignee: string | null }>;
export type ReviewItemDueDateSet = DomainEvent<'ReviewItemDueDateSet', { dueDate: string | null }>;
export type ReviewItemTiedToSource = DomainEvent<
  'ReviewItemTiedToSource',
  { source: { caseId: string; evidenceId: string } | null }
>;
export type ReviewItemEvent =
  ReviewItemAdded | ReviewItemAssigned | ReviewItemDueDateSet | ReviewItemTiedToSource;

export interface ReviewItemState {
  readonly exists: boolean;
  readonly organizationId: string | null;
  readonly spaceId: string | null;
  readonly assignee: string | null;
  readonly dueDate: string | null;
  readonly source: { readonly caseId: string; readonly evidenceId: string } | null;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

export const reviewItemDecider: Decider<
  ReviewItemCommand,
  ReviewItemEvent,
  ReviewItemState,
  { readonly now: Date }
> = {
  initialState: {
    exists: false,
    organizationId: null,
    spaceId: null,
    assignee: null,
    dueDate: null,
    source: null,
  },
  decide(command, state, { now }) {
    if (command.type === 'AddReviewItem') {
      if (state.exists) return [];
      return [
        {
          type: 'ReviewItemAdded',
          data: {
            itemId: command.itemId,
            organizationId: command.organizationId,
            spaceId: command.spaceId,
            searchId: command.searchId,
            record: command.record,
            addedBy: command.addedBy,
            addedAt: now.toISOString(),
          },
        },
      ];
    }
    if (!state.exists) throw new ServiceError('not_found', 'no such review item');
    const events: ReviewItemEvent[] = [];
    if (command.assignee !== undefined && command.assignee !== state.assignee) {
      if (command.assignee !== null && !command.assigneeReachesSpace) {
        throw invalidField('assignee', "must be an internal member who reaches the item's space");
      }
      events.push({ type: 'ReviewItemAssigned', data: { assignee: command.assignee } });
    }
    if (command.dueDate !== undefined && command.dueDate !== state.dueDate) {
      if (
        command.dueDate !== null &&
        (!DATE.test(command.dueDate) || Number.isNaN(Date.parse(command.dueDate)))
      ) {
        throw invalidField('due_date', 'must be a date YYYY-MM-DD');
      }
      events.push({ type: 'ReviewItemDueDateSet', data: { dueDate: command.dueDate } });
    }
    if (command.source !== undefined) {
      const same =
        command.source === state.source ||
        (command.source !== null &&
          state.source !== null &&
          command.source.caseId === state.source.caseId &&
          command.source.evidenceId === state.source.evidenceId);
      if (!same) {
        if (command.source !== null && !command.sourceInSpace) {
          throw invalidField('source', "must be evidence of a case in the item's space");
        }
        events.push({
          type: 'ReviewItemTiedToSource',
          data: { source: command.source === null ? null : { ...command.source } },
        });
      }
    }
    return events;
  },
  evolve(state, event) {
    switch (event.type) {
      case 'ReviewItemAdded':
        return {
          ...state,
          exists: true,
          organizationId: event.data.organizationId,
          spaceId: event.data.spaceId,
        };
      case 'ReviewItemAssigned':
        return { ...state, assignee: event.data.assignee };
      case 'ReviewItemDueDateSet':
        return { ...state, dueDate: event.data.dueDate };
      case 'ReviewItemTiedToSource':
        return { ...state, source: event.data.source };
      default:
        return state;
    }
  },
};

// ---- Report comparison ----

export interface EvidenceFacts {
  readonly evidenceId: string;
  readonly caseId: string;
  readonly spaceId: string;
  readonly visibility: 'internal' | 'client';
  readonly records: ReadonlyArray<{ dataset: string; id: string; source: Record<string, unknown> }>;
}
export interface PrepareComparison {
  readonly type: 'PrepareComparison';
  readonly comparisonId: string;
  readonly organizationId: string;
  readonly spaceId: string;
  readonly title: string;
  readonly evidence: readonly EvidenceFacts[];
  readonly preparedBy: string;
}
export interface PublishComparison {
  readonly type: 'PublishComparison';
}
export type ComparisonCommand = PrepareComparison | PublishComparison;
export type ComparisonPrepared = DomainEvent<
  'ComparisonPrepared',
  {
    comparisonId: string;
    organizationId: string;
    spaceId: string;
    title: string;
    evidence: Array<{ evidenceId: string; caseId: string; visibility: 'internal' | 'client' }>;
    /** Every field whose value differs between the selected records of the same dataset. */
    rows: Array<{ dataset: string; id: string; evidenceId: string; source: Record<string, unknown> }>;
    differingFields: string[];
    preparedBy: string;
    preparedAt: string;
  }
>;
export type ComparisonPublished = DomainEvent<'ComparisonPublished', { publishedAt: string }>;
export type ComparisonEvent = ComparisonPrepared | ComparisonPublished;
export interface ComparisonState {
  readonly exists: boolean;
  readonly published: boolean;
  readonly internalEvidence: boolean;
}

export const comparisonDecider: Decider<
  ComparisonCommand,
  ComparisonEvent,
  ComparisonState,
  { readonly now: Date }
> = {
  initialState: { exists: false, published: false, internalEvidence: false },
  decide(command, state, { now }) {
    if (command.type === 'PrepareComparison') {
      if (state.exists) return [];
      const title = typeof command.title === 'string' ? command.title.trim() : '';
      if (title.length === 0 || title.length > 200)
        throw invalidField('title', 'must be 1 to 200 characters');
      if (command.evidence.length === 0 || command.evidence.length > MAX_COMPARISON_EVIDENCE) {
        throw invalidField('evidence_ids', `select 1 to ${MAX_COMPARISON_EVIDENCE} saved evidence items`);
      }
      if (command.evidence.some((e) => e.spaceId !== command.spaceId)) {
        throw invalidField('evidence_ids', 'every evidence item must belong to this space');
      }
      const rows = command.evidence.flatMap((e) =>
        e.records.map((r) => ({ dataset: r.dataset, id: r.id, evidenceId: e.evidenceId, source: r.source })),
      );
      return [
        {
          type: 'ComparisonPrepared',
          data: {
            comparisonId: command.comparisonId,
            organizationId: command.organizationId,
            spaceId: command.spaceId,
            title,
            evidence: command.evidence.map((e) => ({
              evidenceId: e.evidenceId,
              caseId: e.caseId,
              visibility: e.visibility,
            })),
            rows,
            differingFields: differingFields(rows.map((r) => r.source)),
            preparedBy: command.preparedBy,
            preparedAt: now.toISOString(),
          },
        },
      ];
    }
    if (!state.exists) throw new ServiceError('not_found', 'no such comparison');
    if (state.published) return [];
    if (state.internalEvidence) {
      throw new ServiceError(
        'forbidden',
        'this comparison holds internal evidence: it cannot be published to the client',
      );
    }
    return [{ type: 'ComparisonPublished', data: { publishedAt: now.toISOString() } }];
  },
  evolve(state, event) {
    if (event.type === 'ComparisonPrepared') {
      return {
        exists: true,
        published: false,
        internalEvidence: event.data.evidence.some((e) => e.visibility === 'internal'),
      };
    }
    return { ...state, published: true };
  },
};

function differingFields(sources: ReadonlyArray<Record<string, unknown>>): string[] {
  const fields = new Set<string>();
  for (const source of sources) for (const key of Object.keys(source)) fields.add(key);
  return [...fields]
    .filter((field) => field !== 'id')
    .filter((field) => new Set(sources.map((s) => JSON.stringify(s[field] ?? null))).size > 1)
    .sort();
}
