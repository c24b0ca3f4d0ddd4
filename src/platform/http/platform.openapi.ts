import {
  arrayOf,
  boolean,
  component,
  mapOf,
  nullable,
  object,
  oneOfStrings,
  string,
} from './openapi/schema.js';

/** Response documents of the health and caller-IP routes. */

export const LIVENESS = component('Liveness', object({ status: oneOfStrings(['ok']) }));

const CHECK = object({ ok: boolean() }, { detail: string() });

export const READINESS = component(
  'Readiness',
  object({
    status: oneOfStrings(['ready', 'not_ready']),
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
    background: mapOf(
      object({ ok: boolean() }, { detail: string(), failing_since: string({ format: 'date-time' }) }),
      { description: 'background work by name: its last outcome (shown, not counted in readiness)' },
    ),
  }),
);

export const CALLER_IP = component(
  'CallerIp',
  object({ ip: string({ description: 'the address this request came from, as the service saw it' }) }),
);
