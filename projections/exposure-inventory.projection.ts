import type {
  DocumentRef,
  ProjectionDefinition,
  ProjectionView,
  RecordedEventOf,
} from '../src/platform/projections/projection-definition.js';
import {
  resultRank,
  type CoverageState,
  type ResultState,
  type ServiceEvaluation,
} from '../src/exposure/domain/coverage.js';
import type { ControlRecordsImported } from '../src/exposure/domain/control-records.js';
import type { RefreshServicesRecorded } from '../src/exposure/domain/refresh-run.js';
import type { ScopeErased } from '../src/exposure/domain/scope-erasure.js';
import type {
  AssetEnriched,
  DecisionRecorded,
  DecisionState,
  SubjectReopened,
} from '../src/exposure/domain/subject.js';

/**
 * A scope's inventory (issue 8), from refresh batches (`RefreshServicesRecorded`), asset enrichments and
 * decisions. `exposure_subjects`: one document per subject (a service, or the domain's registration);
 * `exposure_hosts`: one per observed host for `group_by=host`; `exposure_controls`: imported historical control
 * records. A subject a later refresh does not see again stays as it was (a missing observation proves nothing).
 */
export const EXPOSURE_SUBJECTS = 'exposure_subjects';
export const EXPOSURE_HOSTS = 'exposure_hosts';
export const EXPOSURE_CONTROLS = 'exposure_controls';
/** One per scope: counts by kind, coverage, result and decision, hosts, and the observation date range. */
export const EXPOSURE_SUMMARIES = 'exposure_inventory_summaries';

export interface ExposureSummaryDocument {
  readonly id: string;
  readonly scopeId: string;
  /** `kind:service`, `coverage:evaluated`, `result:kev`, `decision:new`… → number of subjects. */
  readonly counts: Readonly<Record<string, number>>;
  readonly hosts: number;
  readonly firstSeen: string | null;
  readonly lastSeen: string | null;
  /**
   * Grows with every batch that writes the scope's subjects or hosts: the inventory remembers page boundaries
   * (keyset seeks for deep offsets) only for the revision it read them at. Absent before version 3.
   */
  readonly revision?: number;
  readonly [field: string]: unknown;
}

/** The count keys of a subject document (shared edge services count only under their coverage state). */
export function countKeys(document: ExposureSubjectDocument | null): string[] {
  if (!document) return [];
  const keys = [`kind:${document.kind}`, `decision:${document.decisionState}`];
  if (document.coverage) keys.push(`coverage:${document.coverage}`);
  if (document.result && document.coverage !== 'shared_edge') keys.push(`result:${document.result}`);
  // Counted services by the declaration their evaluation was made for: the inventory tells `unknown` processing
  // (evaluated for another input) from this without scanning the scope's subjects.
  if (document.kind === 'service' && document.coverage !== 'shared_edge' && document.evaluation?.input) {
    keys.push(`input:${document.evaluation.input}`);
  }
  return keys;
}

interface SummaryDraft {
  counts: Record<string, number>;
  hosts: number;
  firstSeen: string | null;
  lastSeen: string | null;
  revision: number;
}

/** Keeps a scope's summary in step with its subjects, from each subject's document before and after. */
class SummaryChanges {
  private readonly summaries = new Map<string, SummaryDraft>();

  constructor(private readonly view: ProjectionView) {}

  private of(scopeId: string): SummaryDraft {
    let summary = this.summaries.get(scopeId);
    if (!summary) {
      const stored = this.view.get<ExposureSummaryDocument>(EXPOSURE_SUMMARIES, scopeId);
      summary = {
        counts: { ...(stored?.counts ?? {}) },
        hosts: stored?.hosts ?? 0,
        firstSeen: stored?.firstSeen ?? null,
        lastSeen: stored?.lastSeen ?? null,
        revision: (stored?.revision ?? 0) + 1,
      };
      this.summaries.set(scopeId, summary);
    }
    return summary;
  }

  /** Marks the scope's subjects as written in this batch (its summary gets a new revision). */
  touch(scopeId: string): void {
    this.of(scopeId);
  }

  replace(scopeId: string, before: ExposureSubjectDocument | null, after: ExposureSubjectDocument): void {
    const summary = this.of(scopeId);
    for (const key of countKeys(before)) summary.counts[key] = (summary.counts[key] ?? 1) - 1;
    for (const key of countKeys(after)) summary.counts[key] = (summary.counts[key] ?? 0) + 1;
    for (const key of Object.keys(summary.counts)) if (summary.counts[key] === 0) delete summary.counts[key];
    if (summary.firstSeen === null || after.firstSeen < summary.firstSeen)
      summary.firstSeen = after.firstSeen;
    if (summary.lastSeen === null || after.lastSeen > summary.lastSeen) summary.lastSeen = after.lastSeen;
  }

