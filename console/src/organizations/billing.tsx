import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, unwrap } from '../api/client';
import { ErrorView } from '../app/error-view';
import { useOrganization } from '../app/organization-frame';
import { formatDate, useOrganizationCredits, words } from './team/queries';
import { DomainVerification } from './team/verification';
import './team/team.css';

/** Billing (rules 5, 8 and 14): plan, status, trial end, what lifts a restriction, and the organization's credits. */
export default function Billing({ orgId }: { orgId: string }) {
  const organization = useOrganization(orgId);
  const credits = useOrganizationCredits(orgId);
  const data = organization.data;
  if (!data) return null;
  return (
    <div className="team">
      <h2>Billing</h2>
      <dl className="facts">
        <dt>Plan</dt>
        <dd>
          {data.plan ??
            (data.status === 'awaiting_payment' ? 'none until checkout is completed' : 'none yet')}
        </dd>
        <dt>Status</dt>
        <dd>{words(data.status)}</dd>
        <dt>Started as</dt>
        <dd>{data.start ?? '—'}</dd>
        {data.trial ? (
          <>
            <dt>Trial</dt>
            <dd>
              {data.trial.domain}: {data.trial.ended ? 'ended' : 'ends'} {formatDate(data.trial.ends_at)}
            </dd>
          </>
        ) : data.start === 'subscription' ? (
          <>
            <dt>Trial</dt>
            {/* Rule 5: a subscription starts with an empty billing workspace; its balance below is what moved in. */}
            <dd>none: subscribed without a trial, so no free credits</dd>
          </>
        ) : null}
        {data.requested_plan ? (
          <>
            <dt>Requested plan</dt>
            <dd>{data.requested_plan} (completed at checkout)</dd>
          </>
        ) : null}
      </dl>
      {data.restricted ? (
        <p className="restricted" role="status">
          Restricted until this is done: {data.action ?? words(data.status)}. The owner role does not bypass
          it.
        </p>
      ) : (
        <p className="state-ok">Not restricted.</p>
      )}
      <DomainVerification organization={data} />
      {data.status === 'awaiting_payment' ? <ChoosePlan orgId={orgId} current={data.requested_plan} /> : null}
      <section aria-labelledby="credits-heading" className="panel">
        <h3 id="credits-heading">Organization credits</h3>
        <ErrorView error={credits.error} />
        {credits.data?.scope === 'shared' ? (
          <dl className="facts">
            <dt>Available</dt>
            <dd data-testid="credits-available">{credits.data.available.toLocaleString()}</dd>
            <dt>Balance</dt>
            <dd data-testid="credits-balance">{credits.data.balance.toLocaleString()}</dd>
            <dt>Reserved for pending work</dt>
            <dd>{credits.data.reserved.toLocaleString()}</dd>
          </dl>
        ) : null}
        {credits.data?.scope === 'envelope' ? (
          <>
            <p>Your permitted envelope: {credits.data.available.toLocaleString()} credits available.</p>
            <ul>
              {credits.data.envelopes.map((envelope) => (
                <li key={envelope.key}>
                  {envelope.key}: {envelope.available.toLocaleString()} of {envelope.limit.toLocaleString()}
                </li>
              ))}
            </ul>
          </>
        ) : null}
      </section>
    </div>
  );
}

/** Subscribing without a trial: the owner chooses the paid plan that checkout completes. */
function ChoosePlan({ orgId, current }: { orgId: string; current: 'teams' | 'business' | null }) {
  const client = useQueryClient();
  const [plan, setPlan] = useState<'teams' | 'business'>(current ?? 'teams');
  const request = useMutation({
    mutationFn: () =>
      unwrap(
        api.PUT('/api/v2/organizations/{orgId}/billing', { params: { path: { orgId } }, body: { plan } }),
      ),
    onSuccess: (organization) => client.setQueryData(['organizations', orgId], organization),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    request.mutate();
  };
  return (
    <section aria-labelledby="plan-heading" className="panel">
      <h3 id="plan-heading">Choose the plan to check out</h3>
      <form onSubmit={submit} className="inline-form">
        <label>
          Plan
          <select
            aria-label="Plan"
            value={plan}
            onChange={(e) => setPlan(e.target.value as 'teams' | 'business')}
          >
            <option value="teams">Teams</option>
            <option value="business">Business</option>
          </select>
        </label>
        <button type="submit" aria-disabled={request.isPending}>
          Request this plan
        </button>
      </form>
      <ErrorView error={request.error} title="Plan not requested" />
    </section>
  );
}
