import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';

export type Space = components['schemas']['Space'];
export type SessionContext = components['schemas']['SessionContext'];
export type CaseSummary = components['schemas']['CaseList']['cases'][number];
export type CaseDetail = components['schemas']['Case'];
export type Evidence = components['schemas']['Evidence'];
export type SearchOutcome = components['schemas']['SearchOutcome'];
export type SearchResultItem = components['schemas']['SearchResultItem'];
export type OrganizationCredits = components['schemas']['OrganizationCredits'];
export type CreationPreview = components['schemas']['CreationPreview'];

/** Query keys of the organization team pages: all under ['organizations', orgId] so one invalidation reaches them. */
export const teamKeys = {
  list: ['organizations', 'list'] as const,
  preview: ['organizations', 'creation-preview'] as const,
  spaces: (orgId: string) => ['organizations', orgId, 'spaces'] as const,
  context: (orgId: string) => ['organizations', orgId, 'context'] as const,
  cases: (orgId: string) => ['organizations', orgId, 'cases'] as const,
  case: (orgId: string, caseId: string) => ['organizations', orgId, 'cases', caseId] as const,
  credits: (orgId: string) => ['organizations', orgId, 'credits'] as const,
};

export function useSpaces(orgId: string) {
  return useQuery({
    queryKey: teamKeys.spaces(orgId),
    queryFn: () => unwrap(api.GET('/api/v2/organizations/{orgId}/spaces', { params: { path: { orgId } } })),
  });
}

export function useWorkspaceContext(orgId: string) {
  return useQuery({
    queryKey: teamKeys.context(orgId),
    queryFn: () => unwrap(api.GET('/api/v2/organizations/{orgId}/context', { params: { path: { orgId } } })),
  });
}

export function useCases(orgId: string) {
  return useQuery({
    queryKey: teamKeys.cases(orgId),
    queryFn: () => unwrap(api.GET('/api/v2/organizations/{orgId}/cases', { params: { path: { orgId } } })),
  });
}

export function useCaseDetail(orgId: string, caseId: string | null) {
  return useQuery({
    queryKey: teamKeys.case(orgId, caseId ?? ''),
    enabled: caseId !== null,
    queryFn: () =>
      unwrap(
        api.GET('/api/v2/organizations/{orgId}/cases/{caseId}', {
          params: { path: { orgId, caseId: caseId ?? '' } },
        }),
      ),
  });
}

export function useOrganizationCredits(orgId: string) {
  return useQuery({
    queryKey: teamKeys.credits(orgId),
    queryFn: () => unwrap(api.GET('/api/v2/organizations/{orgId}/credits', { params: { path: { orgId } } })),
  });
}

/** A space's label: General research is the shared internal context (rule 2). */
export function spaceLabel(space: Pick<Space, 'kind' | 'name'>): string {
  if (space.kind === 'general') return 'General research';
  return space.kind === 'asset_scope' ? `${space.name} (asset scope)` : space.name;
}

export const formatDate = (iso: string | null | undefined): string =>
  iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : '—';

export const words = (value: string): string => value.replaceAll('_', ' ');
