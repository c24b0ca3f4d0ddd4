import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ComparisonView } from '../src/organizations/people/comparison-view';
import { recordSummary } from '../src/organizations/people/record-summary';
import { ActionButton, type Comparison } from '../src/organizations/people/shared';

afterEach(cleanup);

describe('ActionButton', () => {
  it('keeps an unavailable action visible, marked aria-disabled, with its reason, and does not act', () => {
    const act = vi.fn();
    render(
      <ActionButton unavailable="Unavailable: your role (Analyst) does not manage members." onClick={act}>
        Remove
      </ActionButton>,
    );
    const button = screen.getByRole('button', { name: 'Remove' });
    expect(button.getAttribute('aria-disabled')).toBe('true');
    expect(screen.getByText('Unavailable: your role (Analyst) does not manage members.')).toBeTruthy();
    fireEvent.click(button);
    expect(act).not.toHaveBeenCalled();
  });

  it('points to a reason shown once for several actions', () => {
    render(
      <>
        <p id="why">Not yours to change.</p>
        <ActionButton unavailable="Not yours to change." reasonId="why">
          Change role
        </ActionButton>
      </>,
    );
    const button = screen.getByRole('button', { name: 'Change role' });
    expect(button.getAttribute('aria-describedby')).toBe('why');
    expect(screen.getAllByText('Not yours to change.')).toHaveLength(1);
  });

  it('acts when available', () => {
    const act = vi.fn();
    render(<ActionButton onClick={act}>Assign</ActionButton>);
    fireEvent.click(screen.getByRole('button', { name: 'Assign' }));
    expect(act).toHaveBeenCalledTimes(1);
  });
});

describe('ComparisonView', () => {
  const comparison: Comparison = {
    id: '7d1f9c5e-0000-4000-8000-000000000001',
    space_id: '7d1f9c5e-0000-4000-8000-000000000002',
    title: 'Alpha hosts compared',
    evidence: [{ evidenceId: 'e1' }],
    rows: [
      { dataset: 'hosts', id: '10.0.0.1:80/tcp', evidenceId: 'e1', source: { port: 80, product: 'nginx' } },
      { dataset: 'hosts', id: '10.0.0.2:80/tcp', evidenceId: 'e1', source: { port: 80, product: 'caddy' } },
    ],
    differing_fields: ['product'],
    published: false,
    prepared_at: '2026-11-28T19:00:00.000Z',
  };

  it("shows one row per differing field (the service's), one column per compared record", () => {
    render(<ComparisonView comparison={comparison} />);
    expect(screen.getByRole('heading', { name: 'Alpha hosts compared' })).toBeTruthy();
    const headers = screen.getAllByRole('columnheader').map((cell) => cell.textContent);
    expect(headers).toEqual(['Field', 'hosts 10.0.0.1:80/tcp', 'hosts 10.0.0.2:80/tcp']);
    const product = screen.getByRole('rowheader', { name: 'product' }).closest('tr');
    expect([...(product?.querySelectorAll('td') ?? [])].map((cell) => cell.textContent)).toEqual([
      'nginx',
      'caddy',
    ]);
    expect(screen.queryByRole('rowheader', { name: 'port' })).toBeNull();
    expect(screen.getByText(/1 field differs: product/)).toBeTruthy();
    expect(screen.getByText('Not published')).toBeTruthy();
  });
});

describe('recordSummary', () => {
  it('names a queued record by dataset and id, with its first plain fields', () => {
    expect(
      recordSummary({
        dataset: 'hosts',
        id: '10.0.0.1:80/tcp',
        source: { id: 'x', ip: '10.0.0.1', port: 80 },
      }),
    ).toEqual({ title: 'hosts 10.0.0.1:80/tcp', detail: 'ip: 10.0.0.1 · port: 80' });
  });
});
