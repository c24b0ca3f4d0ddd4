import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { NavLink, useSearchParams } from 'react-router';
import { api, unwrap } from '../api/client';
import type { components } from '../api/schema';
import { ErrorView } from './error-view';

export type Organization = components['schemas']['Organization'];

export function organizationQuery(orgId: string) {
  return {
    queryKey: ['organizations', orgId],
    queryFn: () =>
      unwrap(
        api.GET('/api/v2/organizations/{orgId}', { params: { path: { orgId } } }),
      ) as Promise<Organization>,
  };
}

export function useOrganization(orgId: string) {
  return useQuery(organizationQuery(orgId));
}

/**
 * The frame of an organization's pages: its name, its status (a restricted organization says why and what lifts
 * it, rule 14) and its sections. Every organization area (workspace, scopes, audit) renders inside it.
 */
export function OrganizationFrame({ orgId, children }: { orgId: string; children: ReactNode }) {
  const organization = useOrganization(orgId);
  // Someone opening an invitation link is not a member yet: the organization is not theirs to read until they
  // accept (the members page shows the invitation).
  const [search] = useSearchParams();
  const invited = search.has('invitation');
  const base = `/organizations/${orgId}`;
  return (
    <section className="organization" aria-labelledby="organization-name">
      <header className="organization-header">
        <h1 id="organization-name">{organization.data?.name ?? 'Organization'}</h1>
        {organization.data ? (
          <span className={`status status-${organization.data.status}`}>
            {organization.data.status.replaceAll('_', ' ')} · {organization.data.role}
          </span>
        ) : null}
      </header>
      {invited ? null : <ErrorView error={organization.error} />}
      {organization.data?.restricted ? (
        <p role="status" className="restricted">
          This organization is restricted ({organization.data.status.replaceAll('_', ' ')})
          {organization.data.action ? `: ${organization.data.action}` : ''}. Actions that need a writable
          organization are unavailable until then.
        </p>
      ) : null}
      <nav aria-label="Organization" className="tabs">
        <NavLink end to={base}>
          Workspace
        </NavLink>
        <NavLink to={`${base}/cases`}>Cases</NavLink>
        <NavLink to={`${base}/review-queue`}>Review queue</NavLink>
        <NavLink to={`${base}/comparisons`}>Comparisons</NavLink>
        <NavLink to={`${base}/members`}>Members</NavLink>
        <NavLink to={`${base}/billing`}>Billing</NavLink>
        <NavLink to={`${base}/scopes`}>Exposure scopes</NavLink>
        <NavLink to={`${base}/audit`}>Audit log</NavLink>
      </nav>
      <div className="organization-body">{children}</div>
    </section>
  );
}
