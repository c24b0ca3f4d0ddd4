import {
  anyObject,
  arrayOf,
  boolean,
  component,
  dateTime,
  integer,
  mapOf,
  nullable,
  object,
  oneOfStrings,
  string,
  uuid,
} from '../../platform/http/openapi/schema.js';
import { COVERAGE_STATES, PROCESSING_STATES, RESULT_STATES } from '../domain/coverage.js';
import { DECISION_STATES, SUBJECT_KINDS } from '../domain/subject.js';
import { FINDING } from '../../catalogue/http/enrichment.openapi.js';
import { EVALUATION_FILTERS, MAX_HISTORY_OFFSET, MAX_INVENTORY_OFFSET } from '../queries/exposure-queries.js';
import { GLOBAL_POSITION_PATTERN } from '../../platform/event-store/global-position.js';

/**
 * Response documents of the exposure scope routes (contract: Scope, Inventory, Decision on a subject, Service
 * coverage, Frozen report, Notification preference). Fields the contract leaves "not shown" are open objects.
 */

const QUOTED_VERSION = string({
  description: 'the quoted version to send in If-Match',
  pattern: '^"[0-9]+"$',
});
const SUBJECT_ID = string({ pattern: '^[a-z]{3}-[0-9a-f]{24}$' });
const NULLABLE_TIME = nullable(dateTime());

const REFRESH = object({
  id: string(),
  status: oneOfStrings(['queued', 'running', 'retry_scheduled', 'completed', 'failed', 'cancelled']),
  attempt: integer({ minimum: 0 }),
  requested_at: dateTime(),
  available_at: nullable(dateTime({ description: 'eligibility time of a queued task, not a deadline' })),
  started_at: NULLABLE_TIME,
  finished_at: NULLABLE_TIME,
  last_attempt_at: NULLABLE_TIME,
  error: nullable(string()),
});

export const SCOPE = component(
  'ExposureScope',
  object({
    id: uuid(),
    kind: string(),
    name: string(),
    domain: nullable(string()),
    timezone: nullable(string({ description: 'IANA timezone name' })),
    addresses: arrayOf(string(), { maxItems: 16 }),
    monitoring: boolean(),
    billing: nullable(oneOfStrings(['capacity', 'credit'])),
    credit_limit: nullable(integer()),
    state: oneOfStrings(['active', 'archived', 'deleted']),
    version: QUOTED_VERSION,
    erase_after: NULLABLE_TIME,
    created_at: dateTime(),
    latest_refresh: nullable(REFRESH),
  }),
);

export const DELETED_CLIENTS = component(
  'DeletedClientList',
  object({
    clients: arrayOf(
      object({
        id: uuid(),
        kind: string(),
        name: string(),
        domain: nullable(string()),
        previous_state: string(),
        deleted_at: dateTime(),
        deleted_by: string(),
        erase_after: dateTime({ description: 'after it the client is erased; restore before' }),
        version: QUOTED_VERSION,
      }),
      { maxItems: 100 },
    ),
  }),
);

const DECISION = object({
  state: oneOfStrings(DECISION_STATES),
  conclusion: nullable(string()),
  according_to: nullable(string()),
  note: nullable(string()),
  announced_date: nullable(string()),
  renewal: nullable(string()),
  decided_by: nullable(string()),
  decided_at: NULLABLE_TIME,
  reopened_at: NULLABLE_TIME,
});

export const SUBJECT = component(
  'Subject',
  object(
    {
      id: SUBJECT_ID,
      kind: oneOfStrings(SUBJECT_KINDS),
      asset_key: SUBJECT_ID,
      first_seen: dateTime(),
      last_seen: NULLABLE_TIME,
      observed_in_latest_refresh: boolean(),
      decision: DECISION,
      version: integer({ minimum: 0, description: 'the body version a decision sends' }),
    },
    {
      observation: anyObject('the stored observation behind the subject'),
      observation_id: string(),
      host: nullable(string()),
      port: nullable(integer()),
      transport: nullable(string()),
      hostnames: arrayOf(string()),
      product: nullable(string()),
      vendor: nullable(string()),
      version_observed: nullable(string()),
      shared_edge: boolean(),
      coverage: object({
        state: oneOfStrings(COVERAGE_STATES),
        reasons: arrayOf(string()),
        eligible: boolean(),
      }),
      result_state: nullable(oneOfStrings(RESULT_STATES)),
      result_at: NULLABLE_TIME,
      retained_result: boolean(),
      last_attempt_at: NULLABLE_TIME,
      processing: object(
        { state: oneOfStrings(PROCESSING_STATES) },
        {
          job_id: string(),
          attempt: integer(),
          queued_at: dateTime(),
          available_at: NULLABLE_TIME,
          started_at: NULLABLE_TIME,
          finished_at: NULLABLE_TIME,
          error: nullable(string()),
        },
      ),
      evaluation: anyObject('source, catalogue_version, findings, findings_total and last_attempt'),
      observed_products: arrayOf(
        object({ vendor: nullable(string()), product: nullable(string()), version: nullable(string()) }),
      ),
    },
    { description: 'a service or a domain registration; other fields of a subject: not shown' },
  ),
);

