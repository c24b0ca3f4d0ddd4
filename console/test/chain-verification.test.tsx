import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ChainVerificationPanel, EntryVerificationBadge } from '../src/audit/chain-verification';

afterEach(cleanup);

const CHECKPOINT = {
  position: '120',
  chain_index: 119,
  chain_head: 'a'.repeat(64),
  signed_at: '2026-11-28T10:00:00.000Z',
};

describe('chain verification', () => {
  it('shows the last verified checkpoint, the last verification and the chain head as the service answered', () => {
    render(
      <ChainVerificationPanel
        verification={{
          supported: true,
          last_verified_checkpoint: CHECKPOINT,
          last_verification: { at: '2026-11-28T10:00:01.000Z', ok: true, finding: null },
          chain_head: { position: '130', chain_index: 129, chain_head: 'b'.repeat(64) },
        }}
      />,
    );
    expect(screen.getByTestId('last-verified-checkpoint').textContent).toContain('position 120');
    expect(screen.getByTestId('last-verification').textContent).toContain('no tampering found');
    expect(screen.getByTestId('chain-head').textContent).toContain('position 130');
  });

  it('says when nothing is verified yet, and when the last verification found tampering', () => {
    render(
      <ChainVerificationPanel
        verification={{
          supported: true,
          last_verified_checkpoint: null,
          last_verification: { at: '2026-11-28T10:00:01.000Z', ok: false, finding: 'changed_payload at 7' },
          chain_head: null,
        }}
      />,
    );
    expect(screen.getByTestId('last-verified-checkpoint').textContent).toContain('no entry is verified');
    expect(screen.getByTestId('last-verification').textContent).toContain(
      'tampering found (changed_payload at 7)',
    );
  });

  it('labels each entry with the service’s verdict, never upgrading it', () => {
    render(
      <>
        <EntryVerificationBadge verification="verified" />
        <EntryVerificationBadge verification="not_verified_yet" />
        <EntryVerificationBadge verification="verification_failed" />
      </>,
    );
    expect(screen.getByText('Verified').getAttribute('data-verification')).toBe('verified');
    expect(screen.getByText('Not verified yet').getAttribute('data-verification')).toBe('not_verified_yet');
    expect(screen.getByText('Verification failed').getAttribute('data-verification')).toBe(
      'verification_failed',
    );
  });
});
