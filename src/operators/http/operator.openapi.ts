import {
  arrayOf,
  boolean,
  component,
  dateTime,
  integer,
  nullable,
  number,
  object,
  string,
} from '../../platform/http/openapi/schema.js';

const LAG = {
  lag_events: integer({ minimum: 0, description: 'events of the log not applied yet' }),
  lag_events_at_least: boolean({
    description: 'true when lag_events is only a lower bound (10,000 counted)',
  }),
};

const PROJECTION_STATUS = object({
  name: string(),
  version: integer({ minimum: 0, description: "the projection definition's version" }),
  live_generation: nullable(integer({ description: 'the generation readers use; null before it exists' })),
  building_generation: nullable(integer({ description: 'a generation a rebuild is building, or null' })),
  position: nullable(string({ description: 'the last event the live generation applied (global position)' })),
  events_applied: integer({ minimum: 0 }),
  ...LAG,
  lag_seconds: number({ minimum: 0, description: 'time between the last applied event and the newest one' }),
  state: string({
    description:
      'as its runner last reported it: starting, catching_up, live, rebuilding, retrying, stopped; unknown or not_created',
  }),
  state_reported_at: nullable(dateTime()),
  state_reported_by: nullable(string({ description: 'the process that reported the state' })),
  last_error: nullable(string()),
  rebuild: nullable(
    object(
      {
        generation: integer(),
        position: nullable(string({ description: 'the last event the new generation applied' })),
        events_applied: integer({ minimum: 0 }),
        ...LAG,
      },
      {},
      { description: 'while a rebuild (CLI) builds a new generation: its progress' },
    ),
  ),
});

export const OPERATOR_PROJECTIONS = component(
  'OperatorProjections',
  object({
    head_position: nullable(string({ description: "the log's newest global position" })),
    read_at: dateTime(),
    projections: arrayOf(PROJECTION_STATUS),
  }),
);
