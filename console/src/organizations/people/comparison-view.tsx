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
      <p>
        {rows.length} record{rows.length === 1 ? '' : 's'} compared;{' '}
        {fields.length === 0
          ? 'they do not differ in any field.'
          : `${fields.length} field${fields.length === 1 ? ' differs' : 's differ'}: ${fields.join(', ')}.`}
      </p>
      {/* One column per compared record, one row per differing field: readable with many fields. */}
      <div className="table-scroll">
        <table className="comparison-table">
          <caption className="muted">Compared source records</caption>
          <thead>
            <tr>
              <th scope="col">Field</th>
              {rows.map((row, index) => (
                <th scope="col" key={`${row.evidenceId ?? ''}:${row.id ?? index}`}>
                  {[row.dataset, row.id].filter(Boolean).join(' ') || `record ${index + 1}`}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {fields.map((field) => (
              <tr key={field}>
                <th scope="row" className="differs">
                  {field}
                </th>
                {rows.map((row, index) => (
                  <td key={`${row.evidenceId ?? ''}:${row.id ?? index}`}>{fieldText(row.source?.[field])}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </article>
  );
}
