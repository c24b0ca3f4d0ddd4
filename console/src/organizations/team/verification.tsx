import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { ErrorView } from '../../app/error-view';
import type { Organization } from '../../app/organization-frame';

/**
 * A trial's admission (rule 5): the DNS TXT record to publish, exactly as the service gives it, and the check
 * the service runs against DNS. Shown while the organization awaits its domain proof.
 */
export function DomainVerification({ organization }: { organization: Organization }) {
  const client = useQueryClient();
  const check = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v2/organizations/{orgId}/verification', {
          params: { path: { orgId: organization.id } },
        }),
      ),
    onSuccess: async (verified) => {
      client.setQueryData(['organizations', organization.id], verified);
      await client.invalidateQueries({ queryKey: ['organizations', organization.id] });
    },
  });
  const verification = organization.verification;
  if (organization.status !== 'pending_verification' || !verification) return null;
  return (
    <section className="panel" aria-labelledby="verification-heading">
      <h2 id="verification-heading">Verify {verification.domain}</h2>
      <p>
        The trial opens once the business domain is proven. Publish this DNS record at the domain&apos;s DNS
        provider, then check it here. A personal mailbox domain is not proof.
      </p>
      <dl className="dns-record">
        <dt>Type</dt>
        <dd>
          <code>{verification.record.type}</code>
        </dd>
        <dt>Name</dt>
        <dd>
          <code data-testid="txt-name">{verification.record.name}</code>
        </dd>
        <dt>Value</dt>
        <dd>
          <code data-testid="txt-value">{verification.record.value}</code>
        </dd>
      </dl>
      <button type="button" onClick={() => check.mutate()} disabled={check.isPending}>
        {check.isPending ? 'Checking DNS…' : 'Check the DNS record'}
      </button>
      <ErrorView error={check.error} title="Not verified yet" />
    </section>
  );
}
