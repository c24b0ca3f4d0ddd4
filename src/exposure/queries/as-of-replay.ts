/**
 * For auditors (issue 8, item 9): `GET …/exposure?as_of=` and `GET …/exposure/history?as_of=` answer from the
 * event log as it stood at a past moment. The scope's streams are read up to that global position (or that
 * recorded time), merged in log order and applied by the very projection handlers the live read models use, into
 * documents held in memory; the same queries then read those documents, with that moment as "now". Nothing is
 * written and nothing live is touched.
 */
import {
  EVENT_STREAMS_COLLECTION,
  type EventStreamDocument,
} from '../../../projections/event-streams.projection.js';
import { allProjections } from '../../../projections/index.js';
import {
  asOfPoint,
  parseLogPoint,
  readStreamsUpTo,
  replayProjections,
  type AsOfPoint,
  type LogPoint,
} from '../../platform/projections/as-of-replay.js';
import { spaceStreamId } from '../../organizations/domain/space.js';
import { notificationStreamId } from '../domain/notification-preference.js';
import { MAX_REPORTS_PER_SCOPE, reportIdFor, reportStreamId } from '../domain/report.js';
import { watchStreamId } from '../domain/watch.js';
import type { ExposureReadPorts, ExposureReadSource } from './exposure-queries.js';

export type { AsOfPoint };

/** The read models an exposure answer is made of. */
export const AS_OF_PROJECTIONS = [
  'exposure-scopes',
  'exposure-inventory',
  'exposure-history',
  'exposure-reports',
  'exposure-monitoring',
];

/** `as_of`: a global position (`00000000000000000012-00000000000000000003`) or an ISO-8601 timestamp. */
export function parseAsOf(raw: unknown): LogPoint {
  return parseLogPoint(raw, 'as_of');
}

/** Every stream that can hold an event of this scope. */
async function scopeStreams(ports: ExposureReadPorts, scopeId: string): Promise<string[]> {
  const streams = ports.projections.collection<EventStreamDocument>(
    'event-streams',
    EVENT_STREAMS_COLLECTION,
  );
  const prefixed = await Promise.all(
    [`exposure-run-${scopeId}-`, `subject-${scopeId}-`, `exposure-delivery-${scopeId}-`].map((prefix) =>
      streams.find({ id: { $prefix: prefix } }),
    ),
  );
  const reports: string[] = [];
  for (let sequence = 1; sequence <= MAX_REPORTS_PER_SCOPE; sequence++) {
    const streamId = reportStreamId(reportIdFor(scopeId, sequence));
    if ((await ports.eventStore.streamVersion(streamId)) === null) break;
    reports.push(streamId);
  }
  return [
    spaceStreamId(scopeId),
    `exposure-controls-${scopeId}`,
    notificationStreamId(scopeId),
    watchStreamId(scopeId),
    ...prefixed.flat().map((stream) => stream.id),
    ...reports,
  ];
}

/**
 * Replays a scope's streams up to `asOf` into memory and returns a read source for the exposure queries.
 */
export async function replayScopeAsOf(
  ports: ExposureReadPorts,
  scopeId: string,
  asOf: unknown,
): Promise<{ source: ExposureReadSource; point: AsOfPoint }> {
  const target = parseAsOf(asOf);
  const events = await readStreamsUpTo(ports.eventStore, await scopeStreams(ports, scopeId), target);
  const point = asOfPoint(asOf, target, events);
  const source: ExposureReadSource = replayProjections(
    allProjections.filter((definition) => AS_OF_PROJECTIONS.includes(definition.name)),
    events,
    new Date(point.time),
  );
  return { point, source };
}
