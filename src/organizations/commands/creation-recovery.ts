import { Inject, Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ORGANIZATION_CREATIONS } from '../../../projections/organizations.projection.js';
import { CLOCK, type Clock } from '../../platform/clock/clock.js';
import { BackgroundChecks } from '../../platform/health/background-checks.js';
import { ProjectionRunner } from '../../platform/projections/projection-runner.js';
import type { LogFunction } from '../../platform/service-context.js';
import { RecoverOrganizationCreation } from './creation.commands.js';
import { CreationProcess } from './creation-process.js';

/** The /health/ready background check of start-up recovery of interrupted creations. */
export const RECOVERY_CHECK = 'organization_creation_recovery';
/** Where the organizations context logs what no request answers (recovery, seat releases). */
export const ORGANIZATION_LOG = Symbol('OrganizationLog');

/** A creation started and not finished: `id` is the owner account. */
export type InterruptedCreation = {
  readonly id: string;
  readonly organizationId?: string;
};

/** Finds interrupted creations and finishes them, showing the outcome in /health/ready. */
@Injectable()
export class CreationRecovery {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(CreationProcess) private readonly process: CreationProcess,
    @Inject(ProjectionRunner) private readonly projections: ProjectionRunner,
    @Inject(BackgroundChecks) private readonly background: BackgroundChecks,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ORGANIZATION_LOG) private readonly log: LogFunction,
  ) {}

  recover(accountId: string): Promise<void> {
    return this.commands.execute(new RecoverOrganizationCreation(accountId));
  }

  /** At start-up the process runs directly: the CommandBus may not have its handlers before bootstrap ends. */
  private recoverAtStartUp(accountId: string): Promise<void> {
    return this.process.recover(accountId);
  }

  /**
   * Every interrupted creation, at start-up (the organization sweeper retries the unfinished ones, each under its
   * own failure record). One failure does not stop the others; each is logged and the outcome shown by
   * /health/ready.
   */
  async recoverAll(): Promise<{ pending: number; failed: number }> {
    let pending: InterruptedCreation[];
    try {
      pending = await this.interruptedCreations();
    } catch (error) {
      const message = 'interrupted organization creations could not be listed';
      this.log('error', message, { err: error });
      this.background.fail(RECOVERY_CHECK, `${message}: ${describe(error)}`, this.clock.now());
      return { pending: 0, failed: 1 };
    }
    const failures: string[] = [];
    for (const creation of pending) {
      try {
        await this.recoverAtStartUp(creation.id);
      } catch (error) {
        failures.push(creation.id);
        this.log('error', 'an interrupted organization creation could not be finished', {
          accountId: creation.id,
          organizationId: creation.organizationId,
          err: error,
        });
      }
    }
    this.reportRecovery(pending.length, failures);
    return { pending: pending.length, failed: failures.length };
  }

  /** Creations started and not finished, by owner account (`id`); throws when they cannot be listed. */
  interruptedCreations(): Promise<InterruptedCreation[]> {
    return this.projections
      .collection<InterruptedCreation & { status: string }>('organizations', ORGANIZATION_CREATIONS)
      .find({ status: 'started' });
  }

  /** Shows a recovery pass's outcome in /health/ready: the owner accounts whose creation is still unfinished. */
  reportRecovery(pending: number, unfinished: readonly string[]): void {
    if (unfinished.length === 0) {
      this.background.pass(RECOVERY_CHECK);
      return;
    }
    this.background.fail(
      RECOVERY_CHECK,
      `${unfinished.length} of ${pending} interrupted organization creations could not be finished ` +
        `(owner accounts ${unfinished.slice(0, 5).join(', ')}${unfinished.length > 5 ? ', …' : ''}); ` +
        'the organization sweeper retries them',
      this.clock.now(),
    );
  }

  /** Whether the last recovery pass left a creation unfinished. */
  get recoveryFailing(): boolean {
    return this.background.get(RECOVERY_CHECK)?.ok === false;
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
