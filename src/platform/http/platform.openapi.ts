import {
  arrayOf,
  boolean,
  component,
  integer,
  mapOf,
  nullable,
  object,
  oneOfStrings,
  string,
} from './openapi/schema.js';

/** Response documents of the health and caller-IP routes. */

export const LIVENESS = component('Liveness', object({ status: oneOfStrings(['ok']) }));

const CHECK = object({ ok: boolean() }, { detail: string() });

/** The host → CVE association index against the code's matcher (CatalogueIndexStatus). */
const CATALOGUE_INDEX = object(
  {
    index: oneOfStrings(['current', 'rebuilding', 'stale', 'unknown'], {
      description:
        'current: built with this matcher version; rebuilding: the start-up rebuild runs (cve:/kev: answer from ' +
        'the old associations meanwhile); stale: built by another matcher version (`catalogue reindex` or a ' +
        'restart rebuilds it); unknown: the index could not be read',
    }),
    matcher_version: integer({ description: "the service's matcher version" }),
    index_matcher_version: nullable(integer({ description: 'the matcher version the index was built with' })),
    built_at: nullable(string({ format: 'date-time' })),
  },
  { detail: string() },
);

/**
 * What /health/ready shows of the event log's verification (ADR 0061): shown, not counted in readiness;
 * `verified` is null until the sealer verified the log once.
 */
export const EVENT_LOG_STATUS = object(
  {
    verified: nullable(
      object(
        {
          ok: boolean({
            description: 'false: the last verification found tampering (`events verify` names it)',
          }),
          at: string({ format: 'date-time', description: 'when this instance last verified the log' }),
          checkpoint: nullable(
            object({
              position: string(),
              chain_index: integer({ minimum: 0 }),
              chain_head: string(),
              signed_at: string({ format: 'date-time' }),
            }),
          ),
        },
        { finding: string({ description: 'the kind and position of the first finding' }) },
      ),
    ),
  },
  {
    retired_signing_key: object(
      {
        key_id: string({ description: 'the retired key this instance still holds' }),
        successor_key_id: string({ description: 'the key that replaced it' }),
      },
      {},
      {
        description:
          'present while a key rotation retired the key this instance holds: it signs no checkpoint until it has the new key (KEY_FILE, or a restart)',
      },
    ),
  },
);

export const READINESS = component(
  'Readiness',
  object({
    status: oneOfStrings(['ready', 'not_ready']),
    catalogue: CATALOGUE_INDEX,
    checks: object(
      { event_store: CHECK, read_store: CHECK, projections: CHECK },
      {},
      { additionalProperties: CHECK },
    ),
    projections: arrayOf(
      object(
        {
          name: string(),
          state: oneOfStrings(['starting', 'catching_up', 'live', 'rebuilding', 'retrying', 'stopped']),
          position: nullable(string({ description: 'the last event applied (global position)' })),
        },
        { last_error: string() },
      ),
    ),
    event_log: EVENT_LOG_STATUS,
    background: mapOf(
      object(
        { ok: boolean() },
        {
          failing_since: string({ format: 'date-time', description: 'while it fails: since when' }),
          consecutive_failures: integer({
            minimum: 1,
            description: 'failures in a row of its look for work, or of its most failing item',
          }),
          failing_item_count: integer({ minimum: 1, description: 'items with a failure record' }),
        },
        // Public: never item ids or error text (operators: `npm run cli -- workers status`).
        { additionalProperties: false },
      ),
      {
        description:
          'background work by name (export-pool, reservation-sweeper…): whether it fails, since when and how ' +
          'often (shown, not counted in readiness)',
      },
    ),
  }),
);

export const CALLER_IP = component(
  'CallerIp',
  object({ ip: string({ description: 'the address this request came from, as the service saw it' }) }),
);

export const EVENT_LOG_KEY = component(
  'EventLogKey',
  object({
    algorithm: oneOfStrings(['Ed25519']),
    key_id: string({
      description: 'first 16 hex digits of the SHA-256 of the public key (DER), as in checkpoints',
    }),
    public_key: string({ description: 'the public key, SPKI PEM' }),
    checkpoint_stream: string({ description: 'the event stream the signed checkpoints are appended to' }),
    rotation_stream: string({
      description: 'the event stream of key rotations: each record is signed by the retiring and the new key',
    }),
    retired_keys: arrayOf(
      object({
        key_id: string({ description: 'the key id its checkpoints name' }),
        public_key: string({ description: 'the public key, SPKI PEM' }),
        retired_at: nullable(
          string({
            format: 'date-time',
            description: 'when a rotation retired it (null: held as trusted, no retirement recorded)',
          }),
        ),
        retired_at_position: nullable(
          string({
            description:
              'global position of the rotation record: checkpoints it signed at or after it are refused',
          }),
        ),
        successor_key_id: nullable(string({ description: 'the key that replaced it' })),
      }),
      {
        description:
          "the service's retired keys (its key ring, kept outside the log): they verify the checkpoints signed before their retirement. key_id and public_key above stay the active key",
      },
    ),
  }),
);
