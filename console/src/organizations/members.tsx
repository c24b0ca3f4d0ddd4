import { useMutation } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { ErrorView } from '../app/error-view';
import { useOrganization, type Organization } from '../app/organization-frame';
import { useSession } from '../app/session';
import { InvitationAcceptance } from './people/invitation-acceptance';
import { InviteForm } from './people/invite-form';
import { MEMBERS_UNAVAILABLE, MemberRow } from './people/member-row';
import {
  InternalOnly,
  ActionButton,
  ROLE_LABELS,
  useMembers,
  useRefreshOrganization,
  useSpaces,
} from './people/shared';

/** An ownership offered to the signed-in account: it becomes theirs only when they accept (rule 12). */
function OwnershipOfferAnswer({ orgId, organization }: { orgId: string; organization: Organization }) {
  const refresh = useRefreshOrganization(orgId);
  const answer = useMutation({
    mutationFn: (accept: boolean) =>
      unwrap(
        accept
          ? api.POST('/api/v2/organizations/{orgId}/ownership-transfer/accept', {
              params: { path: { orgId } },
            })
          : api.POST('/api/v2/organizations/{orgId}/ownership-transfer/decline', {
              params: { path: { orgId } },
            }),
      ),
    onSuccess: refresh,
  });
  return (
    <section className="people-section invitation-pass-on" aria-labelledby="ownership-offer-title">
      <h2 id="ownership-offer-title">Ownership offered to you</h2>
      <p>
        The owner offered you the ownership of {organization.name}. It changes only if you accept: you would
        hold its settings, billing and single sign-on.
      </p>
      <div className="cell-actions">
        <ActionButton pending={answer.isPending} onClick={() => answer.mutate(true)}>
          Accept ownership
        </ActionButton>
        <ActionButton className="secondary" pending={answer.isPending} onClick={() => answer.mutate(false)}>
          Decline ownership
        </ActionButton>
      </div>
      <ErrorView error={answer.error} title="Ownership answer refused" />
    </section>
  );
}

function MemberList({ orgId }: { orgId: string }) {
  const session = useSession();
  const organization = useOrganization(orgId);
  const members = useMembers(orgId);
  const spaces = useSpaces(orgId);
  const role = organization.data?.role;
  // Managers get assignments and invitations in the answer; without them the service says this role does not
  // manage members, so every management action is shown unavailable with that reason.
  const manages = members.data
    ? members.data.members.every((member) => member.space_ids !== undefined)
    : false;
  const notManaging = manages
    ? null
    : `Unavailable: your role (${role ? ROLE_LABELS[role] : 'member'}) does not manage members.`;
  const offer = organization.data?.ownership_offer;

  return (
    <>
      {organization.data && offer && offer.to === session.account_id ? (
        <OwnershipOfferAnswer orgId={orgId} organization={organization.data} />
      ) : null}
      {offer && offer.to !== session.account_id ? (
        <p role="status" className="muted">
          Ownership offered to <span className="account-id">{offer.to}</span> on{' '}
          {new Date(offer.offered_at).toLocaleString()}; it changes only when they accept.
        </p>
      ) : null}
      <section className="people-section" aria-labelledby="members-title">
        <h2 id="members-title">Members</h2>
        <ErrorView error={members.error} title="Members unavailable" />
        {members.isPending ? (
          <p role="status" className="muted">
            Loading members…
          </p>
        ) : null}
        {members.data && notManaging ? (
          <p id={MEMBERS_UNAVAILABLE} className="unavailable" role="status">
            {notManaging} Changing roles, assigning spaces, removing members and inviting are shown as
            unavailable.
          </p>
        ) : null}
        {members.data ? (
          <div className="table-scroll">
            <table>
              <caption className="muted">Members, their roles and the spaces assigned to them</caption>
              <thead>
                <tr>
                  <th scope="col">Account</th>
                  <th scope="col">Role</th>
                  <th scope="col">Spaces</th>
                  <th scope="col">Added</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {members.data.members.map((member) => (
                  <MemberRow
                    key={member.account_id}
                    orgId={orgId}
                    member={member}
                    you={member.account_id === session.account_id}
                    callerRole={role}
                    spaces={spaces.data?.spaces}
                    notManaging={notManaging}
                  />
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
      </section>
      {members.data && manages && members.data.invitations.length > 0 ? (
        <section className="people-section" aria-labelledby="invitations-title">
          <h2 id="invitations-title">Pending invitations</h2>
          <ul>
            {members.data.invitations.map((invitation) => (
              <li key={invitation.id}>
                {invitation.email} · {ROLE_LABELS[invitation.role]} · invited{' '}
                {new Date(invitation.invited_at).toLocaleString()}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      <InviteForm
        orgId={orgId}
        spaces={spaces.data?.spaces}
        notManaging={members.isPending ? 'Waiting for the member list…' : members.data ? notManaging : null}
      />
    </>
  );
}

/**
 * Members and roles (issue 19, Organization team): who is in the organization, their roles and assigned spaces,
 * invitations, role changes, assignments, removal and the ownership transfer. An invitation link
 * (`?invitation=<id>`) lets the invited person accept it here.
 */
export default function Members({ orgId }: { orgId: string }) {
  const [params, setParams] = useSearchParams();
  const invitationId = params.get('invitation');
  if (invitationId) {
    return (
      <InvitationAcceptance orgId={orgId} invitationId={invitationId} onAccepted={() => setParams({})} />
    );
  }
  return (
    <InternalOnly orgId={orgId} page="Members">
      <MemberList orgId={orgId} />
    </InternalOnly>
  );
}
