import { ORGANIZATIONS } from '../../projections/organizations.projection.js';
import { commandEnvelope } from '../platform/event-sourcing/command-metadata.js';
import { PeriodicSweep, type SweepOptions } from '../platform/scheduling/periodic-sweep.js';
import type { Clock } from '../platform/clock/clock.js';
import type { BackgroundChecks } from '../platform/health/background-checks.js';
import type { ProjectionRunner } from '../platform/projections/projection-runner.js';
import type { ReadStore } from '../platform/read-store/read-store.port.js';
import type { LogFunction } from '../platform/service-context.js';
import type { OrganizationWorkspace } from './commands/organization-workspace.js';

/** Failure record ids: an organization whose trial is to end, an owner account whose creation is to finish. */
const TRIAL_END = 'trial-end:';
const CREATION = 'creation:';

const withPrefix = (items: readonly string[], prefix: string): string[] =>
  items.filter((item) => item.startsWith(prefix)).map((item) => item.slice(prefix.length));

/**
 * Time-driven organization work, on the injected clock:
 * - a trial ends on its own once its 14 days are over (rule 5): the organization is then awaiting payment and
 *   restricted (rule 14) until checkout completes;
 * - interrupted creations whose start-up recovery failed are retried until they finish.
 * Every instance may sweep: the decider ends a trial once (a second `EndTrial` decides nothing), and recovery
 * steps are idempotent. Each organization (and each interrupted creation) is an item: one that keeps failing is
 * recorded, logged once, retried with backoff and shown by /health/ready, and never holds back the others.
 */
/** What the sweeper reads through (a ServiceContext has all of it). */
export interface OrganizationSweeperPorts {
  readonly background: BackgroundChecks;
  readonly clock: Clock;
  readonly projections: ProjectionRunner;
  readonly storage: { readonly readStore: ReadStore };
  readonly log: LogFunction;
}

export class OrganizationSweeper extends PeriodicSweep {
  constructor(
    private readonly context: OrganizationSweeperPorts,
    private readonly workspace: OrganizationWorkspace,
    options: SweepOptions = {},
  ) {
    super(
      60_000,
      'organization-sweeper',
      {
        background: context.background,
        readStore: context.storage.readStore,
        log: options.log ?? context.log,
      },
      options.retry,
    );
  }

  /** One pass: answers how many trials it ended and interrupted creations it finished. */
  protected async sweep(): Promise<number> {
    return (await this.endTrials()) + (await this.finishCreations());
  }

  private async endTrials(): Promise<number> {
    const now = this.context.clock.now().toISOString();
    const organizations = this.context.projections.collection<{ id: string }>('organizations', ORGANIZATIONS);
    const running = { plan: 'trial', 'trial.ended': false };
    // Organizations that failed before and whose trial is no longer running (ended elsewhere, paid) need no retry.
    await this.failures.keepOnly(async (items) => {
      const creations = items.filter((item) => item.startsWith(CREATION));
      const trials = withPrefix(items, TRIAL_END);
      if (trials.length === 0) return creations;
      const still = await organizations.find({ id: { $in: trials }, ...running });
      return [...creations, ...still.map((organization) => `${TRIAL_END}${organization.id}`)];
    });
    const waiting = withPrefix(await this.failures.waiting(), TRIAL_END);
    const due = await organizations.find(
      {
        ...running,
        'trial.endsAt': { $lte: now },
        ...(waiting.length > 0 ? { id: { $nin: waiting } } : {}),
      },
      { sort: [['trial.endsAt', 1]], limit: 1000 },
    );
    const envelope = commandEnvelope({ actor: 'system:organization-sweeper', payer: 'system' });
    let ended = 0;
    for (const organization of due) {
      const outcome = await this.item(`${TRIAL_END}${organization.id}`, () =>
        this.workspace.operator(organization.id, { type: 'EndTrial' }, envelope),
      );
      if (outcome.status === 'done' && outcome.value.changed) ended++;
    }
    if (ended > 0) this.context.log('info', 'trials ended', { count: ended });
    return ended;
  }

  /** While start-up recovery left a creation unfinished: each one again, then the outcome in /health/ready. */
  private async finishCreations(): Promise<number> {
    if (!this.workspace.recoveryFailing) {
      await this.failures.keepOnly(async (items) => items.filter((item) => !item.startsWith(CREATION)));
      return 0;
    }
    const pending = await this.workspace.interruptedCreations();
    const still = new Set(pending.map((creation) => `${CREATION}${creation.id}`));
    await this.failures.keepOnly(async (items) =>
      items.filter((item) => !item.startsWith(CREATION) || still.has(item)),
    );
    const unfinished: string[] = [];
    for (const creation of pending) {
      const outcome = await this.item(`${CREATION}${creation.id}`, () =>
        this.workspace.recoverCreation(creation.id),
      );
      if (outcome.status !== 'done') unfinished.push(creation.id);
    }
    this.workspace.reportRecovery(pending.length, unfinished);
    return pending.length - unfinished.length;
  }
}
