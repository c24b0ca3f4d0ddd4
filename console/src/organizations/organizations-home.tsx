import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, ApiError, unwrap } from '../api/client';
import { ErrorView } from '../app/error-view';
import { useResetSession, useSession } from '../app/session';
import { teamKeys, words } from './team/queries';
import './team/team.css';

/** The account's organizations and, when the service allows it, the creation of one (rules 5 and 6). */
export default function OrganizationsHome() {
  const organizations = useQuery({
    queryKey: teamKeys.list,
    queryFn: () => unwrap(api.GET('/api/v2/organizations')),
  });
  const list = organizations.data?.organizations ?? [];
  return (
    <div className="team">
      <h1>Organizations</h1>
      <ErrorView error={organizations.error} />
      {organizations.isPending ? <p className="muted">Loading organizations…</p> : null}
      {organizations.data && list.length === 0 ? (
        <p className="muted">This account belongs to no organization.</p>
      ) : null}
      {list.length > 0 ? (
        <ul className="organization-list">
          {list.map((organization) => (
            <li key={organization.id}>
              <Link to={`/organizations/${organization.id}`}>{organization.name}</Link>{' '}
              <span className={`status status-${organization.status}`}>
                {words(organization.status)} · {words(organization.role)}
              </span>
            </li>
          ))}
        </ul>
      ) : null}
      <CreateOrganization />
    </div>
  );
}

type Start = 'trial' | 'subscription';

/**
 * Creation (rule 6): the service's preview first; an unavailable creation is shown with its reason; otherwise the
 * account transition is spelled out and explicitly accepted, with the transfer the preview showed.
 */
function CreateOrganization() {
  const session = useSession();
  const client = useQueryClient();
  const navigate = useNavigate();
  const resetSession = useResetSession();
  const ids = useId();
  const preview = useQuery({
    queryKey: teamKeys.preview,
    queryFn: () => unwrap(api.GET('/api/v2/organizations/creation-preview')),
  });
  const [name, setName] = useState('');
  const [start, setStart] = useState<Start>('trial');
  const [domain, setDomain] = useState('');
  const [accepted, setAccepted] = useState(false);
  const [transferChanged, setTransferChanged] = useState<number | null>(null);

  const create = useMutation({
    mutationFn: async (expectedTransfer: number) => {
      const created = await unwrap(
        api.POST('/api/v2/organizations', {
          body: {
            name: name.trim(),
            accept_account_transition: true,
            expected_transfer: expectedTransfer,
            start,
            ...(start === 'trial' ? { domain: domain.trim() } : {}),
          },
        }),
      );
      // The account now works in the organization context: this session enters it, and nothing read before
      // (personal credits, the preview) stays on screen.
      // Should the switch fail, the workspace shows the session outside the organization and enters it when
      // a space is chosen: the organization exists either way.
      await api.POST('/api/v2/organizations/{orgId}/switch', { params: { path: { orgId: created.id } } });
      return created;
    },
    onSuccess: async (created) => {
      await resetSession();
      void navigate(`/organizations/${created.id}`);
    },
    onError: async (error) => {
      if (error instanceof ApiError && error.code === 'transfer_changed') {
        // The personal balance moved since the preview: show the new amount and ask for acceptance again.
        setAccepted(false);
        const fresh = await preview.refetch();
        setTransferChanged(fresh.data?.transfer_credits ?? null);
      }
      await client.invalidateQueries({ queryKey: teamKeys.list });
    },
  });

  if (preview.isPending)
    return <p className="muted">Asking whether this account may create an organization…</p>;
  if (preview.error) return <ErrorView error={preview.error} title="Creation preview" />;
  const { allowed, reason, reason_code: reasonCode, transfer_credits: transfer } = preview.data;

  const missing = !name.trim()
    ? 'Give the organization a name.'
    : start === 'trial' && !domain.trim()
      ? 'A trial needs the business domain to verify.'
      : !accepted
        ? 'Accept the account transition first.'
        : null;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    // The button is aria-disabled (still focusable) with the reason shown: a click then does nothing.
    if (!allowed || missing) return;
    setTransferChanged(null);
    create.mutate(transfer);
  };

  return (
    <section aria-labelledby={`${ids}-heading`} className="panel">
      <h2 id={`${ids}-heading`}>Create an organization</h2>
      {!allowed ? (
        <p className="unavailable" role="status" data-reason={reasonCode}>
          Creation is unavailable for {session.email}: {reason ?? words(reasonCode ?? 'not allowed')}.
        </p>
      ) : null}
      <form onSubmit={submit} aria-describedby={`${ids}-transition`}>
        <label>
          Organization name
          <input value={name} onChange={(e) => setName(e.target.value)} maxLength={120} disabled={!allowed} />
        </label>
        <fieldset disabled={!allowed}>
          <legend>How it starts</legend>
          <label className="inline">
            <input type="radio" name="start" checked={start === 'trial'} onChange={() => setStart('trial')} />
            Trial: 14 days with 1,000 shared credits, after the business domain is verified by DNS
          </label>
          <label className="inline">
            <input
              type="radio"
              name="start"
              checked={start === 'subscription'}
              onChange={() => setStart('subscription')}
            />
            Subscribe without a trial: an empty billing workspace, no free credits, no payment until checkout
          </label>
        </fieldset>
        {start === 'trial' ? (
          <label>
            Business domain
            <input
              value={domain}
              onChange={(e) => setDomain(e.target.value)}
              placeholder="example.com"
              disabled={!allowed}
            />
          </label>
        ) : null}
        <fieldset id={`${ids}-transition`} className="transition" disabled={!allowed}>
          <legend>The account transition</legend>
          <ul>
            <li>
              This account then works in the organization&apos;s context; personal research is unavailable.
            </li>
            <li>
              <strong data-testid="transfer-credits">{transfer.toLocaleString()}</strong> purchased personal
              credits move to the organization and do not expire there.
            </li>
            <li>The personal plan is unchanged, and its monthly allowance is not transferred.</li>
          </ul>
          {transferChanged !== null ? (
            <p role="alert" className="error" data-code="transfer_changed">
              The credits that would move changed since the preview: now {transferChanged.toLocaleString()}.
              Read the transition again and accept it.
            </p>
          ) : null}
          <label className="inline">
            <input type="checkbox" checked={accepted} onChange={(e) => setAccepted(e.target.checked)} />I
            accept the account transition
          </label>
        </fieldset>
        <button type="submit" aria-disabled={!allowed || missing !== null || create.isPending}>
          {create.isPending ? 'Creating…' : 'Create organization'}
        </button>
        {allowed && missing ? <p className="unavailable">{missing}</p> : null}
      </form>
      {create.error && !(create.error instanceof ApiError && create.error.code === 'transfer_changed') ? (
        <ErrorView error={create.error} title="Not created" />
      ) : null}
    </section>
  );
}
