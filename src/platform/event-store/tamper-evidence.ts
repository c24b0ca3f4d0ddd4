/**
 * Tamper evidence of the event log as the service and the CLI use it (ADR 0060-0061): sealing, signed
 * checkpoints appended to the `$checkpoints` stream, and verification against the chain and the checkpoints.
 */
import type { Clock } from '../clock/clock.js';
import { CheckpointSigner } from './checkpoint-signer.js';
import { eventIdFor } from './event-id.js';
import {
  CHECKPOINT_EVENT_TYPE,
  CHECKPOINT_STREAM,
  type ChainCheckpoint,
  type ChainHead,
  type EventLogIntegrity,
  type TamperFinding,
  type VerificationReport,
} from './event-log-integrity.js';
import { WrongExpectedVersion, type EventMetadata, type EventStore } from './event-store.port.js';
import { comparePositions, type GlobalPosition } from './global-position.js';
import {
  KEY_ROTATION_EVENT_TYPE,
  KEY_ROTATION_STREAM,
  KeyHistory,
  KeyRing,
  keyRotationSigningText,
  removeRetiredKey,
  retiredKeyText,
  writeRetiredKey,
  type KeyRotation,
  type RecordedRotation,
} from './signing-key-ring.js';

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
  /** The keys to trust instead of the service's ring (`--trusted-key`: an auditor's own copies). */
  readonly trustedKeys?: KeyRing;
  readonly onProgress?: (checked: number, total: number) => void;
}

/** A verification with the key history it judged the signatures by. */
export interface KeyedVerificationReport extends VerificationReport {
  readonly keyHistory: KeyHistory;
}

/** Where the signing key and the ring come from (the configuration); absent, the ring is the one key given. */
export interface SigningKeySources {
  /** The signing key as configured now: after a rotation, DATA_DIR's generated key is the new one. */
  loadSigner(): CheckpointSigner;
  /** The trusted ring beside the active key: DATA_DIR's retired keys and EVENT_LOG_TRUSTED_KEYS_FILE's keys. */
  loadRing(active: CheckpointSigner): KeyRing;
  /** Where retired keys are written (DATA_DIR); null writes none. */
  readonly dataDir: string | null;
  /** True when KEY_FILE or EVENT_LOG_SIGNING_KEY names the key: a rotation cannot replace it, the operator does. */
  readonly configured: boolean;
}

/** A signing key the log retired while this instance still loads it: it signs nothing until restarted. */
export class SigningKeyRetired extends Error {
  override readonly name = 'SigningKeyRetired';
}

export interface RotationRequest {
  readonly successor: CheckpointSigner;
  /** The successor's private PEM, installed in DATA_DIR when the key is generated there (not configured). */
  readonly successorPem: string;
  readonly reason: string;
  /** Attribution of the rotation record (operator, credential, surface, request). */
  readonly metadata: EventMetadata;
}

export interface RotationResult {
  readonly rotation: KeyRotation;
  readonly position: GlobalPosition;
  /** The retired key's entry for a key ring (EVENT_LOG_TRUSTED_KEYS_FILE of every other instance). */
  readonly retiredKeyEntry: string;
  /** Where this instance's ring keeps it, or null. */
  readonly retiredKeyFile: string | null;
  /** `data_dir`: the new key replaced DATA_DIR's; `configuration`: KEY_FILE / EVENT_LOG_SIGNING_KEY must change. */
  readonly installed: 'data_dir' | 'configuration';
  /** The first checkpoint of the new key, covering the rotation record (null if it could not be sealed yet). */
  readonly checkpoint: ChainCheckpoint | null;
}

/** How long a rotation waits for its record to be sealed before leaving the first checkpoint to the sealer. */
const HANDOVER_SEAL_WAIT_MS = 10_000;

export class TamperEvidence {
  /** The newest checkpoint a verification of this process found matching (for /health/ready). */
  lastVerified: { checkpoint: ChainCheckpoint | null; at: string; ok: boolean; finding?: string } | null =
    null;
  private activeSigner: CheckpointSigner;
  /** The version of the rotation stream last followed (undefined: never read). */
  private rotationsSeen: number | null | undefined;
  /** Why this instance signs nothing (its key was retired and it still loads it). */
  private refusal: string | null = null;
  /** The retired key this instance still holds and the key that replaced it, while it refuses. */
  private heldRetiredKey: { readonly keyId: string; readonly successorKeyId: string } | null = null;

  constructor(
    private readonly eventStore: EventStore,
    signer: CheckpointSigner,
    private readonly clock: Clock,
    private readonly keys?: SigningKeySources,
  ) {
    this.activeSigner = signer;
  }

  /** The key this instance signs with (the newest after a rotation it followed). */
  get signer(): CheckpointSigner {
    return this.activeSigner;
  }

