import { Route, Routes, useParams } from 'react-router';
import { OrganizationFrame } from '../app/organization-frame';
import { ScopePage } from './scope-page';
import { ScopesList } from './scopes-list';
import './scopes.css';

function Scope({ orgId }: { orgId: string }) {
  const { clientId = '' } = useParams();
  return <ScopePage key={clientId} orgId={orgId} clientId={clientId} />;
}

/**
 * Exposure scopes under /organizations/:orgId/scopes (issue 19, "Exposure scopes"): the list with creation and
 * the deleted scopes, then one scope's inventory, decisions, history, frozen reports, monitoring, email
 * preference and runs. A lazy chunk of its own (app.tsx), so none of it weighs on the first page.
 */
export default function ScopesArea() {
  const { orgId = '' } = useParams();
  return (
    <OrganizationFrame orgId={orgId}>
      <Routes>
        <Route index element={<ScopesList orgId={orgId} />} />
        <Route path=":clientId/*" element={<Scope orgId={orgId} />} />
        <Route path="*" element={<p>There is no such page.</p>} />
      </Routes>
    </OrganizationFrame>
  );
}
