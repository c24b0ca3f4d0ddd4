import { setTimeout as sleep } from 'node:timers/promises';
import { declarationKey } from '../src/exposure/domain/coverage.js';
import { refreshDecider, refreshRunStreamId, runKeyHash } from '../src/exposure/domain/refresh-run.js';
import { ExposureQueries } from '../src/exposure/queries/exposure-queries.js';
import type { RefreshWorkerPool } from '../src/exposure/refresh-worker-pool.js';
import type { CommandEnvelope } from '../src/platform/event-sourcing/command-metadata.js';
import type { ServiceContext } from '../src/platform/service-context.js';

export interface ScopeRefresh {
  readonly scopeId: string;
  readonly organizationId: string;
  readonly domain: string;
  /** The refresh's run key (its run id is derived from it). */
  readonly runKey: string;
  readonly envelope: CommandEnvelope;
}

/**
 * Requests a manual refresh of a scope through its decider, nudges the running pool, and waits until the scope
 * reports that run completed (throws when it failed). The benchmarks' set-up, not a service path.
 */
export async function refreshScopeAndWait(
  context: ServiceContext,
  pool: RefreshWorkerPool,
  refresh: ScopeRefresh,
): Promise<void> {
  const runId = runKeyHash(refresh.runKey);
  await context.repository.handle(
    refreshRunStreamId(refresh.scopeId, runId),
    refreshDecider,
    {
      type: 'RequestRefresh',
      runId,
      scopeId: refresh.scopeId,
      organizationId: refresh.organizationId,
      trigger: 'manual',
      input: declarationKey(refresh.domain, []),
      billing: 'capacity',
      reservation: null,
    },
    { now: new Date() },
    refresh.envelope,
  );
  pool.nudge();
  const queries = new ExposureQueries({
    projections: context.projections,
    eventStore: context.storage.eventStore,
    clock: context.clock,
  });
  for (;;) {
    const scope = await queries.scopeDocument(refresh.scopeId).catch(() => null);
    if (scope?.lastCompletedRefresh?.runId === runId) return;
    if (scope?.latestRefresh?.status === 'failed')
      throw new Error(`refresh failed: ${scope.latestRefresh.error}`);
    await sleep(50);
  }
}
