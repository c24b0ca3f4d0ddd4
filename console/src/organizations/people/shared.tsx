import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { useOrganization, type Organization } from '../../app/organization-frame';
import './people.css';

export type MemberList = components['schemas']['MemberList'];
export type Member = MemberList['members'][number];
export type Space = components['schemas']['Space'];
export type ReviewItem = components['schemas']['ReviewItem'];
export type Comparison = components['schemas']['Comparison'];
export type CaseSummary = components['schemas']['CaseList']['cases'][number];
export type CaseDetail = components['schemas']['Case'];

export const ROLE_LABELS: Record<Member['role'], string> = {
  owner: 'Owner',
  administrator: 'Administrator',
  analyst: 'Analyst',
  external_client: 'External client',
};

export const peopleKeys = {
  members: (orgId: string) => ['organizations', orgId, 'members'] as const,
  spaces: (orgId: string) => ['organizations', orgId, 'spaces'] as const,
  reviewQueue: (orgId: string) => ['organizations', orgId, 'review-queue'] as const,
  cases: (orgId: string) => ['organizations', orgId, 'cases'] as const,
  caseDetail: (orgId: string, caseId: string) => ['organizations', orgId, 'cases', caseId] as const,
  comparison: (orgId: string, id: string) => ['organizations', orgId, 'comparisons', id] as const,
  published: (orgId: string, clientId: string) => ['organizations', orgId, 'published', clientId] as const,
};

export function useMembers(orgId: string, enabled = true) {
  return useQuery({
    queryKey: peopleKeys.members(orgId),
    queryFn: () => unwrap(api.GET('/api/v2/organizations/{orgId}/members', { params: { path: { orgId } } })),
    enabled,
  });
}

export function useSpaces(orgId: string, enabled = true) {
  return useQuery({
    queryKey: peopleKeys.spaces(orgId),
    queryFn: () => unwrap(api.GET('/api/v2/organizations/{orgId}/spaces', { params: { path: { orgId } } })),
    enabled,
  });
}

export function useCases(orgId: string, enabled = true) {
  return useQuery({
    queryKey: peopleKeys.cases(orgId),
    queryFn: () => unwrap(api.GET('/api/v2/organizations/{orgId}/cases', { params: { path: { orgId } } })),
    enabled,
  });
}

export function useCaseDetail(orgId: string, caseId: string) {
  return useQuery({
    queryKey: peopleKeys.caseDetail(orgId, caseId),
    queryFn: () =>
      unwrap(
        api.GET('/api/v2/organizations/{orgId}/cases/{caseId}', { params: { path: { orgId, caseId } } }),
      ),
    enabled: caseId !== '',
  });
}

/** Everything read about the organization (the frame's overview included) after a change that may affect it. */
export function useRefreshOrganization(orgId: string): () => Promise<void> {
  const client = useQueryClient();
  return () => client.invalidateQueries({ queryKey: ['organizations', orgId] });
}

/** A space's name from the service's list, or its id when the caller does not reach it. */
export function spaceName(spaces: readonly Space[] | undefined, id: string): string {
  return spaces?.find((space) => space.id === id)?.name ?? id;
}

/**
 * A button for an action the service may refuse: when the service's answers already say it is unavailable
 * (`unavailable` holds their reason), it stays visible, marked aria-disabled, with the reason next to it.
 */
export function ActionButton({
  children,
  unavailable,
  onClick,
  pending = false,
  className,
  type = 'button',
  reasonId,
}: {
  children: ReactNode;
  unavailable?: string | null;
  /** The id of a reason shown once for several actions; without it the reason is shown next to the button. */
  reasonId?: string;
  onClick?: () => void;
  pending?: boolean;
  className?: string;
  type?: 'button' | 'submit';
}) {
  return (
    <span className="action">
      <button
        type={type}
        className={className}
        aria-disabled={unavailable || pending ? 'true' : undefined}
        aria-describedby={unavailable && reasonId ? reasonId : undefined}
        onClick={(event) => {
          if (unavailable || pending) {
            event.preventDefault();
            return;
          }
          onClick?.();
        }}
      >
        {children}
      </button>
      {unavailable && !reasonId ? <span className="unavailable">{unavailable}</span> : null}
    </span>
  );
}

function PublishedLinks({ orgId, organization }: { orgId: string; organization: Organization }) {
  const spaces = organization.spaces.filter((space) => space.kind !== 'general');
  if (spaces.length === 0) return <p className="muted">No space has been shared with you yet.</p>;
  return (
    <ul>
      {spaces.map((space) => (
        <li key={space.id}>
          <Link to={`/organizations/${orgId}/published/${space.id}`}>Published view of {space.name}</Link>
        </li>
      ))}
    </ul>
  );
}

/**
 * Internal pages (members, review queue, comparisons) for internal members only (rule 11). The organization's
 * answer says the caller's role: an external client is told plainly that the page is not available to external
 * clients and is offered the published views of their spaces, instead of a raw refusal.
 */
export function InternalOnly({
  orgId,
  page,
  children,
}: {
  orgId: string;
  page: string;
  children: ReactNode;
}) {
  const organization = useOrganization(orgId);
  if (organization.isPending) {
    return (
      <p role="status" className="muted">
        Loading…
      </p>
    );
  }
  if (organization.data?.role === 'external_client') {
    return (
      <section className="not-for-external" aria-labelledby="not-for-external-title">
        <h2 id="not-for-external-title">{page}</h2>
        <p role="status" className="restricted" data-unavailable="external_client">
          {page} is not available to external clients. You keep the views this organization has explicitly
          published to your spaces.
        </p>
        <PublishedLinks orgId={orgId} organization={organization.data} />
      </section>
    );
  }
  // Not a member, or the service did not answer: the frame shows the refusal; the page still renders what it can.
  return <>{children}</>;
}
