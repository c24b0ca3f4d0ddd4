import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { ErrorView } from '../../app/error-view';
import { SESSION_QUERY } from '../../app/session';

/**
 * The invited person's side of an invitation link: nothing changes until they accept. Staff of an organization
 * enforcing single sign-on are members after accepting but enter through the provider (rule 12).
 */
export function InvitationAcceptance({
  orgId,
  invitationId,
  onAccepted,
}: {
  orgId: string;
  invitationId: string;
  onAccepted: () => void;
}) {
  const client = useQueryClient();
  const accept = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v2/organizations/{orgId}/invitations/{invitationId}/accept', {
          params: { path: { orgId, invitationId } },
        }),
      ),
    onSuccess: async (answer) => {
      if ('sso_required' in answer && answer.sso_required) return;
      // Membership changes what every page may read: what was read before (the organization's refusal
      // included) is dropped, and the organization is read again as a member.
      client.removeQueries({
        predicate: (query) => query.queryKey[0] !== SESSION_QUERY[0] && query.queryKey[0] !== 'organizations',
      });
      await Promise.all([
        client.resetQueries({ queryKey: ['organizations', orgId] }),
        client.invalidateQueries({ queryKey: SESSION_QUERY }),
      ]);
      onAccepted();
    },
  });
  const sso = accept.data && 'sso_required' in accept.data && accept.data.sso_required ? accept.data : null;
  return (
    <section className="people-section" aria-labelledby="invitation-title">
      <h2 id="invitation-title">Invitation to this organization</h2>
      <p>
        You were invited to join this organization. Accepting makes you a member with the role and spaces the
        invitation names; nothing changes until you accept.
      </p>
      <p className="muted">
        Invitation <span className="account-id">{invitationId}</span>
      </p>
      <button type="button" disabled={accept.isPending} onClick={() => accept.mutate()}>
        Accept invitation
      </button>
      <ErrorView error={accept.error} title="Invitation refused" />
      {sso ? (
        <p role="status" className="restricted">
          You are a member now. This organization's staff sign in through its single sign-on provider:{' '}
          <a href={sso.sign_in_url}>sign in with single sign-on</a>.
        </p>
      ) : null}
    </section>
  );
}