const COUNT_BY_VALUE = arrayOf(object({ value: string(), count: integer({ minimum: 0 }) }));
const WATCH_FINDINGS = object({
  run_id: string(),
  outcome: oneOfStrings(['baseline', 'compared', 'inconclusive']),
  finished_at: dateTime(),
  newly_observed_services: integer({ minimum: 0 }),
  new_kev_associations: integer({ minimum: 0 }),
  not_observed_in_this_run: integer({ minimum: 0, description: 'never evidence that a service disappeared' }),
  partial: boolean(),
  reason: nullable(string()),
});
const BASELINE = object({ run_id: string(), established_at: dateTime(), services: integer({ minimum: 0 }) });

const AS_OF = object(
  {
    requested: string(),
    position: nullable(string({ description: 'the last event of the scope included in the replay' })),
    time: dateTime({ description: 'the moment the answer describes' }),
  },
  { eventsReplayed: integer({ minimum: 0 }) },
  { description: 'present when as_of was asked: the answer is replayed from the event log up to that point' },
);

export const INVENTORY = component(
  'Inventory',
  object(
    {
      scope: object({ id: uuid(), name: string(), domain: nullable(string()), state: string() }),
      offset: integer({ minimum: 0, maximum: MAX_INVENTORY_OFFSET }),
      limit: integer({ enum: [100] }),
      group_by: nullable(oneOfStrings(['host'])),
      filter: nullable(string()),
      totals: object({
        subjects: integer({ minimum: 0 }),
        matching: integer({ minimum: 0 }),
        services: integer(),
        hosts: integer({ minimum: 0 }),
        domain_registrations: integer({ minimum: 0 }),
        kev: integer({ minimum: 0 }),
        matched: integer({ minimum: 0 }),
        decisions: mapOf(integer({ minimum: 0 }), { description: 'by decision state' }),
      }),
      partial: boolean({
        description: 'no completed refresh, a failed or retried one, or a short catalogue',
      }),
      observations: object({
        first_seen: NULLABLE_TIME,
        last_seen: NULLABLE_TIME,
        refreshed_at: NULLABLE_TIME,
        last_attempt_at: NULLABLE_TIME,
      }),
      evaluation: object({
        services: integer(),
        evaluated: integer({ minimum: 0 }),
        eligible: integer(),
        complete: boolean(),
        catalogue_version: nullable(integer()),
      }),
      filter_options: object({
        coverage: COUNT_BY_VALUE,
        result: COUNT_BY_VALUE,
        decision: COUNT_BY_VALUE,
        kind: COUNT_BY_VALUE,
      }),
      summary: object({
        coverage: object({
          services: integer(),
          excluded_shared_edge: integer({ minimum: 0 }),
          by_state: mapOf(integer({ minimum: 0 })),
          by_processing: mapOf(integer({ minimum: 0 })),
        }),
      }),
      latest_refresh: nullable(REFRESH),
      monitoring: object({
        enabled: boolean(),
        baseline: nullable(BASELINE),
        latest_watch: nullable(WATCH_FINDINGS),
        note: string(),
      }),
      notice: string(),
    },
    {
      subjects: arrayOf(SUBJECT, { maxItems: 100, description: 'without group_by' }),
      hosts: arrayOf(object({ host: string(), hostnames: arrayOf(string()), services: arrayOf(SUBJECT) }), {
        maxItems: 100,
        description: 'with group_by=host',
      }),
      as_of: AS_OF,
    },
  ),
);

export const HISTORY_ENTRY = component(
  'HistoryEntry',
  object({
    id: string(),
    at: dateTime(),
    type: string(),
    summary: string(),
    subject_id: nullable(SUBJECT_ID),
    actor: string(),
    payer: string(),
    correlation_id: string(),
    position: string({ description: 'global position of the event' }),
    details: anyObject('what the event recorded'),
  }),
);

export const HISTORY = component(
  'History',
  object(
    {
      offset: integer({ minimum: 0, maximum: MAX_HISTORY_OFFSET }),
      limit: integer({ enum: [50] }),
      total: integer({ minimum: 0 }),
      subject: nullable(SUBJECT_ID),
      entries: arrayOf(HISTORY_ENTRY, { maxItems: 50, description: 'newest first' }),
    },
    { as_of: AS_OF },
  ),
);

export const ASSET_ENRICHMENT = component(
  'AssetEnrichment',
  object({
    asset_key: SUBJECT_ID,
    observation_id: string(),
    observation_last_seen: NULLABLE_TIME,
    catalogue_version: integer({ minimum: 0 }),
    coverage: nullable(anyObject('the service coverage: state, reasons, eligible')),
    result_state: oneOfStrings(RESULT_STATES),
    findings: arrayOf(FINDING),
    subject: SUBJECT,
    notice: string(),
  }),
);

