import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, unwrap } from '../../api/client';
import { ErrorView } from '../../app/error-view';
import { ActionButton, ROLE_LABELS, useRefreshOrganization, type Space } from './shared';

type InvitedRole = 'administrator' | 'analyst' | 'external_client';
const INVITED_ROLES: readonly InvitedRole[] = ['analyst', 'administrator', 'external_client'];

/** The address the invited person opens (signed in as themselves) to accept. */
export function invitationLink(orgId: string, invitationId: string): string {
  return `${window.location.origin}/organizations/${orgId}/members?invitation=${invitationId}`;
}

/**
 * Invite by email with a role, spaces and (external users) a portion. The service sends no message: the console
 * shows the invitation link to pass on to the person.
 */
export function InviteForm({
  orgId,
  spaces,
  notManaging,
}: {
  orgId: string;
  spaces: readonly Space[] | undefined;
  notManaging: string | null;
}) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<InvitedRole>('analyst');
  const [spaceIds, setSpaceIds] = useState<string[]>([]);
  const [portion, setPortion] = useState('');
  const refresh = useRefreshOrganization(orgId);
  const invite = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v2/organizations/{orgId}/invitations', {
          params: { path: { orgId } },
          body: {
            email,
            role,
            space_ids: spaceIds,
            ...(portion.trim() === '' ? {} : { portion: Number(portion) }),
          },
        }),
      ),
    onSuccess: async () => {
      setEmail('');
      setSpaceIds([]);
      setPortion('');
      await refresh();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!notManaging) invite.mutate();
  };
  const assignable = (spaces ?? []).filter((space) => space.kind !== 'general' && space.state === 'active');
  const toggle = (id: string, on: boolean) =>
    setSpaceIds((current) => (on ? [...current, id] : current.filter((other) => other !== id)));
  return (
    <section className="people-section" aria-labelledby="invite-title">
      <h2 id="invite-title">Invite a member</h2>
      <form onSubmit={submit}>
        <label>
          Email of the person to invite
          <input type="email" required value={email} onChange={(event) => setEmail(event.target.value)} />
        </label>
        <label>
          Role
          <select value={role} onChange={(event) => setRole(event.target.value as InvitedRole)}>
            {INVITED_ROLES.map((option) => (
              <option key={option} value={option}>
                {ROLE_LABELS[option]}
              </option>
            ))}
          </select>
        </label>
        {assignable.length > 0 ? (
          <fieldset className="checks">
            <legend>Spaces to assign</legend>
            {assignable.map((space) => (
              <label key={space.id}>
                <input
                  type="checkbox"
                  checked={spaceIds.includes(space.id)}
                  onChange={(event) => toggle(space.id, event.target.checked)}
                />
                {space.name}
              </label>
            ))}
          </fieldset>
        ) : null}
        {role === 'external_client' ? (
          <label>
            Credit portion (optional, external clients)
            <input
              type="number"
              min={0}
              step={1}
              inputMode="numeric"
              value={portion}
              onChange={(event) => setPortion(event.target.value)}
            />
          </label>
        ) : null}
        <ActionButton type="submit" unavailable={notManaging} pending={invite.isPending}>
          Send invitation
        </ActionButton>
      </form>
      <ErrorView error={invite.error} title="Invitation refused" />
      {invite.data ? (
        <div className="invitation-pass-on" role="status">
          <p>
            Invitation for <strong>{invite.data.email}</strong> as {ROLE_LABELS[invite.data.role]}. No message
            is sent: pass this link on to them; they accept it signed in as themselves.
          </p>
          <label>
            Invitation link
            <input
              readOnly
              value={invitationLink(orgId, invite.data.id)}
              onFocus={(e) => e.target.select()}
            />
          </label>
        </div>
      ) : null}
    </section>
  );
}
