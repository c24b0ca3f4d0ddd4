/**
 * What every adapter's verifier (`events verify`, ADR 0061) keeps while it walks the log, whatever the storage:
 * the checkpoints to hold the chain against, each stream's next version, the erased spans, and the report.
 * The PostgreSQL and EventStoreDB verifiers differ in how they read the log and the sealed chain, not in this.
 */
import type {
  ChainCheckpoint,
  ChainHead,
  ErasedSpan,
  TamperFinding,
  TamperKind,
  VerificationReport,
  VerifyOptions,
} from './event-log-integrity.js';
import type { GlobalPosition } from './global-position.js';

/** The first finding of a walk, thrown to end it and turned into the report. */
export class ChainFinding extends Error {
  constructor(readonly finding: TamperFinding) {
    super(finding.detail);
  }
}

/** Where a finding lies: an event's position and stream, or nowhere in particular. */
export interface FindingPlace {
  readonly position: GlobalPosition | null;
  readonly streamId: string | null;
}

export function chainFinding(
  kind: TamperKind,
  at: FindingPlace | null,
  eventId: string | null,
  detail: string,
): ChainFinding {
  return new ChainFinding({
    kind,
    position: at?.position ?? null,
    eventId,
    streamId: at?.streamId ?? null,
    detail,
  });
}

export class ChainWalk {
  readonly from: GlobalPosition | null;
  checked = 0;
  unsealed = 0;
  /** The last sealed event passed (its head written out in hex once, for the report). */
  private lastSealed: { index: number; head: Buffer | string; position: () => GlobalPosition } | null = null;
  readonly erasedSpans: ErasedSpan[] = [];
  private readonly spanOfStream = new Map<string, number>();
  /** Checkpoints not met yet, by the chain index they name. */
  private readonly expected = new Map<number, ChainCheckpoint[]>();
  private checkpointsChecked = 0;
  private lastVerifiedCheckpoint: ChainCheckpoint | null = null;

  constructor(private readonly options: VerifyOptions) {
    this.from = options.from ?? null;
  }

  /** The chain through `checkpoint.chainIndex` must hash to what it signed, once the walk gets there. */
  expectCheckpoint(checkpoint: ChainCheckpoint): void {
    const list = this.expected.get(checkpoint.chainIndex) ?? [];
    list.push(checkpoint);
    this.expected.set(checkpoint.chainIndex, list);
  }

  /** Checks one checkpoint: a valid signature, and the chain head and position it names. */
  checkCheckpoint(checkpoint: ChainCheckpoint, chainHead: string, position: GlobalPosition): void {
    this.checkpointsChecked += 1;
    const mismatch = (detail: string): ChainFinding =>
      chainFinding('checkpoint_mismatch', { position: checkpoint.position, streamId: null }, null, detail);
    if (!this.options.checkSignature(checkpoint))
      throw mismatch(
        `the checkpoint of ${checkpoint.at} at chain index ${checkpoint.chainIndex} has no valid signature (key ${checkpoint.keyId})`,
      );
    const lastVerified = this.lastVerifiedCheckpoint;
    if (chainHead !== checkpoint.chainHead || position !== checkpoint.position)
      throw mismatch(
        `the log through chain index ${checkpoint.chainIndex} no longer hashes to the checkpoint signed ${checkpoint.at}` +
          (lastVerified
            ? ` (it still matched the checkpoint at index ${lastVerified.chainIndex}, position ${lastVerified.position}: the change lies between)`
            : ''),
      );
    if (!lastVerified || checkpoint.chainIndex >= lastVerified.chainIndex)
      this.lastVerifiedCheckpoint = checkpoint;
  }

  /**
   * The walk passed sealed chain index `index`, whose chain hash is `head` (bytes, or hex text): checks the
   * checkpoints naming it.
   * The position is asked for only when needed (a checkpoint here, or the report).
   */
  sealed(index: number, head: Buffer | string, position: () => GlobalPosition): void {
    this.lastSealed = { index, head, position };
    const checkpoints = this.expected.get(index);
    if (!checkpoints) return;
    const chainHead = hexOf(head);
    for (const checkpoint of checkpoints) this.checkCheckpoint(checkpoint, chainHead, position());
    this.expected.delete(index);
  }

  /** After the walk: a checkpoint still expected names an index the sealed chain no longer reaches. */
  noCheckpointBeyond(sealedCount: number): void {
    for (const [index] of this.expected)
      throw chainFinding(
        'checkpoint_mismatch',
        null,
        null,
        `a checkpoint names chain index ${index}, beyond the sealed chain (${sealedCount} events): events were removed`,
      );
  }

  /**
   * The version an event of a stream must have after `lastVersion` (undefined: the stream's first event of the
   * walk, version 0 unless the walk starts from a position, which trusts what came before).
   */
  expectedVersion(version: number, lastVersion: number | undefined): number {
    return lastVersion === undefined ? (this.from ? version : 0) : lastVersion + 1;
  }

  /** An event whose version is not the one expected: a gap (removed) or a step back (reordered). */
  versionFinding(
    at: FindingPlace & { readonly streamId: string },
    eventId: string | null,
    version: number,
    expected: number,
  ): ChainFinding {
    return chainFinding(
      version > expected ? 'removed' : 'reordered',
      at,
      eventId,
      version > expected
        ? `${at.streamId} jumps from version ${expected - 1} to ${version}: events are missing`
        : `${at.streamId} version ${version} comes after version ${expected - 1}`,
    );
  }

  /** One more erased event: one span per stream and erasure while its versions follow each other. */
  noteErased(
    streamId: string,
    version: number,
    position: GlobalPosition,
    erasedBy: string,
    erasedAt: string,
  ): void {
    const open = this.spanOfStream.get(streamId);
    const span = open === undefined ? undefined : this.erasedSpans[open];
    if (span && span.erasedBy === erasedBy && span.toVersion === version - 1) {
      this.erasedSpans[open!] = { ...span, toVersion: version, toPosition: position };
      return;
    }
    this.spanOfStream.set(streamId, this.erasedSpans.length);
    this.erasedSpans.push({
      streamId,
      fromVersion: version,
      toVersion: version,
      fromPosition: position,
      toPosition: position,
      erasedBy,
      erasedAt,
    });
  }

  /** Every erasure must be recorded by an event of the log: the first span whose eraser is not one is named. */
  everyErasureAttributed(isEventOfTheLog: (eventId: string) => boolean): void {
    const span = this.erasedSpans.find((each) => !isEventOfTheLog(each.erasedBy));
    if (span)
      throw chainFinding(
        'unattributed_erasure',
        { position: span.fromPosition, streamId: span.streamId },
        null,
        `${span.streamId} versions ${span.fromVersion}-${span.toVersion} are erased "by" ${span.erasedBy}, which is not an event of the log`,
      );
  }

  get sealedThrough(): ChainHead | null {
    const last = this.lastSealed;
    return last ? { chainIndex: last.index, position: last.position(), chainHead: hexOf(last.head) } : null;
  }

  report(finding: TamperFinding | null): VerificationReport {
    return {
      ok: finding === null,
      from: this.from,
      eventsChecked: this.checked,
      sealedThrough: this.sealedThrough,
      unsealed: this.unsealed,
      erasedSpans: this.erasedSpans,
      checkpointsChecked: this.checkpointsChecked,
      lastVerifiedCheckpoint: this.lastVerifiedCheckpoint,
      finding,
    };
  }
}

function hexOf(hash: Buffer | string): string {
  return typeof hash === 'string' ? hash : hash.toString('hex');
}