  addHost(scopeId: string): void {
    this.of(scopeId).hosts += 1;
  }

  write(): void {
    for (const [scopeId, summary] of this.summaries) {
      const counts = Object.fromEntries(Object.entries(summary.counts).sort(([a], [b]) => (a < b ? -1 : 1)));
      this.view.put(EXPOSURE_SUMMARIES, { id: scopeId, scopeId, ...summary, counts });
    }
  }
}

export interface SubjectDecision {
  readonly state: DecisionState;
  readonly conclusion: string | null;
  readonly according_to: string | null;
  readonly note: string | null;
  readonly announced_date: string | null;
  readonly renewal: string | null;
  readonly decided_by: string | null;
  readonly decided_at: string | null;
  /** Set when a later observation reopened a decided subject. */
  readonly reopened_at: string | null;
}

export interface ExposureSubjectDocument {
  readonly id: string;
  readonly scopeId: string;
  readonly subjectId: string;
  readonly kind: 'service' | 'domain_expiry';
  /** Sort key of the fixed pages: stored result rank, then host, port, id. */
  readonly order: string;
  readonly host: string | null;
  readonly observation: Record<string, unknown>;
  readonly firstSeen: string;
  readonly lastSeen: string;
  /** The refresh that last saw this subject. */
  readonly seenByRun: string | null;
  readonly coverage: CoverageState | null;
  readonly result: ResultState | null;
  readonly kev: boolean;
  readonly evaluation:
    | (ServiceEvaluation & {
        readonly resultAt: string;
        readonly evaluatedAt: string;
        readonly runId: string | null;
        readonly input: string | null;
        readonly source: 'refresh' | 'enrichment';
      })
    | null;
  readonly decisionState: DecisionState;
  readonly decision: SubjectDecision;
  /** The body version a decision must carry: events in the subject's stream. */
  readonly version: number;
  readonly [field: string]: unknown;
}

type InventoryEvent =
  | RefreshServicesRecorded
  | DecisionRecorded
  | SubjectReopened
  | AssetEnriched
  | ControlRecordsImported
  | ScopeErased;

export const subjectDocumentId = (scopeId: string, subjectId: string): string => `${scopeId}:${subjectId}`;
export const hostDocumentId = (scopeId: string, host: string): string => `${scopeId}:${host}`;

const NO_DECISION: SubjectDecision = {
  state: 'new',
  conclusion: null,
  according_to: null,
  note: null,
  announced_date: null,
  renewal: null,
  decided_by: null,
  decided_at: null,
  reopened_at: null,
};

function orderOf(
  result: ResultState | null,
  host: string | null,
  port: number | null,
  subjectId: string,
): string {
  return `${resultRank(result)}|${host ?? '~'}|${String(port ?? 0).padStart(5, '0')}|${subjectId}`;
}