  /** While this instance refuses to sign: the retired key it holds and its successor (for /health/ready). */
  get retiredKeyHeld(): { readonly keyId: string; readonly successorKeyId: string } | null {
    return this.refusal === null ? null : this.heldRetiredKey;
  }

  /** Why this instance signs no checkpoint (its key was retired and it still loads it), or null. */
  get signingRefusal(): string | null {
    return this.refusal;
  }

  /** The keys this instance trusts: its active key and the retired keys held outside the log. */
  keyRing(): KeyRing {
    return this.keys?.loadRing(this.activeSigner) ?? KeyRing.fromSigners([this.activeSigner]);
  }

  /** The rotation records of the log, in order. */
  async rotations(): Promise<RecordedRotation[]> {
    const events = await this.eventStore.readStream(KEY_ROTATION_STREAM);
    return events
      .filter((event) => event.type === KEY_ROTATION_EVENT_TYPE)
      .map((event) => ({ rotation: event.data as KeyRotation, position: event.position, eventId: event.id }));
  }

  /**
   * Follows a rotation another process recorded (the CLI through the service's socket): when the log retired
   * this instance's key, it loads the key again (DATA_DIR's generated key, or the file KEY_FILE names) and
   * switches to it if that one is not retired; otherwise it refuses to sign (SigningKeyRetired from
   * checkpoint()) and says how to give it the new key.
   */
  async followRotations(): Promise<void> {
    const version = await this.eventStore.streamVersion(KEY_ROTATION_STREAM);
    // While refusing, the key is loaded again every time: the operator may have put the new one in place.
    if (version === this.rotationsSeen && this.refusal === null) return;
    const rotations = await this.rotations();
    const retiredIds = new Set(rotations.map((recorded) => recorded.rotation.retiredKeyId));
    this.rotationsSeen = version;
    if (!retiredIds.has(this.activeSigner.keyId)) {
      this.refusal = null;
      return;
    }
    const reloaded = this.keys?.loadSigner();
    if (reloaded && !retiredIds.has(reloaded.keyId)) {
      this.activeSigner = reloaded;
      this.refusal = null;
      return;
    }
    const rotation = rotations.find(
      (recorded) => recorded.rotation.retiredKeyId === this.activeSigner.keyId,
    )!;
    this.heldRetiredKey = {
      keyId: this.activeSigner.keyId,
      successorKeyId: rotation.rotation.successorKeyId,
    };
    this.refusal =
      `the signing key ${this.activeSigner.keyId} was retired at position ${rotation.position} ` +
      `(${rotation.rotation.retiredAt}, ${rotation.rotation.operator}: ${rotation.rotation.reason}) and this ` +
      `instance still loads it and signs nothing: put the new key ${rotation.rotation.successorKeyId} in the file ` +
      'KEY_FILE names (it is read again) or restart it with the new key, and add the retired key to ' +
      'EVENT_LOG_TRUSTED_KEYS_FILE';
  }

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
    // After sealing: a rotation sealed into `head` is visible now, so a retired key never signs past its record.
    await this.followRotations();
    if (this.refusal) throw new SigningKeyRetired(this.refusal);
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

