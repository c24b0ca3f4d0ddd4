import type { Clock } from '../clock/clock.js';
import type { BackgroundChecks } from '../health/background-checks.js';
import type { ReadStore } from '../read-store/read-store.port.js';
import { PeriodicSweep } from '../scheduling/periodic-sweep.js';
import type { WorkerLog } from '../scheduling/worker-failures.js';
import type { TamperEvidence } from './tamper-evidence.js';

/** How often the sealer folds newly visible events into the global chain. */
const SEAL_INTERVAL_MS = 2_000;

export interface EventLogSealerPorts {
  readonly tamperEvidence: TamperEvidence;
  readonly clock: Clock;
  readonly background: BackgroundChecks;
  readonly storage: { readonly readStore: ReadStore };
  readonly config: { readonly checkpointIntervalMs: number };
  readonly log: WorkerLog;
}

/**
 * Seals the visible log into the global chain every few seconds; every CHECKPOINT_INTERVAL_MS it signs a
 * checkpoint when the chain moved and verifies the log since the last verified checkpoint (cheap, incremental),
 * which /health/ready shows. Every instance may run it: sealing and checkpoints are idempotent.
 */
export class EventLogSealer extends PeriodicSweep {
  /** The first checkpoint comes one interval after start: a restart loop does not fill the log with them. */
  private lastCheckpointAt: number;
  /** The refusal to sign last logged: said once, not every sweep. */
  private loggedRefusal: string | null = null;

  constructor(private readonly context: EventLogSealerPorts) {
    super(SEAL_INTERVAL_MS, 'event-log-sealer', {
      background: context.background,
      readStore: context.storage.readStore,
      log: context.log,
    });
    this.lastCheckpointAt = context.clock.now().getTime();
  }

  protected async sweep(): Promise<number> {
    const evidence = this.context.tamperEvidence;
    if (!evidence.supported) return 0;
    // A rotation recorded elsewhere (the CLI) switches this instance to the new key, or stops its signing.
    await evidence.followRotations();
    const refusal = evidence.signingRefusal;
    if (refusal !== null && refusal !== this.loggedRefusal) this.context.log('error', refusal, {});
    this.loggedRefusal = refusal;
    const interval = this.context.config.checkpointIntervalMs;
    const now = this.context.clock.now().getTime();
    if (interval > 0 && now - this.lastCheckpointAt >= interval) {
      this.lastCheckpointAt = now;
      if (refusal === null) await evidence.checkpoint();
      const report = await evidence.verifySinceLastVerified();
      if (!report.ok)
        this.context.log(
          'error',
          'the event log does not verify: run `events verify` for the first position that changed',
          { finding: report.finding },
        );
      return report.eventsChecked;
    }
    const head = await evidence.seal();
    if (evidence.lastVerified === null && head) await evidence.verifySinceLastVerified();
    return 0;
  }
}
