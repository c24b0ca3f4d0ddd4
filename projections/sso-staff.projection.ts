import type {
  MemberAdded,
  MemberRemoved,
  MemberRoleChanged,
  OwnershipTransferAccepted,
} from '../src/organizations/domain/organization.js';
import type {
  DocumentRef,
  ProjectionDefinition,
  RecordedEventOf,
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

type MembershipEvent = MemberAdded | MemberRemoved | MemberRoleChanged | OwnershipTransferAccepted;

/** The accounts whose staff row the event may change. */
function accountsOf(event: RecordedEventOf<MembershipEvent>): string[] {
  return event.type === 'OwnershipTransferAccepted'
    ? [event.data.from, event.data.to]
    : [event.data.accountId];
}

function isMembershipEvent(event: RecordedEventOf<MembershipEvent>): boolean {
  return event.streamId.startsWith(ORGANIZATION_PREFIX) && !event.streamId.startsWith(CREATION_PREFIX);
}

export const ssoStaffProjection: ProjectionDefinition<MembershipEvent> = {
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
  apply(event, view) {
    if (!isMembershipEvent(event)) return;
    const organizationId = event.streamId.slice(ORGANIZATION_PREFIX.length);
    const setStaff = (accountId: string, staff: boolean) => {
      const id = rowId(organizationId, accountId);
      if (staff) view.put(SSO_STAFF, { id, organizationId, accountId });
      else if (view.get(SSO_STAFF, id)) view.delete(SSO_STAFF, id);
    };
    switch (event.type) {
      case 'MemberAdded':
        return setStaff(event.data.accountId, event.data.role !== 'external_client');
      case 'MemberRemoved':
        return setStaff(event.data.accountId, false);
      case 'MemberRoleChanged':
        return setStaff(event.data.accountId, event.data.to !== 'external_client');
      case 'OwnershipTransferAccepted':
        setStaff(event.data.from, true);
        return setStaff(event.data.to, true);
    }
  },
};
