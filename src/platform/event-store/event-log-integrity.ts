/**
 * Tamper evidence of the event log (ADR 0060-0062): what an adapter that keeps the hash chain offers the
 * sealer, the verifier (`events verify`) and the signed checkpoints.
 */
import type { SqlExecutor } from '../database/sql-database.js';
import type { RecordedEvent } from './event-store.port.js';
import type { GlobalPosition } from './global-position.js';

/**
 * Rewrites the data of an event written before the chain existed, before it is hashed for the first time
 * (secrets moved out of the log). Runs inside the transaction that hashes the event; returns the new data,
 * or undefined to keep it.
 */
export type LegacyEventRewriter = (event: RecordedEvent, tx: SqlExecutor) => Promise<unknown | undefined>;

/** A point of the sealed global chain. */
export interface ChainHead {
  /** 0-based index in the global chain. */
  readonly chainIndex: number;
  readonly position: GlobalPosition;
  /** Hex SHA-256 chain hash through this event. */
  readonly chainHead: string;
}

/** A signed statement "the log through `position` hashes to `chainHead`" (stored in the `$checkpoints` stream). */
export interface ChainCheckpoint extends ChainHead {
  /** ISO-8601 time of signing. */
  readonly at: string;
  /** First 16 hex digits of the SHA-256 of the public key (DER). */
  readonly keyId: string;
  /** Base64 Ed25519 signature of checkpointSigningText(...). */
  readonly signature: string;
}

export const CHECKPOINT_STREAM = '$checkpoints';
export const CHECKPOINT_EVENT_TYPE = 'ChainCheckpointSigned';

/** What is signed: the checkpoint without its signature, keys sorted. */
export function checkpointSigningText(checkpoint: Omit<ChainCheckpoint, 'signature'>): string {
  return JSON.stringify({
    at: checkpoint.at,
    chainHead: checkpoint.chainHead,
    chainIndex: checkpoint.chainIndex,
    keyId: checkpoint.keyId,
    position: checkpoint.position,
  });
}

export type TamperKind =
  /** The payload no longer matches its digest. */
  | 'changed_payload'
  /** Envelope or metadata no longer match the content hash. */
  | 'changed_event'
  | 'removed'
  | 'inserted'
  | 'reordered'
  /** Stored stream or chain hashes do not follow from their inputs. */
  | 'broken_chain'
  /** A checkpoint's signature is wrong, or the chain no longer hashes to what it signed. */
  | 'checkpoint_mismatch'
  /** Payloads were removed but no erasure event in the log accounts for it. */
  | 'unattributed_erasure';

export interface TamperFinding {
  readonly kind: TamperKind;
  /** The first global position concerned. */
  readonly position: GlobalPosition | null;
  readonly eventId: string | null;
  readonly streamId: string | null;
  readonly detail: string;
}

/** Consecutive erased events of one stream: not tampering, an erasure recorded by `erasedBy`. */
export interface ErasedSpan {
  readonly streamId: string;
  readonly fromVersion: number;
  readonly toVersion: number;
  readonly fromPosition: GlobalPosition;
  readonly toPosition: GlobalPosition;
  readonly erasedBy: string;
  readonly erasedAt: string;
}

export interface VerificationReport {
  readonly ok: boolean;
  readonly from: GlobalPosition | null;
  readonly eventsChecked: number;
  /** The last sealed event checked. */
  readonly sealedThrough: ChainHead | null;
  /** Visible events not sealed yet (checked against their stream chains only). */
  readonly unsealed: number;
  readonly erasedSpans: readonly ErasedSpan[];
  readonly checkpointsChecked: number;
  /** The newest checkpoint whose signature and chain head matched. */
  readonly lastVerifiedCheckpoint: ChainCheckpoint | null;
  /** The first problem in global order; null when the log verified. */
  readonly finding: TamperFinding | null;
}

export interface VerifyOptions {
  /** Verify events strictly after this position, trusting the stored hashes before it. */
  readonly from?: GlobalPosition | null;
  /** A checkpoint kept outside the service, which the log must still match. */
  readonly externalCheckpoint?: ChainCheckpoint;
  /** True when the checkpoint's signature is valid for a key the service trusts. */
  readonly checkSignature: (checkpoint: ChainCheckpoint) => boolean;
  readonly onProgress?: (checked: number, total: number) => void;
}

export interface EventLogIntegrity {
  /** Seals every visible event into the global chain; idempotent, resumes where the last run stopped. */
  seal(): Promise<ChainHead | null>;
  /** The sealed head (null for an empty chain). */
  sealedHead(): Promise<ChainHead | null>;
  verify(options: VerifyOptions): Promise<VerificationReport>;
}
