import { lazy } from 'react';
import { useLocation } from 'react-router';

const SearchPage = lazy(() => import('./search-page'));
const ExportsPage = lazy(() => import('./exports-page'));
const CreditsPage = lazy(() => import('./credits-page'));

/** Researcher pages (issue 19, "Researcher"): /search, /exports, /credits. */
export default function ResearchArea() {
  const { pathname } = useLocation();
  const page = pathname.split('/')[1];
  if (page === 'exports') return <ExportsPage />;
  if (page === 'credits') return <CreditsPage />;
  return <SearchPage />;
}
