import type { ChainHead } from '../../platform/event-store/event-log-integrity.js';
import { comparePositions, type GlobalPosition } from '../../platform/event-store/global-position.js';
import type { ServiceContext } from '../../platform/service-context.js';

/**
 * Where an audit entry stands against the tamper-evident log (ADR 119):
 * - `verified`: at or before the last checkpoint this service verified (signature and chain head matched);
 * - `not_verified_yet`: after it, and the last verification found nothing (the next one will cover it);
 * - `verification_failed`: after it, and the last verification found tampering (`events verify` names where);
 * - `unverifiable`: the event store keeps no hash chain.
 */
export type EntryVerification = 'verified' | 'not_verified_yet' | 'verification_failed' | 'unverifiable';

/** What the service knows about the chain when a page of the audit log is read. */
export interface ChainVerificationView {
  readonly supported: boolean;
  /** The newest checkpoint this instance's last verification found matching, or null. */
  readonly last_verified_checkpoint: {
    readonly position: string;
    readonly chain_index: number;
    readonly chain_head: string;
    readonly signed_at: string;
  } | null;
  /** This instance's last verification of the log (the sealer's, every CHECKPOINT_INTERVAL_MS), or null. */
  readonly last_verification: {
    readonly at: string;
    readonly ok: boolean;
    readonly finding: string | null;
  } | null;
  /** The sealed head of the global chain: the newest event folded into it (verified or not). */
  readonly chain_head: {
    readonly position: string;
    readonly chain_index: number;
    readonly chain_head: string;
  } | null;
}

export interface ChainVerificationStatus {
  readonly view: ChainVerificationView;
  /** The verification of the entry at `position`: never `verified` past the last verified checkpoint. */
  of(position: string): EntryVerification;
}

/** Reads /health/ready's `event_log.verified` and the sealed head, and classifies entries against them. */
export async function chainVerificationStatus(context: ServiceContext): Promise<ChainVerificationStatus> {
  const integrity = context.storage.eventStore.integrity;
  if (!integrity) {
    return {
      view: { supported: false, last_verified_checkpoint: null, last_verification: null, chain_head: null },
      of: () => 'unverifiable',
    };
  }
  const verified = context.tamperEvidence.lastVerified;
  const checkpoint = verified?.checkpoint ?? null;
  const head: ChainHead | null = await integrity.sealedHead();
  const view: ChainVerificationView = {
    supported: true,
    last_verified_checkpoint: checkpoint && {
      position: checkpoint.position,
      chain_index: checkpoint.chainIndex,
      chain_head: checkpoint.chainHead,
      signed_at: checkpoint.at,
    },
    last_verification: verified && { at: verified.at, ok: verified.ok, finding: verified.finding ?? null },
    chain_head: head && { position: head.position, chain_index: head.chainIndex, chain_head: head.chainHead },
  };
  return {
    view,
    of: (position) => {
      if (checkpoint && comparePositions(position as GlobalPosition, checkpoint.position) <= 0)
        return 'verified';
      return verified && !verified.ok ? 'verification_failed' : 'not_verified_yet';
    },
  };
}
