import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import { Route, Routes, useParams } from 'react-router';
import { OrganizationFrame } from '../app/organization-frame';

const OrganizationsHome = lazy(() => import('./organizations-home'));
const Workspace = lazy(() => import('./workspace'));
const Cases = lazy(() => import('./cases'));
const Billing = lazy(() => import('./billing'));
const ReviewQueue = lazy(() => import('./review-queue'));
const Members = lazy(() => import('./members'));
const Comparisons = lazy(() => import('./comparisons'));
const Published = lazy(() => import('./published'));

/** An organization page inside the organization's frame, given the organization id from the address. */
function InFrame({ page: Page }: { page: LazyExoticComponent<ComponentType<{ orgId: string }>> }) {
  const { orgId = '' } = useParams();
  return (
    <OrganizationFrame orgId={orgId}>
      <Page orgId={orgId} />
    </OrganizationFrame>
  );
}

/**
 * Organization team pages (issue 19, "Organization team"). Exposure scopes and the audit log have their own
 * areas (scopes/, audit/), routed in app.tsx under the same frame.
 */
export default function OrganizationsArea() {
  return (
    <Routes>
      <Route index element={<OrganizationsHome />} />
      <Route path=":orgId" element={<InFrame page={Workspace} />} />
      <Route path=":orgId/cases/*" element={<InFrame page={Cases} />} />
      <Route path=":orgId/billing" element={<InFrame page={Billing} />} />
      <Route path=":orgId/review-queue/*" element={<InFrame page={ReviewQueue} />} />
      <Route path=":orgId/members" element={<InFrame page={Members} />} />
      <Route path=":orgId/comparisons/*" element={<InFrame page={Comparisons} />} />
      {/* An external client's published view of a space. */}
      <Route path=":orgId/published/:clientId" element={<InFrame page={Published} />} />
      <Route path="*" element={<p>There is no such page.</p>} />
    </Routes>
  );
}
