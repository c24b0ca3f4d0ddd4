import type { ReactNode } from 'react';
import { fieldText } from './record-summary';
import type { Comparison } from './shared';

type Row = { dataset?: string; id?: string; evidenceId?: string; source?: Record<string, unknown> };

/**
 * A report comparison as the service prepared it: the compared source records, with the fields whose values
 * differ between them (the service's `differing_fields`) as columns.
 */
export function ComparisonView({
  comparison,
  headingLevel = 2,
  spaceLabel,
  actions,
}: {
  comparison: Comparison;
  headingLevel?: 2 | 3;
  spaceLabel?: string;
  actions?: ReactNode;
}) {
  const Heading = headingLevel === 2 ? 'h2' : 'h3';
  const rows = comparison.rows as Row[];
  const fields = comparison.differing_fields;
  return (
    <article
      className="people-section comparison"
      aria-label={comparison.title}
      data-comparison={comparison.id}
    >
      <Heading>{comparison.title}</Heading>
      <p className="muted">
        {spaceLabel ? `${spaceLabel} · ` : ''}prepared {new Date(comparison.prepared_at).toLocaleString()} ·{' '}
        {comparison.evidence.length} evidence item{comparison.evidence.length === 1 ? '' : 's'} ·{' '}
        <span data-field="published">
          {comparison.published ? 'Published to the client' : 'Not published'}
        </span>
      </p>
      {actions}
      {fields.length === 0 ? (
        <p>The compared records do not differ in any field.</p>
      ) : (
        <p>
          Fields that differ: <strong>{fields.join(', ')}</strong>
        </p>
      )}
      <div className="table-scroll">
        <table>
          <caption className="muted">Compared source records</caption>
          <thead>
            <tr>
              <th scope="col">Dataset</th>
              <th scope="col">Record</th>
              {fields.map((field) => (
                <th scope="col" key={field} className="differs">
                  {field}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row, index) => (
              <tr key={`${row.evidenceId ?? ''}:${row.id ?? index}`}>
                <td>{row.dataset ?? '—'}</td>
                <td className="account-id">{row.id ?? '—'}</td>
                {fields.map((field) => (
                  <td key={field}>{fieldText(row.source?.[field])}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </article>
  );
}
