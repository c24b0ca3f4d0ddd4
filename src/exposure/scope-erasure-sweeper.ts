import { EXPOSURE_SCOPES, type ExposureScopeDocument } from '../../projections/exposure-scopes.projection.js';
import { PeriodicSweep, type SweepOptions } from '../platform/scheduling/periodic-sweep.js';
import { EraseScope } from './commands/erasure.commands.js';
import type { ExposureWorkerPorts } from './exposure-ports.js';

/** The stream holding an organization's erasure records: ids and times only, never the erased content. */
export function exposureAuditStreamId(organizationId: string): string {
  return `exposure-audit-${organizationId}`;
}

export function controlsStreamId(scopeId: string): string {
  return `exposure-controls-${scopeId}`;
}

/**
 * After erase_after a deleted scope is erased for good: `SpaceErasureStarted` (from then on it cannot be
 * restored), its streams deleted from the event store (the space, its subjects' decisions and enrichments, its
 * refreshes, its control records), then `ScopeErased` on the organization's audit stream, on which every read
 * model purges the scope. The ledger (accounting) and the audit record stay: they hold ids only. Each step is
 * idempotent, so a pass interrupted anywhere is finished by the next one. A scope whose erasure fails is retried
 * with backoff and never holds back the erasure of the others.
 */
export class ScopeErasureSweeper extends PeriodicSweep {
  constructor(
    private readonly ports: ExposureWorkerPorts,
    options: SweepOptions = {},
  ) {
    super(
      60_000,
      'scope-erasure-sweeper',
      {
        background: ports.background,
        readStore: ports.readStore,
        log: options.log ?? ports.log,
      },
      options.retry,
    );
  }

  protected async sweep(): Promise<number> {
    const now = this.ports.clock.now().toISOString();
    const scopes = this.ports.projections.collection<ExposureScopeDocument>(
      'exposure-scopes',
      EXPOSURE_SCOPES,
    );
    // Scopes that failed before and are no longer due (restored, erased by another instance) need no retry.
    await this.failures.keepOnly(async (ids) =>
      (await scopes.find({ id: { $in: ids }, state: 'deleted' })).map((scope) => scope.id),
    );
    const waiting = await this.failures.waiting();
    const due = await scopes.find(
      {
        state: 'deleted',
        'deletion.eraseAfter': { $lte: now },
        ...(waiting.length > 0 ? { id: { $nin: waiting } } : {}),
      },
      { limit: 100 },
    );
    let erased = 0;
    for (const scope of due) {
      if ((await this.item(scope.id, () => this.erase(scope))).status === 'done') erased++;
    }
    return erased;
  }

  /** One scope's erasure (EraseScope); a method of its own so one scope's failure is tracked on its own. */
  async erase(scope: ExposureScopeDocument): Promise<void> {
    await this.ports.commands.execute(new EraseScope(scope));
  }
}
