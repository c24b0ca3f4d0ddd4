import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../../api/client';
import { ErrorView } from '../../app/error-view';
import {
  ActionButton,
  ROLE_LABELS,
  spaceName,
  useRefreshOrganization,
  type Member,
  type Space,
} from './shared';

/** The id of the members page's single "not managing" reason. */
export const MEMBERS_UNAVAILABLE = 'members-actions-unavailable';

type AssignableRole = 'administrator' | 'analyst' | 'external_client';
const ASSIGNABLE_ROLES: readonly AssignableRole[] = ['administrator', 'analyst', 'external_client'];

type Change =
  | { kind: 'role'; role: AssignableRole }
  | { kind: 'assign'; spaceId: string }
  | { kind: 'unassign'; spaceId: string }
  | { kind: 'remove' }
  | { kind: 'offer-ownership' };

/**
 * One member with the changes a manager can ask for. The service decides: a refusal is shown with its code
 * under the row. Only what the service's answers already say is shown unavailable beforehand (`notManaging`,
 * and the ownership offer, which the organization's answer says is the owner's).
 */
export function MemberRow({
  orgId,
  member,
  you,
  callerRole,
  spaces,
  notManaging,
}: {
  orgId: string;
  member: Member;
  you: boolean;
  callerRole: Member['role'] | undefined;
  spaces: readonly Space[] | undefined;
  notManaging: string | null;
}) {
  // One reason for every management action of the page, shown above the table (MEMBERS_UNAVAILABLE).
  const reasonId = notManaging ? MEMBERS_UNAVAILABLE : undefined;
  const refresh = useRefreshOrganization(orgId);
  const [role, setRole] = useState<AssignableRole>(
    member.role === 'owner' ? 'administrator' : (member.role as AssignableRole),
  );
  const [spaceToAssign, setSpaceToAssign] = useState('');
  const [confirmingRemoval, setConfirmingRemoval] = useState(false);
  const accountId = member.account_id;
  const change = useMutation({
    mutationFn: async (change: Change) => {
      const path = { orgId, accountId };
      switch (change.kind) {
        case 'role':
          return unwrap(
            api.PATCH('/api/v2/organizations/{orgId}/members/{accountId}', {
              params: { path },
              body: { role: change.role },
            }),
          );
        case 'assign':
          return unwrap(
            api.PUT('/api/v2/organizations/{orgId}/members/{accountId}/spaces/{spaceId}', {
              params: { path: { ...path, spaceId: change.spaceId } },
            }),
          );
        case 'unassign':
          return unwrap(
            api.DELETE('/api/v2/organizations/{orgId}/members/{accountId}/spaces/{spaceId}', {
              params: { path: { ...path, spaceId: change.spaceId } },
            }),
          );
        case 'remove':
          return unwrap(
            api.DELETE('/api/v2/organizations/{orgId}/members/{accountId}', { params: { path } }),
          );
        case 'offer-ownership':
          return unwrap(
            api.POST('/api/v2/organizations/{orgId}/ownership-transfer', {
              params: { path: { orgId } },
              body: { account_id: accountId },
            }),
          );
      }
    },
    onSuccess: async (_answer, done) => {
      if (done.kind === 'assign') setSpaceToAssign('');
      setConfirmingRemoval(false);
      await refresh();
    },
  });
  const assigned = member.space_ids ?? [];
  const assignable = (spaces ?? []).filter(
    (space) => space.kind !== 'general' && space.state === 'active' && !assigned.includes(space.id),
  );
  const label = you ? 'you' : accountId;
  const ownershipUnavailable =
    callerRole !== 'owner'
      ? 'Unavailable: only the owner offers the ownership.'
      : you
        ? 'Unavailable: you are the owner.'
        : null;

  return (
    <tr data-account={accountId}>
      <td>
        <span className="account-id">{accountId}</span>
        {you ? <strong> (you)</strong> : null}
      </td>
      <td>{ROLE_LABELS[member.role]}</td>
      <td>
        {member.space_ids === undefined ? (
          <span className="muted">Shown to managers</span>
        ) : assigned.length === 0 ? (
          <span className="muted">None assigned</span>
        ) : (
          <ul>
            {assigned.map((spaceId) => (
              <li key={spaceId} className="cell-actions">
                {spaceName(spaces, spaceId)}
                <ActionButton
                  className="link"
                  unavailable={notManaging}
                  reasonId={reasonId}
                  pending={change.isPending}
                  onClick={() => change.mutate({ kind: 'unassign', spaceId })}
                >
                  Unassign {spaceName(spaces, spaceId)}
                  <span className="visually-hidden"> from {label}</span>
                </ActionButton>
              </li>
            ))}
          </ul>
        )}
      </td>
      <td>{new Date(member.added_at).toLocaleDateString()}</td>
      <td>
        <div className="cell-actions">
          <label>
            New role for {label}
            <select
              value={role}
              disabled={notManaging !== null}
              onChange={(event) => setRole(event.target.value as AssignableRole)}
            >
              {ASSIGNABLE_ROLES.map((option) => (
                <option key={option} value={option}>
                  {ROLE_LABELS[option]}
                </option>
              ))}
            </select>
          </label>
          <ActionButton
            className="secondary"
            unavailable={notManaging}
            reasonId={reasonId}
            pending={change.isPending}
            onClick={() => change.mutate({ kind: 'role', role })}
          >
            Change role of {label}
          </ActionButton>
        </div>
        {assignable.length > 0 ? (
          <div className="cell-actions">
            <label>
              Space to assign to {label}
              <select
                value={spaceToAssign}
                disabled={notManaging !== null}
                onChange={(event) => setSpaceToAssign(event.target.value)}
              >
                <option value="">Choose a space</option>
                {assignable.map((space) => (
                  <option key={space.id} value={space.id}>
                    {space.name}
                  </option>
                ))}
              </select>
            </label>
            <ActionButton
              className="secondary"
              unavailable={notManaging ?? (spaceToAssign === '' ? 'Choose a space first.' : null)}
              reasonId={reasonId}
              pending={change.isPending}
              onClick={() => change.mutate({ kind: 'assign', spaceId: spaceToAssign })}
            >
              Assign space to {label}
            </ActionButton>
          </div>
        ) : null}
        <div className="cell-actions">
          {confirmingRemoval ? (
            <>
              <span role="status">Remove {label}? Their access ends at once.</span>
              <ActionButton pending={change.isPending} onClick={() => change.mutate({ kind: 'remove' })}>
                Confirm removal of {label}
              </ActionButton>
              <button type="button" className="secondary" onClick={() => setConfirmingRemoval(false)}>
                Keep {label}
              </button>
            </>
          ) : (
            <ActionButton
              className="secondary"
              unavailable={notManaging}
              reasonId={reasonId}
              onClick={() => setConfirmingRemoval(true)}
            >
              Remove {label}
            </ActionButton>
          )}
          {member.role !== 'external_client' ? (
            <ActionButton
              className="secondary"
              unavailable={ownershipUnavailable}
              pending={change.isPending}
              onClick={() => change.mutate({ kind: 'offer-ownership' })}
            >
              Offer ownership to {label}
            </ActionButton>
          ) : null}
        </div>
        <ErrorView error={change.error} title="Refused" />
      </td>
    </tr>
  );
}