export const exposureInventoryProjection: ProjectionDefinition<InventoryEvent> = {
  name: 'exposure-inventory',
  // 2: a service observed but not evaluated keeps its recorded evaluation; summaries count evaluation inputs.
  // 3: summaries carry a revision (the inventory's remembered page boundaries are valid for one revision).
  version: 3,
  collections: {
    [EXPOSURE_SUBJECTS]: {
      indexes: [
        {
          name: 'by_scope_order',
          fields: [
            ['scopeId', 1],
            ['order', 1],
          ],
        },
        {
          name: 'by_scope_coverage',
          fields: [
            ['scopeId', 1],
            ['coverage', 1],
          ],
        },
        {
          name: 'by_scope_host',
          fields: [
            ['scopeId', 1],
            ['host', 1],
          ],
        },
      ],
    },
    [EXPOSURE_SUMMARIES]: {},
    [EXPOSURE_HOSTS]: {
      indexes: [
        {
          name: 'by_scope_host',
          fields: [
            ['scopeId', 1],
            ['host', 1],
          ],
        },
      ],
    },
    [EXPOSURE_CONTROLS]: {
      indexes: [
        {
          name: 'by_scope_asset',
          fields: [
            ['scopeId', 1],
            ['asset', 1],
            ['performedAt', -1],
          ],
        },
      ],
    },
  },
  handles: [
    'RefreshServicesRecorded',
    'DecisionRecorded',
    'SubjectReopened',
    'AssetEnriched',
    'ControlRecordsImported',
    'ScopeErased',
  ],
  reads(event): DocumentRef[] {
    switch (event.type) {
      case 'RefreshServicesRecorded': {
        const { scopeId, services, domains } = event.data;
        return [
          { collection: EXPOSURE_SUMMARIES, id: scopeId },
          ...services.map((s) => ({
            collection: EXPOSURE_SUBJECTS,
            id: subjectDocumentId(scopeId, s.subjectId),
          })),
          ...domains.map((d) => ({
            collection: EXPOSURE_SUBJECTS,
            id: subjectDocumentId(scopeId, d.subjectId),
          })),
          ...[...new Set(services.map((s) => s.host))].map((host) => ({
            collection: EXPOSURE_HOSTS,
            id: hostDocumentId(scopeId, host),
          })),
        ];
      }
      case 'DecisionRecorded':
      case 'SubjectReopened':
      case 'AssetEnriched':
        return [
          {
            collection: EXPOSURE_SUBJECTS,
            id: subjectDocumentId(event.data.scopeId, event.data.subjectId),
          },
          { collection: EXPOSURE_SUMMARIES, id: event.data.scopeId },
        ];
      default:
        return [];
    }
  },
  apply(event, view) {
    switch (event.type) {
      case 'RefreshServicesRecorded':
        return applyRefresh(event.data, view);
      case 'DecisionRecorded':
      case 'SubjectReopened':
        return applyDecision(event, view);
      case 'AssetEnriched':
        return applyEnrichment(event, view);
      case 'ControlRecordsImported': {
        const data = event.data;
        const scopeId = data.scopeId;
        for (const record of data.records) {
          view.put(EXPOSURE_CONTROLS, {
            ...record,
            id: `${scopeId}:${record.id}`,
            controlId: record.id,
            scopeId,
            importedAt: data.importedAt,
            importedBy: event.metadata.actor,
          });
        }
        return;
      }
      case 'ScopeErased': {
        const scopeId = event.data.scopeId;
        view.deleteWhere(EXPOSURE_SUBJECTS, { scopeId });
        view.deleteWhere(EXPOSURE_HOSTS, { scopeId });
        view.deleteWhere(EXPOSURE_CONTROLS, { scopeId });
        view.delete(EXPOSURE_SUMMARIES, scopeId);
        return;
      }
    }
  },
};

function applyRefresh(data: RefreshServicesRecorded['data'], view: ProjectionView): void {
  const { scopeId, runId, input } = data;
  const at = data.recordedAt;
  const hostCounts = new Map<string, { added: number; hostnames: Set<string> }>();
  const summary = new SummaryChanges(view);
  // Every refresh batch moves the revision, even one that only sees services again (their documents change).
  summary.touch(scopeId);
  for (const service of data.services) {
    const id = subjectDocumentId(scopeId, service.subjectId);
    const current = view.get<ExposureSubjectDocument>(EXPOSURE_SUBJECTS, id);
    const { subjectId, evaluation, ...observation } = service;
    if (evaluation.coverage === 'not_evaluated' && current?.evaluation) {
      // Observed again but not evaluated this time: the recorded evaluation stays (missing data proves nothing).
      // Its counts do not move (coverage, result and decision are unchanged), so the summary does not either.
      view.put(EXPOSURE_SUBJECTS, { ...current, observation, lastSeen: service.lastSeen, seenByRun: runId });
      continue;
    }
    // A new evaluation changes the displayed result; result_at moves only when the result itself changes.
    const sameResult = current?.evaluation?.result === evaluation.result;
    const document: ExposureSubjectDocument = {
      id,
      scopeId,
      subjectId,
      kind: 'service',
      order: orderOf(evaluation.result, service.host, service.port, subjectId),
      host: service.host,
      observation,
      firstSeen: service.firstSeen,
      lastSeen: service.lastSeen,
      seenByRun: runId,
      coverage: evaluation.coverage,
      result: evaluation.result,
      kev: evaluation.result === 'kev',
      evaluation: {
        ...evaluation,
        resultAt: sameResult && current?.evaluation ? current.evaluation.resultAt : at,
        evaluatedAt: at,
        runId,
        input,
        source: 'refresh',
      },
      decisionState: current?.decisionState ?? 'new',
      decision: current?.decision ?? NO_DECISION,
      version: current?.version ?? 0,
    };
    view.put(EXPOSURE_SUBJECTS, document);
    summary.replace(scopeId, current, document);
    if (!current) {
      const entry = hostCounts.get(service.host) ?? { added: 0, hostnames: new Set<string>() };
      entry.added++;
      for (const name of service.hostnames) entry.hostnames.add(name);
      hostCounts.set(service.host, entry);
    }
  }
  for (const [host, { added, hostnames }] of hostCounts) {
    const id = hostDocumentId(scopeId, host);
    const current = view.get<{ id: string; services: number; hostnames: string[] }>(EXPOSURE_HOSTS, id);
    const names = [...new Set([...(current?.hostnames ?? []), ...hostnames])].sort().slice(0, 20);
    view.put(EXPOSURE_HOSTS, {
      id,
      scopeId,
      host,
      services: (current?.services ?? 0) + added,
      hostnames: names,
    });
    if (!current) summary.addHost(scopeId);
  }
  for (const domain of data.domains) {
    const id = subjectDocumentId(scopeId, domain.subjectId);
    const current = view.get<ExposureSubjectDocument>(EXPOSURE_SUBJECTS, id);
    const { subjectId, ...observation } = domain;
    const document: ExposureSubjectDocument = {
      id,
      scopeId,
      subjectId,
      kind: 'domain_expiry',
      order: orderOf(null, null, null, subjectId),
      host: null,
      observation,
      firstSeen: domain.firstSeen,
      lastSeen: domain.lastSeen,
      seenByRun: runId,
      coverage: null,
      result: null,
      kev: false,
      evaluation: null,
      decisionState: current?.decisionState ?? 'new',
      decision: current?.decision ?? NO_DECISION,
      version: current?.version ?? 0,
    };
    view.put(EXPOSURE_SUBJECTS, document);
    summary.replace(scopeId, current, document);
  }
  summary.write();
}

