import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { ErrorView } from '../app/error-view';
import { UsageChart } from './credits/usage-chart';
import { count, date } from './exports/format';
import './credits/credits.css';

/**
 * The account's credits (issue 19, ADR 115): the credit state and this cycle's usage by category, as the service
 * answers them (GET /api/v2/auth/credits and /credits/usage). Nothing here is computed but the bars' scale.
 */
export default function CreditsPage() {
  const state = useQuery({
    queryKey: ['credits'],
    queryFn: () => unwrap(api.GET('/api/v2/auth/credits')),
  });
  const usage = useQuery({
    queryKey: ['credits', 'usage'],
    queryFn: () => unwrap(api.GET('/api/v2/auth/credits/usage')),
  });
  const credits = state.data;
  return (
    <>
      <h1>Credits</h1>
      <ErrorView error={state.error} title="The credits could not be read" />
      {state.isPending ? <p className="muted">Loading the credits…</p> : null}
      {credits ? (
        <section aria-labelledby="credits-balance">
          <h2 id="credits-balance">Balance</h2>
          <dl className="credit-facts">
            <div>
              <dt>Plan</dt>
              <dd data-testid="credits-plan">
                {credits.plan_label}
                {credits.is_legacy ? <span className="muted"> (legacy)</span> : null}
              </dd>
            </div>
            <div>
              <dt>Monthly credits</dt>
              <dd data-testid="credits-monthly">{count(credits.monthly_credits)}</dd>
            </div>
            <div>
              <dt>Used this cycle</dt>
              <dd data-testid="credits-used">{count(credits.credits_used)}</dd>
            </div>
            <div>
              <dt>Purchased balance</dt>
              <dd data-testid="credits-purchased">{count(credits.purchased_credits)}</dd>
            </div>
            <div>
              <dt>Purchased, lifetime</dt>
              <dd>{count(credits.lifetime_purchased)}</dd>
            </div>
            <div>
              <dt>Paid entitlement</dt>
              <dd>{credits.has_paid_entitlement ? 'Yes' : 'No'}</dd>
            </div>
            <div>
              <dt>Cycle</dt>
              <dd>
                {date(credits.cycle_start)} to {date(credits.cycle_end)}
              </dd>
            </div>
          </dl>
        </section>
      ) : null}
      <section aria-labelledby="credits-usage">
        <h2 id="credits-usage">Usage this cycle</h2>
        <ErrorView error={usage.error} title="The usage could not be read" />
        {usage.isPending ? <p className="muted">Loading the usage…</p> : null}
        {usage.data ? (
          <>
            <p className="muted">Since {date(usage.data.cycle_start)}.</p>
            <UsageChart usage={usage.data} />
          </>
        ) : null}
      </section>
    </>
  );
}
