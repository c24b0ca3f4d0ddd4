import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { lazy, Suspense } from 'react';
import { BrowserRouter, Route, Routes } from 'react-router';
import { ApiError } from '../api/client';
import { ErrorView } from './error-view';
import { Home } from './home';
import { Layout } from './layout';
import { SessionProvider, useSessionQuery } from './session';
import { SignIn } from './sign-in';

// Each area loads when first opened, so the first page stays small (issue 19: under 200 KB of JavaScript).
const ResearchArea = lazy(() => import('../research/research-area'));
const OrganizationsArea = lazy(() => import('../organizations/organizations-area'));
const ScopesArea = lazy(() => import('../scopes/scopes-area'));
const AuditArea = lazy(() => import('../audit/audit-area'));
const OperatorArea = lazy(() => import('../operator/operator-area'));

const queries = new QueryClient({
  defaultOptions: {
    queries: {
      // A refusal (4xx) is an answer, not a glitch: asking again would only repeat it.
      retry: (failures, error) => !(error instanceof ApiError && error.status < 500) && failures < 2,
      refetchOnWindowFocus: false,
    },
  },
});

function Loading() {
  return (
    <p role="status" className="muted">
      Loading…
    </p>
  );
}

function SessionGate() {
  const session = useSessionQuery();
  if (session.isPending) return <Loading />;
  if (session.error) return <ErrorView error={session.error} title="The service did not answer" />;
  if (!session.data) {
    return (
      <Routes>
        {/* The operator view has its own credential; everything else needs a browser session. */}
        <Route
          path="operator/*"
          element={
            <Suspense fallback={<Loading />}>
              <OperatorArea />
            </Suspense>
          }
        />
        <Route path="*" element={<SignIn />} />
      </Routes>
    );
  }
  return (
    <SessionProvider session={session.data}>
      <Suspense fallback={<Loading />}>
        <Routes>
          {/* Signing in again while a session exists (a CSRF refusal's way out): login replaces the session. */}
          <Route path="sign-in" element={<SignIn />} />
          <Route element={<Layout />}>
            <Route index element={<Home />} />
            <Route path="search/*" element={<ResearchArea />} />
            <Route path="exports/*" element={<ResearchArea />} />
            <Route path="credits/*" element={<ResearchArea />} />
            <Route path="organizations/*" element={<OrganizationsArea />} />
            <Route path="organizations/:orgId/scopes/*" element={<ScopesArea />} />
            <Route path="organizations/:orgId/audit/*" element={<AuditArea />} />
            <Route path="operator/*" element={<OperatorArea />} />
            <Route path="*" element={<p>There is no such page.</p>} />
          </Route>
        </Routes>
      </Suspense>
    </SessionProvider>
  );
}

export function App() {
  return (
    <QueryClientProvider client={queries}>
      <BrowserRouter>
        <SessionGate />
      </BrowserRouter>
    </QueryClientProvider>
  );
}
