import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { UsageChart, type CreditUsage } from '../src/research/credits/usage-chart';

afterEach(cleanup);

const CATEGORIES = ['host', 'dns', 'whois', 'certs', 'alerting', 'subdomains', 'exports', 'tools'] as const;

function usageOf(values: Partial<Record<(typeof CATEGORIES)[number], number>>, mcp = {} as typeof values) {
  return {
    cycle_start: '2026-11-01T00:00:00.000Z',
    usage: CATEGORIES.map((category) => ({ category, credits: values[category] ?? 0 })),
    usage_mcp: CATEGORIES.map((category) => ({ category, credits: mcp[category] ?? 0 })),
  } satisfies CreditUsage;
}

describe('UsageChart', () => {
  it("labels each bar with the service's numbers, the MCP part inside it, and repeats them in a table", () => {
    render(<UsageChart usage={usageOf({ host: 4, exports: 3, whois: 1 }, { exports: 2 })} />);
    expect(
      screen.getByRole('img', { name: 'Exports: 3 credits, of which 2 credits through MCP' }),
    ).toBeTruthy();
    expect(screen.getByRole('img', { name: 'WHOIS: 1 credit' })).toBeTruthy();
    expect(screen.getByRole('img', { name: 'Tools: 0 credits' })).toBeTruthy();
    const row = screen.getByRole('row', { name: /Exports/ });
    expect(
      within(row)
        .getAllByRole('cell')
        .map((cell) => cell.textContent),
    ).toEqual(['3', '2']);
    expect(screen.getAllByRole('img')).toHaveLength(CATEGORIES.length);
  });

  it('scales the bars to the largest category (the longest fills the width); an empty cycle draws no bar', () => {
    const { container, rerender } = render(<UsageChart usage={usageOf({ host: 4, dns: 1 })} />);
    const width = (category: string) =>
      container.querySelector(`li[data-category="${category}"] .usage-all`)?.getAttribute('width');
    expect(width('host')).toBe('100');
    expect(width('dns')).toBe('25');
    rerender(<UsageChart usage={usageOf({})} />);
    expect(width('host')).toBe('0');
  });
});
