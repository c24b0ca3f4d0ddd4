import { useId } from 'react';
import type { components } from '../../api/schema';
import { credits } from '../exports/format';

export type CreditUsage = components['schemas']['CreditUsage'];
type Category = CreditUsage['usage'][number]['category'];

const CATEGORY_LABELS: Record<Category, string> = {
  host: 'Hosts',
  dns: 'DNS',
  whois: 'WHOIS',
  certs: 'Certificates',
  alerting: 'Alerting',
  subdomains: 'Subdomains',
  exports: 'Exports',
  tools: 'Tools',
};

export function categoryLabel(category: Category): string {
  return CATEGORY_LABELS[category] ?? category;
}

/**
 * Credits used this cycle by category, as the service counted them: one bar per category (hand-made SVG), its
 * MCP part drawn inside it (usage_mcp is a subset of usage, not an extra charge). Each bar says its numbers to
 * assistive technology, and the table below it gives the same numbers to read exactly.
 */
export function UsageChart({ usage }: { usage: CreditUsage }) {
  const captionId = useId();
  const mcpOf = new Map(usage.usage_mcp.map((entry) => [entry.category, entry.credits]));
  // The scale only: the longest bar fills the width.
  const longest = Math.max(1, ...usage.usage.map((entry) => entry.credits));
  return (
    <figure className="usage-chart" aria-labelledby={captionId}>
      <figcaption id={captionId}>Credits used this cycle, by category</figcaption>
      <ul>
        {usage.usage.map(({ category, credits: used }) => {
          const mcp = mcpOf.get(category) ?? 0;
          const label = `${categoryLabel(category)}: ${credits(used)}${mcp > 0 ? `, of which ${credits(mcp)} through MCP` : ''}`;
          return (
            <li key={category} data-category={category}>
              <span className="usage-label">{categoryLabel(category)}</span>
              <svg
                className="usage-bar"
                viewBox="0 0 100 10"
                preserveAspectRatio="none"
                role="img"
                aria-label={label}
              >
                <rect className="usage-track" x="0" y="0" width="100" height="10" />
                <rect className="usage-all" x="0" y="0" width={(used / longest) * 100} height="10" />
                {mcp > 0 ? (
                  <rect className="usage-mcp" x="0" y="6" width={(mcp / longest) * 100} height="4" />
                ) : null}
              </svg>
              <span className="usage-value" aria-hidden="true">
                {used}
                {mcp > 0 ? <small> ({mcp} MCP)</small> : null}
              </span>
            </li>
          );
        })}
      </ul>
      <div className="table-scroll">
        <table className="usage-table">
          <caption>Usage by category (the chart's numbers)</caption>
          <thead>
            <tr>
              <th scope="col">Category</th>
              <th scope="col">Credits used</th>
              <th scope="col">Of which through MCP</th>
            </tr>
          </thead>
          <tbody>
            {usage.usage.map(({ category, credits: used }) => (
              <tr key={category}>
                <th scope="row">{categoryLabel(category)}</th>
                <td>{used}</td>
                <td>{mcpOf.get(category) ?? 0}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