  /**
   * Seals what is visible, then verifies the log from `from` (or the start). Each checkpoint is checked with
   * the key its keyId names in the trusted ring, and refused when that key was retired before it; the rotation
   * records themselves must carry both keys' signatures (KeyHistory).
   */
  async verify(options: VerifyLogOptions = {}): Promise<KeyedVerificationReport> {
    await this.seal();
    const history = KeyHistory.check(options.trustedKeys ?? this.keyRing(), await this.rotations());
    /** Why a checkpoint was refused, by its position: the finding's detail says it. */
    const refusals = new Map<string, string>();
    const { trustedKeys: _ring, ...integrityOptions } = options;
    const chainReport = await this.integrity.verify({
      ...integrityOptions,
      checkSignature: (checkpoint) => {
        const refusal = history.refusal(checkpoint);
        if (refusal !== null && !refusals.has(checkpoint.position))
          refusals.set(checkpoint.position, refusal);
        return refusal === null;
      },
    });
    let finding: TamperFinding | null = chainReport.finding;
    const why =
      finding?.kind === 'checkpoint_mismatch' && finding.position
        ? refusals.get(finding.position)
        : undefined;
    // The adapter names the checkpoint; the key history says why its signature was refused.
    if (finding && why && !finding.detail.includes(why))
      finding = { ...finding, detail: `${finding.detail}: ${why}` };
    if (history.finding && (!finding || comparePositions(history.finding.position, finding.position) < 0))
      finding = history.finding;
    const report: KeyedVerificationReport = {
      ...chainReport,
      ok: finding === null,
      finding,
      keyHistory: history,
    };
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

  /**
   * Retires the active key for `successor` (ADR 0076): the rotation record, signed by both keys, is appended to
   * the log; the retired public key joins DATA_DIR's ring (written first: trust never comes from the log); the
   * new key replaces DATA_DIR's generated one; then the new key signs a checkpoint covering the record.
   */
  async rotate(request: RotationRequest): Promise<RotationResult> {
    const head = await this.seal();
    await this.followRotations();
    if (this.refusal) throw new SigningKeyRetired(this.refusal);
    const retiring = this.activeSigner;
    const { successor } = request;
    if (successor.keyId === retiring.keyId)
      throw new Error(`the new key is the active key ${retiring.keyId}: a rotation needs another key`);
    const rotationsVersion = await this.eventStore.streamVersion(KEY_ROTATION_STREAM);
    const rotationsBefore = await this.rotations();
    if (rotationsBefore.some((recorded) => recorded.rotation.retiredKeyId === successor.keyId))
      throw new Error(`key ${successor.keyId} was retired before: a retired key never signs again`);
    const unsigned: Omit<KeyRotation, 'signatures'> = {
      retiredKeyId: retiring.keyId,
      retiredPublicKey: retiring.publicKeyPem,
      successorKeyId: successor.keyId,
      successorPublicKey: successor.publicKeyPem,
      retiredAt: this.clock.now().toISOString(),
      sealedThrough: head && {
        chainIndex: head.chainIndex,
        position: head.position,
        chainHead: head.chainHead,
      },
      reason: request.reason,
      operator: request.metadata.actor,
    };
    const text = keyRotationSigningText(unsigned);
    // Both keys sign the hand-over: the chain of keys can be followed from the first one.
    const rotation: KeyRotation = {
      ...unsigned,
      signatures: { retired: retiring.signText(text), successor: successor.signText(text) },
    };
    const retiredKeyEntry = retiredKeyText({
      keyId: retiring.keyId,
      publicKeyPem: retiring.publicKeyPem,
      retiredAt: rotation.retiredAt,
      successorKeyId: successor.keyId,
    });
    const dataDir = this.keys?.dataDir ?? null;
    const installed = dataDir !== null && !this.keys!.configured ? 'data_dir' : 'configuration';
    // Trust first: the ring entry exists before the log names the key retired.
    const retiredKeyFile = dataDir ? writeRetiredKey(dataDir, retiredKeyEntry, retiring.keyId) : null;
    // The new key is in place before the record, so a service that sees the record loads it at once.
    const replacedKey =
      installed === 'data_dir' ? CheckpointSigner.installGenerated(dataDir!, request.successorPem) : null;
    const id = eventIdFor(`signing-key-rotation:${retiring.keyId}`, 0);
    let position: GlobalPosition;
    try {
      const appended = await this.eventStore.append(
        KEY_ROTATION_STREAM,
        [
          {
            id,
            type: KEY_ROTATION_EVENT_TYPE,
            schemaVersion: 1,
            data: rotation,
            metadata: request.metadata,
          },
        ],
        // The version read above: two rotations of the same moment cannot both retire the key.
        { expectedVersion: rotationsVersion ?? 'no_stream' },
      );
      position = appended.position;
    } catch (error) {
      // Not recorded: the old key stays active and trusted as it was.
      if (replacedKey !== null) CheckpointSigner.installGenerated(dataDir!, replacedKey);
      if (dataDir) removeRetiredKey(dataDir, retiring.keyId);
      if (error instanceof WrongExpectedVersion)
        throw new Error('another key rotation was recorded meanwhile: nothing was changed, run it again', {
          cause: error,
        });
      throw error;
    }
    this.activeSigner = successor;
    this.refusal = null;
    this.rotationsSeen = undefined;
    return {
      rotation,
      position,
      retiredKeyEntry,
      retiredKeyFile,
      installed,
      checkpoint: await this.handoverCheckpoint(position),
    };
  }

  /** The new key's first checkpoint, once the rotation record is sealed (bounded wait for older writers). */
  private async handoverCheckpoint(rotationPosition: GlobalPosition): Promise<ChainCheckpoint | null> {
    const deadline = Date.now() + HANDOVER_SEAL_WAIT_MS;
    for (;;) {
      const head = await this.seal();
      if (head && comparePositions(head.position, rotationPosition) >= 0) return this.checkpoint();
      if (Date.now() >= deadline) return null;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Cheap and incremental: verifies from the last checkpoint this process verified (the worker's step). */
  verifySinceLastVerified(): Promise<VerificationReport> {
    const from = this.lastVerified?.ok ? (this.lastVerified.checkpoint?.position ?? null) : null;
    return this.verify({ from });
  }
}
