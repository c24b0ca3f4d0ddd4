import { useQuery } from '@tanstack/react-query';
import { Navigate } from 'react-router';
import { api, unwrap } from '../api/client';
import { ErrorView } from './error-view';
import { useSession } from './session';

/** The organizations the signed-in account belongs to (read once per session; organization pages refresh it). */
export function useMemberships() {
  return useQuery({
    queryKey: ['memberships'],
    queryFn: () => unwrap(api.GET('/api/v2/organizations')),
    staleTime: 60_000,
  });
}

/**
 * Where a sign-in lands: the organization the session works in; else the first organization the account belongs
 * to (rule 1: its research runs there, personal research is unavailable); else personal search.
 */
export function Home() {
  const session = useSession();
  const memberships = useMemberships();
  if (session.organization_id) return <Navigate to={`/organizations/${session.organization_id}`} replace />;
  if (memberships.isPending) return null;
  if (memberships.error) return <ErrorView error={memberships.error} />;
  const first = memberships.data.organizations[0];
  return <Navigate to={first ? `/organizations/${first.id}` : '/search'} replace />;
}
