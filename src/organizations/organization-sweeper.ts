import { ORGANIZATIONS } from '../../projections/organizations.projection.js';
import { commandEnvelope } from '../platform/event-sourcing/command-metadata.js';
import type { ServiceContext } from '../platform/service-context.js';
import type { OrganizationWorkspace } from './commands/organization-workspace.js';

/**
 * Time-driven organization work, on the injected clock:
 * - a trial ends on its own once its 14 days are over (rule 5): the organization is then awaiting payment and
 *   restricted (rule 14) until checkout completes;
 * - interrupted creations whose start-up recovery failed are retried until they finish.
 * Every instance may sweep: the decider ends a trial once (a second `EndTrial` decides nothing), and recovery
 * steps are idempotent.
 */
export class OrganizationSweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<{ trialsEnded: number }> | undefined;

  constructor(
    private readonly context: ServiceContext,
    private readonly workspace: OrganizationWorkspace,
  ) {}

  start(intervalMs = 60_000): void {
    this.timer ??= setInterval(() => void this.sweepOnce().catch(() => undefined), intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }

  /** One pass: answers how many trials it ended. */
  sweepOnce(): Promise<{ trialsEnded: number }> {
    this.running ??= this.sweep().finally(() => (this.running = undefined));
    return this.running;
  }

  private async sweep(): Promise<{ trialsEnded: number }> {
    const now = this.context.clock.now().toISOString();
    const due = await this.context.projections
      .collection<{ id: string }>('organizations', ORGANIZATIONS)
      .find(
        { plan: 'trial', 'trial.ended': false, 'trial.endsAt': { $lte: now } },
        { sort: [['trial.endsAt', 1]], limit: 1000 },
      );
    const envelope = commandEnvelope({ actor: 'system:organization-sweeper', payer: 'system' });
    let trialsEnded = 0;
    for (const organization of due) {
      try {
        await this.workspace.operator(organization.id, { type: 'EndTrial' }, envelope);
        trialsEnded += 1;
      } catch (error) {
        // Another instance may have ended it first; anything else is retried on the next pass.
        this.context.log('warn', 'ending a trial failed; retried on the next pass', {
          organizationId: organization.id,
          err: error,
        });
      }
    }
    if (trialsEnded > 0) this.context.log('info', 'trials ended', { count: trialsEnded });
    if (this.workspace.recoveryFailing) await this.workspace.recoverAll();
    return { trialsEnded };
  }
}
