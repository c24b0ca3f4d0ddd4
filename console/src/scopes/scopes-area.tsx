import { Route, Routes, useParams } from 'react-router';
import { OrganizationFrame } from '../app/organization-frame';

/** Exposure scopes under /organizations/:orgId/scopes (issue 19, "Exposure scopes"). */
export default function ScopesArea() {
  const { orgId = '' } = useParams();
  return (
    <OrganizationFrame orgId={orgId}>
      <Routes>
        <Route index element={<h2>Exposure scopes</h2>} />
      </Routes>
    </OrganizationFrame>
  );
}
