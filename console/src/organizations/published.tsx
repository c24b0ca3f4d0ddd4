import { useQuery } from '@tanstack/react-query';
import { useParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { ErrorView } from '../app/error-view';
import { useOrganization } from '../app/organization-frame';
import { ComparisonView } from './people/comparison-view';
import { peopleKeys } from './people/shared';
import './people/people.css';

/**
 * What an external client keeps (rule 11): only the explicitly published view of one of their spaces
 * (GET /clients/{clientId}/published). Staff see the same view, as the client sees it. A refusal is shown as
 * the service gives it.
 */
export default function Published({ orgId }: { orgId: string }) {
  const { clientId = '' } = useParams();
  const organization = useOrganization(orgId);
  const published = useQuery({
    queryKey: peopleKeys.published(orgId, clientId),
    queryFn: () =>
      unwrap(
        api.GET('/api/v2/organizations/{orgId}/clients/{clientId}/published', {
          params: { path: { orgId, clientId } },
        }),
      ),
  });
  const space = organization.data?.spaces.find((s) => s.id === clientId);
  return (
    <section className="people-section" aria-labelledby="published-title">
      <h2 id="published-title">Published view{space ? ` of ${space.name}` : ''}</h2>
      <p className="muted">
        Only what this organization has explicitly published to the space. Nothing else of its internal work
        is shown here.
      </p>
      <ErrorView error={published.error} title="Published view unavailable" />
      {published.isPending ? (
        <p role="status" className="muted">
          Loading the published view…
        </p>
      ) : null}
      {published.data && published.data.comparisons.length === 0 ? (
        <p>Nothing has been published to this space yet.</p>
      ) : null}
      {published.data?.comparisons.map((comparison) => (
        <ComparisonView key={comparison.id} comparison={comparison} headingLevel={3} />
      ))}
    </section>
  );
}