export const CONTROLS = component(
  'ControlRecords',
  object({
    historical: { type: 'boolean', enum: [true] },
    notice: string(),
    controls: arrayOf(
      object({
        id: string(),
        asset: string(),
        kind: string(),
        title: string(),
        performed_at: dateTime(),
        performed_by: nullable(string()),
        outcome: nullable(string()),
        source: nullable(string()),
        imported_at: dateTime(),
      }),
      { maxItems: 100, description: 'historical records imported by operators; fields: not shown' },
    ),
  }),
);

export const RUN = component(
  'RefreshRun',
  object({
    ...(REFRESH.properties as Record<string, never>),
    trigger: string(),
    billing: oneOfStrings(['capacity', 'credit']),
    charged_credits: nullable(integer({ minimum: 0 })),
    reads: string(),
    replayed: boolean({ description: 'true: this key already ran; its earlier run is answered' }),
    notice: string(),
  }),
);

export const REPORT_SUMMARY = component(
  'ReportSummary',
  object({
    id: uuid(),
    sequence: integer({ minimum: 1 }),
    scope_id: uuid(),
    scope_name: string(),
    author_id: string(),
    timezone: string(),
    reference_time: dateTime(),
    reference_position: nullable(string()),
    frozen_at: dateTime(),
    observations: integer({ minimum: 0 }),
    kev: integer({ minimum: 0 }),
    matched: integer({ minimum: 0 }),
    partial: boolean(),
    history_entries: integer({ minimum: 0, maximum: 500 }),
    history_total: integer({ minimum: 0 }),
    history_partial: boolean({ description: 'the history was cut at 500 entries' }),
    size_bytes: integer({ minimum: 0 }),
    content_sha256: string({ pattern: '^[0-9a-f]{64}$' }),
    document: string({ description: 'where the saved document is read' }),
    as_of: string({ description: 'what the team saw then: GET …/exposure?as_of=<this>' }),
  }),
);

export const REPORTS = component(
  'ReportList',
  object({
    total: integer({ minimum: 0 }),
    limit: integer({ enum: [100] }),
    reports: arrayOf(REPORT_SUMMARY, { maxItems: 100, description: 'newest first' }),
  }),
);

export const REPORT_DOCUMENT = component(
  'ReportDocument',
  anyObject(
    'the saved document: organization name, scope name, author, timezone, reference time, observations and at ' +
      'most 500 history entries (history_partial marks a cut history)',
  ),
);

export const MONITORING = component(
  'Monitoring',
  object({
    monitoring: object({
      enabled: boolean(),
      schedule_id: nullable(string()),
      activated_at: NULLABLE_TIME,
      interval_hours: integer({ minimum: 1 }),
      baseline: nullable(BASELINE),
      latest_watch: nullable(WATCH_FINDINGS),
      notice: string(),
    }),
    scope: SCOPE,
  }),
);

export const NOTIFICATION_PREFERENCE = component(
  'NotificationPreference',
  object({
    enabled: boolean(),
    recipients: arrayOf(string(), { maxItems: 20, description: 'member user ids' }),
    language: oneOfStrings(['fr', 'en']),
    version: integer({ minimum: 0, description: 'saves so far: send it back to save' }),
    saved_at: NULLABLE_TIME,
    delivery: string(),
  }),
);

export const INVENTORY_QUERY = {
  offset: {
    schema: integer({ minimum: 0, maximum: MAX_INVENTORY_OFFSET, default: 0 }),
    description: 'first subject (or host) of the page; pages are fixed at 100',
  },
  group_by: { schema: oneOfStrings(['host']), description: 'host: services grouped by host' },
  filter: {
    schema: oneOfStrings(EVALUATION_FILTERS, { example: 'coverage:catalogue_unavailable' }),
    description:
      'an evaluation filter: coverage:<state>, result:<state>, decision:<state> or kind:<kind>; filter_options ' +
      'lists them with counts',
  },
  as_of: {
    schema: {
      type: 'string',
      anyOf: [
        dateTime({ description: 'with a zone (Z or ±hh:mm)' }),
        string({ pattern: GLOBAL_POSITION_PATTERN.source, description: 'a global log position' }),
      ],
      example: '2026-01-31T12:00:00Z',
    },
    description:
      'for auditors: the answer as it was then (an ISO-8601 time with a zone, or a global position)',
  },
};

export const HISTORY_QUERY = {
  offset: {
    schema: integer({ minimum: 0, maximum: MAX_HISTORY_OFFSET, default: 0 }),
    description: 'first entry of the page (newest first); pages are fixed at 50',
  },
  subject: { schema: SUBJECT_ID, description: 'only the history of this subject' },
  as_of: INVENTORY_QUERY.as_of,
};

export const CONTROLS_QUERY = {
  asset: { schema: string({ minLength: 1, maxLength: 256 }), description: 'only the records of this asset' },
};
