import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { ErrorView } from '../../app/error-view';

type Evaluation = components['schemas']['Evaluation'];
type Finding = components['schemas']['Finding'];

/**
 * The contract's careful wording: an association of the observed software with catalogue advisories, not an
 * assessment of the host; KEV is known exploitation of the advisory, not of this asset. The words "vulnerable"
 * and "exposed to" are never used for the host.
 */
export const ASSOCIATION_NOTE =
  'These advisories are associated with the software observed on this host (its product and version) in the ' +
  'catalogue. This is not an assessment of the host: the host was not contacted, and configuration, ' +
  'exploitability, ownership and current state are not confirmed.';

function kevText(kev: Finding['kev']): string {
  if (kev === null) return 'KEV: unknown';
  if (kev === false) return 'KEV: not listed in the loaded KEV catalogue';
  return `KEV: known exploitation of this advisory (not of this asset)${kev.date_added ? `, listed ${kev.date_added}` : ''}`;
}

function evaluationText(evaluation: Evaluation): string {
  if (evaluation.status === 'matched')
    return `${evaluation.total} catalogue advisor${evaluation.total === 1 ? 'y' : 'ies'} associated`;
  if (evaluation.status === 'no_match')
    return evaluation.complete
      ? 'No catalogue advisory associated (a completed catalogue lookup, not a security assessment)'
      : `No advisory associated so far, but the lookup is incomplete (${evaluation.reason})`;
  return `Undetermined: ${evaluation.reason}`;
}

/** POST /api/v2/data/enrich/vulnerabilities with the result's opaque reference (free; the host is not contacted). */
export function Findings({ reference, label }: { reference: string; label: string }) {
  const answer = useQuery({
    queryKey: ['findings', reference],
    queryFn: () => unwrap(api.POST('/api/v2/data/enrich/vulnerabilities', { body: { reference } })),
    staleTime: Infinity,
  });
  return (
    <section className="findings" aria-label={`Catalogue advisories for ${label}`}>
      <h3>Catalogue advisories associated with the software observed on {label}</h3>
      <p className="association-note">{ASSOCIATION_NOTE}</p>
      {answer.isPending ? <p role="status">Looking up the catalogue…</p> : null}
      <ErrorView error={answer.error} title="The catalogue lookup failed" />
      {answer.data ? (
        <>
          <p className="muted">{answer.data.notice}</p>
          {answer.data.evaluations.map((evaluation, index) => (
            <div key={`${evaluation.cpe}-${index}`} className="evaluation">
              <p>
                <strong>{evaluationText(evaluation)}</strong>
                {evaluation.cpe ? <code> {evaluation.cpe}</code> : null}
              </p>
              {evaluation.findings.length > 0 ? (
                <ul className="finding-list">
                  {evaluation.findings.map((finding) => (
                    <li key={finding.id}>
                      <strong>{finding.id}</strong>
                      {finding.cvss
                        ? ` — CVSS ${finding.cvss.base_score} (${finding.cvss.base_severity.toLowerCase()})`
                        : finding.severity
                          ? ` — ${finding.severity.toLowerCase()}`
                          : ''}
                      <div className={finding.kev ? 'kev known' : 'kev'}>{kevText(finding.kev)}</div>
                      {finding.observed_products.length > 0 ? (
                        <div className="muted">
                          Observed software:{' '}
                          {finding.observed_products
                            .map((product) =>
                              [product.vendor, product.product, product.version].filter(Boolean).join(' '),
                            )
                            .join('; ')}
                        </div>
                      ) : null}
                      {finding.additional_conditions.length > 0 ? (
                        <div className="muted">
                          Applies only under further conditions the observation cannot confirm.
                        </div>
                      ) : null}
                      {finding.description ? <p className="description">{finding.description}</p> : null}
                    </li>
                  ))}
                </ul>
              ) : null}
            </div>
          ))}
        </>
      ) : null}
    </section>
  );
}
