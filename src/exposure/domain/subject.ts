/**
 * A subject of a scope's inventory (`subject-<scopeId>-<subjectId>`): the team's attributed decisions about it
 * (contract, Decision on a subject) and the asset enrichments asked for it. Decisions are declarations: they
 * never delete the observation, and a later observation reopens the subject. The body `version` is the number
 * of events in this stream (0 before any decision), so a stale version is a 409.
 */
import type { Decider, DomainEvent } from '../../platform/event-sourcing/decider.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import type { ServiceEvaluation } from './coverage.js';
import { isCalendarDate, localDate } from './scope-declaration.js';

export const DECISION_STATES = ['new', 'investigating', 'acknowledged'] as const;
export type DecisionState = (typeof DECISION_STATES)[number];
export const CONCLUSIONS = ['kept', 'closed', 'updated', 'not_concerned', 'other'] as const;
export type Conclusion = (typeof CONCLUSIONS)[number];
export const SUBJECT_KINDS = ['service', 'domain_expiry'] as const;
export type SubjectKind = (typeof SUBJECT_KINDS)[number];
export const MAX_NOTE_LENGTH = 2000;
export const MAX_ACCORDING_TO_LENGTH = 200;

export function subjectStreamId(scopeId: string, subjectId: string): string {
  return `subject-${scopeId}-${subjectId}`;
}

export interface RecordDecision {
  readonly type: 'RecordDecision';
  readonly scopeId: string;
  readonly subjectId: string;
  readonly subjectKind: SubjectKind;
  /** The scope's timezone: announced_date may not be after today there. */
  readonly timezone: string;
  /** The observation's last_seen the decision was taken on (a later one reopens the subject). */
  readonly observedLastSeen: string | null;
  readonly decision: unknown;
  readonly conclusion: unknown;
  readonly accordingTo: unknown;
  readonly note: unknown;
  readonly announcedDate: unknown;
  readonly renewal: unknown;
}
export interface ReopenSubject {
  readonly type: 'ReopenSubject';
  readonly observedLastSeen: string;
}
export interface RecordEnrichment {
  readonly type: 'RecordEnrichment';
  readonly scopeId: string;
  readonly subjectId: string;
  readonly observationId: string;
  readonly observedLastSeen: string;
  readonly input: string | null;
  readonly evaluation: ServiceEvaluation;
}
export type SubjectCommand = RecordDecision | ReopenSubject | RecordEnrichment;

export interface DecisionFields {
  decision: DecisionState;
  conclusion: Conclusion | null;
  according_to: string | null;
  note: string | null;
  announced_date: string | null;
  renewal: string | null;
}

export type DecisionRecorded = DomainEvent<
  'DecisionRecorded',
  DecisionFields & {
    scopeId: string;
    subjectId: string;
    previous: DecisionState;
    observedLastSeen: string | null;
    decidedAt: string;
  }
>;
export type SubjectReopened = DomainEvent<
  'SubjectReopened',
  {
    scopeId: string;
    subjectId: string;
    previous: DecisionState;
    observedLastSeen: string;
    reopenedAt: string;
  }
>;
export type AssetEnriched = DomainEvent<
  'AssetEnriched',
  {
    scopeId: string;
    subjectId: string;
    observationId: string;
    observedLastSeen: string;
    input: string | null;
    evaluation: ServiceEvaluation;
    enrichedAt: string;
  }
>;
export type SubjectEvent = DecisionRecorded | SubjectReopened | AssetEnriched;

export interface SubjectState {
  readonly scopeId: string | null;
  readonly subjectId: string | null;
  readonly decision: DecisionState;
  readonly observedLastSeen: string | null;
}

export const initialSubjectState: SubjectState = {
  scopeId: null,
  subjectId: null,
  decision: 'new',
  observedLastSeen: null,
};

function invalid(field: string, problem: string): ServiceError {
  return new ServiceError('invalid_input', `${field} ${problem}`, {
    fields: [{ field, problems: [problem] }],
  });
}

function optionalText(field: string, raw: unknown, max: number): string | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== 'string') throw invalid(field, 'must be a string');
  const value = raw.trim();
  if ([...value].length > max) throw invalid(field, `must be at most ${max} characters`);
  return value.length === 0 ? null : value;
}

