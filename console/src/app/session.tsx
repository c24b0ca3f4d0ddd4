import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, useContext, type ReactNode } from 'react';
import { api, ApiError, unwrap } from '../api/client';
import type { components } from '../api/schema';

export type CurrentSession = components['schemas']['CurrentSession'];

const SessionContext = createContext<CurrentSession | null>(null);

/** The signed-in account (GET /api/v2/auth/session). Only under <SessionGate>, so never null there. */
export function useSession(): CurrentSession {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside <SessionGate>');
  return session;
}

export const SESSION_QUERY = ['auth', 'session'] as const;

export function useSessionQuery() {
  return useQuery({
    queryKey: SESSION_QUERY,
    queryFn: async (): Promise<CurrentSession | null> => {
      try {
        return await unwrap(api.GET('/api/v2/auth/session'));
      } catch (error) {
        // No session (or an expired one): the sign-in page, not an error.
        if (error instanceof ApiError && error.status === 401) return null;
        throw error;
      }
    },
    staleTime: 60_000,
  });
}

/** After sign-in, sign-out or an organization switch, everything read before belongs to another context. */
export function useResetSession(): () => Promise<void> {
  const client = useQueryClient();
  return async () => {
    client.removeQueries({ predicate: (query) => query.queryKey[0] !== SESSION_QUERY[0] });
    await client.invalidateQueries({ queryKey: SESSION_QUERY });
  };
}

export function SessionProvider({ session, children }: { session: CurrentSession; children: ReactNode }) {
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}
