import type { RecordedEvent } from '../src/platform/event-store/event-store.port.js';
import type {
  DocumentRef,
  ProjectionDefinition,
  ProjectionView,
} from '../src/platform/projections/projection-definition.js';

/**
 * Which organizations an account is staff in (rule 12): password sign-in asks it whether an organization the
 * account works in enforces single sign-on. Only a finder: the sign-in check then folds the organization and
 * SSO streams, so a lagging row can never let a staff member past enforcement on its own.
 */
export const SSO_STAFF = 'sso_staff';

export interface SsoStaffDocument {
  readonly id: string;
  readonly organizationId: string;
  readonly accountId: string;
  readonly [field: string]: unknown;
}

const ORGANIZATION_PREFIX = 'organization-';
/** The creation process stream shares the prefix; it carries no membership. */
const CREATION_PREFIX = 'organization-owner-';

const rowId = (organizationId: string, accountId: string) => `${organizationId}:${accountId}`;

function accountsOf(event: RecordedEvent): string[] {
  const data = event.data as Record<string, unknown>;
  return ['accountId', 'from', 'to'].flatMap((key) => (typeof data[key] === 'string' ? [data[key]] : []));
}

function isMembershipEvent(event: RecordedEvent): boolean {
  return event.streamId.startsWith(ORGANIZATION_PREFIX) && !event.streamId.startsWith(CREATION_PREFIX);
}

export const ssoStaffProjection: ProjectionDefinition = {
  name: 'sso-staff',
  version: 1,
  collections: { [SSO_STAFF]: { indexes: [{ name: 'by_account', fields: [['accountId', 1]] }] } },
  handles: ['MemberAdded', 'MemberRemoved', 'MemberRoleChanged', 'OwnershipTransferAccepted'],
  reads(event): DocumentRef[] {
    if (!isMembershipEvent(event)) return [];
    const organizationId = event.streamId.slice(ORGANIZATION_PREFIX.length);
    return accountsOf(event).map((accountId) => ({
      collection: SSO_STAFF,
      id: rowId(organizationId, accountId),
    }));
  },
  apply(event: RecordedEvent, view: ProjectionView): void {
    if (!isMembershipEvent(event)) return;
    const organizationId = event.streamId.slice(ORGANIZATION_PREFIX.length);
    const data = event.data as Record<string, string>;
    const setStaff = (accountId: string | undefined, staff: boolean) => {
      if (!accountId) return;
      const id = rowId(organizationId, accountId);
      if (staff) view.put(SSO_STAFF, { id, organizationId, accountId });
      else if (view.get(SSO_STAFF, id)) view.delete(SSO_STAFF, id);
    };
    switch (event.type) {
      case 'MemberAdded':
        return setStaff(data.accountId, data.role !== 'external_client');
      case 'MemberRemoved':
        return setStaff(data.accountId, false);
      case 'MemberRoleChanged':
        return setStaff(data.accountId, data.to !== 'external_client');
      case 'OwnershipTransferAccepted':
        setStaff(data.from, true);
        return setStaff(data.to, true);
    }
  },
};
