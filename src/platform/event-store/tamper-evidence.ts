/**
 * Tamper evidence of the event log as the service and the CLI use it (ADR 0060-0061): sealing, signed
 * checkpoints appended to the `$checkpoints` stream, and verification against the chain and the checkpoints.
 */
import type { Clock } from '../clock/clock.js';
import type { CheckpointSigner } from './checkpoint-signer.js';
import { eventIdFor } from './event-id.js';
import {
  CHECKPOINT_EVENT_TYPE,
  CHECKPOINT_STREAM,
  type ChainCheckpoint,
  type ChainHead,
  type EventLogIntegrity,
  type VerificationReport,
} from './event-log-integrity.js';
import type { EventStore } from './event-store.port.js';
import type { GlobalPosition } from './global-position.js';

export class TamperEvidenceUnsupported extends Error {
  override readonly name = 'TamperEvidenceUnsupported';
  constructor(kind: string) {
    super(
      `the ${kind} event store keeps no hash chain: verification needs PostgreSQL, PGlite or EventStoreDB`,
    );
  }
}

export interface VerifyLogOptions {
  readonly from?: GlobalPosition | null;
  readonly externalCheckpoint?: ChainCheckpoint;
  readonly onProgress?: (checked: number, total: number) => void;
}

export class TamperEvidence {
  /** The newest checkpoint a verification of this process found matching (for /health/ready). */
  lastVerified: { checkpoint: ChainCheckpoint | null; at: string; ok: boolean; finding?: string } | null =
    null;

  constructor(
    private readonly eventStore: EventStore,
    readonly signer: CheckpointSigner,
    private readonly clock: Clock,
  ) {}

  get supported(): boolean {
    return this.eventStore.integrity !== undefined;
  }

  private get integrity(): EventLogIntegrity {
    if (!this.eventStore.integrity) throw new TamperEvidenceUnsupported(this.eventStore.kind);
    return this.eventStore.integrity;
  }

  seal(): Promise<ChainHead | null> {
    return this.integrity.seal();
  }

  /** The newest checkpoint in the log, or null. */
  async latestCheckpoint(): Promise<ChainCheckpoint | null> {
    const version = await this.eventStore.streamVersion(CHECKPOINT_STREAM);
    if (version === null) return null;
    const [event] = await this.eventStore.readStream(CHECKPOINT_STREAM, {
      fromVersion: version,
      maxCount: 1,
    });
    return (event?.data as ChainCheckpoint | undefined) ?? null;
  }

  /**
   * Seals what is visible and signs the sealed head, unless the newest checkpoint already names it. Null for
   * an empty log.
   */
  async checkpoint(): Promise<ChainCheckpoint | null> {
    const head = await this.seal();
    if (!head) return null;
    const latest = await this.latestCheckpoint();
    if (latest && latest.chainIndex >= head.chainIndex) return latest;
    const checkpoint = this.signer.sign(head, this.clock.now());
    // The id follows the chain index: two processes signing the same head store one checkpoint.
    const id = eventIdFor(`chain-checkpoint:${head.chainIndex}`, 0);
    await this.eventStore.append(
      CHECKPOINT_STREAM,
      [
        {
          id,
          type: CHECKPOINT_EVENT_TYPE,
          schemaVersion: 1,
          data: checkpoint,
          metadata: {
            actor: 'system:event-log',
            payer: 'system',
            scope: null,
            correlationId: id,
            causationId: id,
          },
        },
      ],
      { expectedVersion: 'any' },
    );
    return (await this.latestCheckpoint()) ?? checkpoint;
  }

  /** Seals what is visible, then verifies the log from `from` (or the start). */
  async verify(options: VerifyLogOptions = {}): Promise<VerificationReport> {
    await this.seal();
    const report = await this.integrity.verify({
      ...options,
      checkSignature: (checkpoint) => this.signer.verify(checkpoint),
    });
    this.lastVerified = {
      checkpoint: report.lastVerifiedCheckpoint ?? this.lastVerified?.checkpoint ?? null,
      at: this.clock.now().toISOString(),
      ok: report.ok,
      ...(report.finding
        ? { finding: `${report.finding.kind} at ${report.finding.position ?? 'unknown'}` }
        : {}),
    };
    return report;
  }

  /** Cheap and incremental: verifies from the last checkpoint this process verified (the worker's step). */
  verifySinceLastVerified(): Promise<VerificationReport> {
    const from = this.lastVerified?.ok ? (this.lastVerified.checkpoint?.position ?? null) : null;
    return this.verify({ from });
  }
}
