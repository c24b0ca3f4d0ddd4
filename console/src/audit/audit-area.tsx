import { useParams } from 'react-router';
import { OrganizationFrame } from '../app/organization-frame';

/** The organization audit log under /organizations/:orgId/audit (issue 19, "Auditor"). */
export default function AuditArea() {
  const { orgId = '' } = useParams();
  return (
    <OrganizationFrame orgId={orgId}>
      <h2>Audit log</h2>
    </OrganizationFrame>
  );
}