function applyDecision(
  event: RecordedEventOf<DecisionRecorded | SubjectReopened>,
  view: ProjectionView,
): void {
  const id = subjectDocumentId(event.data.scopeId, event.data.subjectId);
  const current = view.get<ExposureSubjectDocument>(EXPOSURE_SUBJECTS, id);
  if (!current) return;
  const version = event.streamVersion + 1;
  if (event.type === 'DecisionRecorded') {
    const data = event.data;
    const decision: SubjectDecision = {
      state: data.decision,
      conclusion: data.conclusion ?? null,
      according_to: data.according_to ?? null,
      note: data.note ?? null,
      announced_date: data.announced_date ?? null,
      renewal: data.renewal ?? null,
      decided_by: event.metadata.actor,
      decided_at: data.decidedAt,
      reopened_at: null,
    };
    replaceSubject(view, current, { ...current, decision, decisionState: decision.state, version });
  } else {
    replaceSubject(view, current, {
      ...current,
      decision: { ...current.decision, state: 'new', reopened_at: event.data.reopenedAt },
      decisionState: 'new',
      version,
    });
  }
}

function applyEnrichment(event: RecordedEventOf<AssetEnriched>, view: ProjectionView): void {
  const data = event.data;
  const id = subjectDocumentId(data.scopeId, data.subjectId);
  const current = view.get<ExposureSubjectDocument>(EXPOSURE_SUBJECTS, id);
  if (!current || current.kind !== 'service') return;
  const evaluation = data.evaluation;
  const at = data.enrichedAt;
  const sameResult = current.evaluation?.result === evaluation.result;
  replaceSubject(view, current, {
    ...current,
    order: orderOf(
      evaluation.result,
      current.host,
      (current.observation.port as number | null) ?? null,
      current.subjectId,
    ),
    coverage: evaluation.coverage,
    result: evaluation.result,
    kev: evaluation.result === 'kev',
    evaluation: {
      ...evaluation,
      resultAt: sameResult && current.evaluation ? current.evaluation.resultAt : at,
      evaluatedAt: at,
      runId: current.evaluation?.runId ?? null,
      input: data.input ?? null,
      source: 'enrichment',
    },
    version: event.streamVersion + 1,
  });
}

function replaceSubject(
  view: ProjectionView,
  before: ExposureSubjectDocument,
  after: ExposureSubjectDocument,
): void {
  view.put(EXPOSURE_SUBJECTS, after);
  const summary = new SummaryChanges(view);
  summary.replace(after.scopeId, before, after);
  summary.write();
}