/** The contract's decision rules, in one place. */
export function checkedDecision(command: RecordDecision, now: Date): DecisionFields {
  if (!(DECISION_STATES as readonly unknown[]).includes(command.decision)) {
    throw invalid('decision', 'must be new, investigating or acknowledged');
  }
  const decision = command.decision as DecisionState;
  let conclusion: Conclusion | null = null;
  if (command.conclusion !== undefined && command.conclusion !== null) {
    if (!(CONCLUSIONS as readonly unknown[]).includes(command.conclusion)) {
      throw invalid('conclusion', 'must be kept, closed, updated, not_concerned or other');
    }
    if (decision !== 'acknowledged')
      throw invalid('conclusion', 'is only given when the decision is acknowledged');
    conclusion = command.conclusion as Conclusion;
  } else if (decision === 'acknowledged') {
    throw invalid('conclusion', 'is required when the decision is acknowledged');
  }
  const accordingTo = optionalText('according_to', command.accordingTo, MAX_ACCORDING_TO_LENGTH);
  const note = optionalText('note', command.note, MAX_NOTE_LENGTH);
  if ((conclusion === 'closed' || conclusion === 'updated') && accordingTo === null) {
    throw invalid('according_to', `is required when the conclusion is ${conclusion}`);
  }
  if ((conclusion === 'not_concerned' || conclusion === 'other') && note === null) {
    throw invalid('note', `is required when the conclusion is ${conclusion}`);
  }
  let announcedDate: string | null = null;
  if (command.announcedDate !== undefined && command.announcedDate !== null) {
    if (!isCalendarDate(command.announcedDate))
      throw invalid('announced_date', 'must be a date written YYYY-MM-DD');
    if (command.announcedDate > localDate(now, command.timezone)) {
      throw invalid(
        'announced_date',
        `must not be in the future in the scope's timezone (${command.timezone})`,
      );
    }
    announcedDate = command.announcedDate;
  }
  let renewal: string | null = null;
  if (command.renewal !== undefined && command.renewal !== null) {
    if (command.subjectKind !== 'domain_expiry') {
      throw invalid('renewal', 'applies to domain-expiry subjects only');
    }
    if (!isCalendarDate(command.renewal))
      throw invalid('renewal', 'must be the renewed expiry date, YYYY-MM-DD');
    renewal = command.renewal;
  }
  return { decision, conclusion, according_to: accordingTo, note, announced_date: announcedDate, renewal };
}

export const subjectDecider: Decider<SubjectCommand, SubjectEvent, SubjectState, { now: Date }> = {
  initialState: initialSubjectState,
  decide(command, state, { now }) {
    const at = now.toISOString();
    switch (command.type) {
      case 'RecordDecision': {
        const fields = checkedDecision(command, now);
        return [
          {
            type: 'DecisionRecorded',
            data: {
              scopeId: command.scopeId,
              subjectId: command.subjectId,
              ...fields,
              previous: state.decision,
              observedLastSeen: command.observedLastSeen,
              decidedAt: at,
            },
          },
        ];
      }
      case 'ReopenSubject':
        // A later observation reopens a decided subject; the decision itself stays in the history.
        if (state.subjectId === null || state.decision === 'new') return [];
        if (state.observedLastSeen !== null && command.observedLastSeen <= state.observedLastSeen) return [];
        return [
          {
            type: 'SubjectReopened',
            data: {
              scopeId: state.scopeId!,
              subjectId: state.subjectId,
              previous: state.decision,
              observedLastSeen: command.observedLastSeen,
              reopenedAt: at,
            },
          },
        ];
      case 'RecordEnrichment':
        return [
          {
            type: 'AssetEnriched',
            data: {
              scopeId: command.scopeId,
              subjectId: command.subjectId,
              observationId: command.observationId,
              observedLastSeen: command.observedLastSeen,
              input: command.input,
              evaluation: command.evaluation,
              enrichedAt: at,
            },
          },
        ];
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'DecisionRecorded':
        return {
          scopeId: event.data.scopeId,
          subjectId: event.data.subjectId,
          decision: event.data.decision,
          observedLastSeen: event.data.observedLastSeen,
        };
      case 'SubjectReopened':
        return { ...state, decision: 'new', observedLastSeen: event.data.observedLastSeen };
      case 'AssetEnriched':
        return { ...state, scopeId: event.data.scopeId, subjectId: event.data.subjectId };
      default:
        return state;
    }
  },
};
