import type { GlobalPosition } from '../event-store/global-position.js';
import type { ServiceContext } from '../service-context.js';
import { checkpointKey } from './projection-definition.js';
import { generationsKey, type ProjectionGenerations } from './projection-engine.js';
import { projectionStateKey, type ReportedProjectionState } from './projection-runner.js';

/**
 * Where each projection stands: its live generation's position and lag behind the log, the state its runner
 * reported, and a running rebuild's progress. Read by `projections status` and by the operator route
 * (GET /api/v2/operator/projections).
 */

/** Lag beyond this many events is reported as "at least". */
const LAG_SCAN_LIMIT = 10_000;

export interface ProjectionStatusRow {
  readonly name: string;
  readonly version: number;
  readonly live_generation: number | null;
  readonly building_generation: number | null;
  readonly position: string | null;
  readonly events_applied: number;
  readonly lag_events: number;
  readonly lag_events_at_least: boolean;
  readonly lag_seconds: number;
  readonly state: string;
  readonly state_reported_at: string | null;
  readonly state_reported_by: string | null;
  readonly last_error: string | null;
  /** While a rebuild builds a new generation beside the live one: how far it got (null otherwise). */
  readonly rebuild: RebuildStatus | null;
}

export interface RebuildStatus {
  readonly generation: number;
  readonly position: string | null;
  readonly events_applied: number;
  /** Events of the log the new generation has still to apply (at most LAG_SCAN_LIMIT counted). */
  readonly lag_events: number;
  readonly lag_events_at_least: boolean;
}

/** Every projection's status, in the order the service registers them. */
export async function projectionStatus(context: ServiceContext): Promise<ProjectionStatusRow[]> {
  const { readStore, eventStore } = context.storage;
  const rows: ProjectionStatusRow[] = [];
  for (const name of context.projections.projectionNames) {
    const definition = context.projections.definition(name);
    const generations = await readStore.getMeta<ProjectionGenerations>(generationsKey(name));
    const checkpoint = generations
      ? await readStore.getCheckpoint(checkpointKey(name, generations.live))
      : null;
    const reported = await readStore.getMeta<ReportedProjectionState>(projectionStateKey(name));
    const position = (checkpoint?.position as GlobalPosition | undefined) ?? null;
    const pending = await eventStore.readAll({ after: position, limit: LAG_SCAN_LIMIT });
    const details = (checkpoint?.details ?? {}) as { eventsApplied?: number; lastRecordedAt?: string };
    const newest = pending.at(-1)?.recordedAt;
    const lagSeconds =
      newest && details.lastRecordedAt
        ? Math.max(0, (Date.parse(newest) - Date.parse(details.lastRecordedAt)) / 1000)
        : newest && pending[0]
          ? Math.max(0, (Date.parse(newest) - Date.parse(pending[0].recordedAt)) / 1000)
          : 0;
    const building = generations?.building ?? null;
    const rebuild = building === null ? null : await rebuildStatus(context, name, building);
    rows.push({
      name,
      version: definition.version,
      live_generation: generations?.live ?? null,
      building_generation: generations?.building ?? null,
      position,
      events_applied: details.eventsApplied ?? 0,
      lag_events: pending.length,
      lag_events_at_least: pending.length === LAG_SCAN_LIMIT,
      lag_seconds: Math.round(lagSeconds * 1000) / 1000,
      state: generations ? (reported?.state ?? 'unknown') : 'not_created',
      state_reported_at: reported?.reportedAt ?? null,
      state_reported_by: reported?.reportedBy ?? null,
      last_error: reported?.lastError ?? null,
      rebuild,
    });
  }
  return rows;
}

/** A rebuild's progress: the new generation's own checkpoint (written after each page it applies). */
async function rebuildStatus(
  context: ServiceContext,
  name: string,
  generation: number,
): Promise<RebuildStatus> {
  const { readStore, eventStore } = context.storage;
  const checkpoint = await readStore.getCheckpoint(checkpointKey(name, generation));
  const position = (checkpoint?.position as GlobalPosition | undefined) ?? null;
  const pending = await eventStore.readAll({ after: position, limit: LAG_SCAN_LIMIT });
  const details = (checkpoint?.details ?? {}) as { eventsApplied?: number };
  return {
    generation,
    position,
    events_applied: details.eventsApplied ?? 0,
    lag_events: pending.length,
    lag_events_at_least: pending.length === LAG_SCAN_LIMIT,
  };
}
