import type { Clock } from '../clock/clock.js';
import type { ChangeSignals } from '../database/change-signals.js';
import type { BackgroundChecks } from '../health/background-checks.js';
import type { ReadStore } from '../read-store/read-store.port.js';
import { PeriodicSweep } from '../scheduling/periodic-sweep.js';
import type { WorkerLog } from '../scheduling/worker-failures.js';
import type { TamperEvidence } from './tamper-evidence.js';

/** How often the sealer folds newly visible events into the global chain (at most, with a wake channel). */
const SEAL_INTERVAL_MS = 2_000;
/** With a wake channel, the longest the sealer sleeps without an append or a checkpoint due. */
const SEALER_SAFETY_MS = 60_000;

export interface EventLogSealerPorts {
  readonly tamperEvidence: TamperEvidence;
  readonly clock: Clock;
  readonly background: BackgroundChecks;
  readonly storage: {
    readonly readStore: ReadStore;
    readonly changes?: ChangeSignals;
    /** Appends are signalled on `changes` (else the sealer keeps its interval). */
    readonly appendsSignalled?: boolean;
  };
  readonly config: { readonly checkpointIntervalMs: number };
  readonly log: WorkerLog;
}

/**
 * Seals the visible log into the global chain every few seconds; every CHECKPOINT_INTERVAL_MS it signs a
 * checkpoint when the chain moved and verifies the log since the last verified checkpoint (cheap, incremental),
 * which /health/ready shows. Every instance may run it: sealing and checkpoints are idempotent.
 *
 * With a cross-process wake channel that carries the appends (ADR 88) it does not tick: an append (here or
 * elsewhere; a key rotation is one) wakes it, at most once per SEAL_INTERVAL_MS, and otherwise it sleeps until the
 * next checkpoint is due or the safety interval passed.
 */
export class EventLogSealer extends PeriodicSweep {
  /** The first checkpoint comes one interval after start: a restart loop does not fill the log with them. */
  private lastCheckpointAt: number;
  /** The refusal to sign last logged: said once, not every sweep. */
  private loggedRefusal: string | null = null;
  /** With a wake channel: the next pass's timer, when it fires (ms since the epoch), and the last pass's start. */
  private passTimer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private lastPassAt = -Infinity;
  private stopListening: (() => void) | undefined;

  constructor(private readonly context: EventLogSealerPorts) {
    super(SEAL_INTERVAL_MS, 'event-log-sealer', {
      background: context.background,
      readStore: context.storage.readStore,
      log: context.log,
    });
    this.lastCheckpointAt = context.clock.now().getTime();
  }

  override start(intervalMs?: number): void {
    const { changes, appendsSignalled } = this.context.storage;
    if (!changes?.crossProcess || !appendsSignalled) return super.start(intervalMs);
    if (this.stopListening) return;
    this.stopListening = changes.subscribe('appended', () => this.passAt(this.lastPassAt + SEAL_INTERVAL_MS));
    // The first pass one interval after start, as with the timer.
    this.passAt(Date.now() + SEAL_INTERVAL_MS);
  }

  override async stop(): Promise<void> {
    this.stopListening?.();
    this.stopListening = undefined;
    clearTimeout(this.passTimer);
    this.passTimer = undefined;
    this.timerAt = Infinity;
    await super.stop();
  }

  /** Schedules a pass at `at` (not in the past), unless one is already scheduled sooner. */
  private passAt(at: number): void {
    if (!this.stopListening) return;
    const when = Math.max(at, Date.now());
    if (this.passTimer && this.timerAt <= when) return;
    clearTimeout(this.passTimer);
    this.timerAt = when;
    this.passTimer = setTimeout(() => {
      this.passTimer = undefined;
      this.timerAt = Infinity;
      this.lastPassAt = Date.now();
      // A failed pass (storage unreachable) is tried again after a few intervals, not at the safety interval.
      void this.sweepOnce().then(
        () => this.passAt(this.nextDue()),
        () => this.passAt(Date.now() + 5 * SEAL_INTERVAL_MS),
      );
    }, when - Date.now());
    this.passTimer.unref();
  }

  /** When the next pass is due without an append: the next checkpoint, or the safety interval. */
  private nextDue(): number {
    const safety = Date.now() + SEALER_SAFETY_MS;
    const interval = this.context.config.checkpointIntervalMs;
    if (interval <= 0) return safety;
    const checkpointIn = this.lastCheckpointAt + interval - this.context.clock.now().getTime();
    return Math.min(safety, Date.now() + checkpointIn);
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
