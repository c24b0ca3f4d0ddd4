import type { components } from '../api/schema';

type Verification = components['schemas']['OrganizationAuditLog']['verification'];
type EntryVerification =
  components['schemas']['OrganizationAuditLog']['entries'][number]['chain_verification'];

/** The service's words for an entry's place against the verified chain (it decides; the console only shows). */
const ENTRY_LABELS: Record<EntryVerification, { text: string; tone: string; title: string }> = {
  verified: {
    text: 'Verified',
    tone: 'ok',
    title: 'At or before the last signed checkpoint the service verified',
  },
  not_verified_yet: {
    text: 'Not verified yet',
    tone: 'pending',
    title: 'After the last verified checkpoint: the next verification covers it',
  },
  verification_failed: {
    text: 'Verification failed',
    tone: 'problem',
    title: 'After the last verified checkpoint, and the last verification found tampering',
  },
  unverifiable: {
    text: 'Unverifiable',
    tone: 'pending',
    title: 'This event store keeps no hash chain',
  },
};

export function EntryVerificationBadge({ verification }: { verification: EntryVerification }) {
  const label = ENTRY_LABELS[verification];
  return (
    <span className={`chain-badge chain-${label.tone}`} title={label.title} data-verification={verification}>
      {label.text}
    </span>
  );
}

function shortHash(hash: string): string {
  return hash.length > 16 ? `${hash.slice(0, 16)}…` : hash;
}

/** What the service knows about the tamper-evident log when it answered this page (ADR 119). */
export function ChainVerificationPanel({ verification }: { verification: Verification }) {
  const { last_verified_checkpoint: checkpoint, last_verification: last, chain_head: head } = verification;
  return (
    <section className="chain-panel" aria-labelledby="chain-title">
      <h3 id="chain-title">Chain verification</h3>
      {!verification.supported ? (
        <p role="status">This event store keeps no hash chain: entries cannot be verified.</p>
      ) : (
        <dl className="chain-facts">
          <dt>Last verified checkpoint</dt>
          <dd data-testid="last-verified-checkpoint">
            {checkpoint ? (
              <>
                position <code>{checkpoint.position}</code> (chain index {checkpoint.chain_index}), signed{' '}
                <time dateTime={checkpoint.signed_at}>{checkpoint.signed_at}</time>, chain head{' '}
                <code title={checkpoint.chain_head}>{shortHash(checkpoint.chain_head)}</code>
              </>
            ) : (
              <span className="muted">none yet: no entry is verified</span>
            )}
          </dd>
          <dt>Last verification</dt>
          <dd data-testid="last-verification">
            {last ? (
              <>
                <time dateTime={last.at}>{last.at}</time>:{' '}
                {last.ok ? (
                  <span className="state-ok">no tampering found</span>
                ) : (
                  <span className="state-problem">
                    tampering found{last.finding ? ` (${last.finding})` : ''}
                  </span>
                )}
              </>
            ) : (
              <span className="muted">the service has not verified the log since it started</span>
            )}
          </dd>
          <dt>Chain head</dt>
          <dd data-testid="chain-head">
            {head ? (
              <>
                position <code>{head.position}</code> (chain index {head.chain_index}), hash{' '}
                <code title={head.chain_head}>{shortHash(head.chain_head)}</code>
              </>
            ) : (
              <span className="muted">empty chain</span>
            )}
          </dd>
        </dl>
      )}
      <p className="muted small">
        Entries after the last verified checkpoint are shown as not verified yet, never as verified. An
        auditor can check the whole log with <code>npm run cli -- events verify</code>.
      </p>
    </section>
  );
}
