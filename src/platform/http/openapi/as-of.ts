import { GLOBAL_POSITION_PATTERN } from '../../event-store/global-position.js';
import { dateTime, integer, nullable, object, string, type Schema } from './schema.js';

/** A moment of the log as a query parameter: an ISO-8601 time with a zone, or a global position. */
export const LOG_POINT_SCHEMA: Schema = {
  type: 'string',
  anyOf: [
    dateTime({ description: 'with a zone (Z or ±hh:mm)' }),
    string({ pattern: GLOBAL_POSITION_PATTERN.source, description: 'a global log position' }),
  ],
  example: '2026-01-31T12:00:00Z',
};

/** The `as_of` query parameter of a read that can answer as it was then (ADR 73). */
export const AS_OF_PARAMETER = {
  as_of: {
    schema: LOG_POINT_SCHEMA,
    description:
      'for auditors: the answer as it was then, replayed from the event log (an ISO-8601 time with a zone, ' +
      'or a global position)',
  },
};

/** What an `as_of` answer says about itself (the `as_of` member of the answer). */
export const AS_OF_ANSWER = object(
  {
    requested: string(),
    position: nullable(string({ description: 'the last event included in the replay' })),
    time: dateTime({ description: 'the moment the answer describes' }),
    eventsReplayed: integer({ minimum: 0 }),
  },
  {},
  { description: 'present when as_of was asked: the answer is replayed from the event log up to that point' },
);
