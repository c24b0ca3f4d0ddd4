import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { NavLink, Route, Routes, useNavigate } from 'react-router';
import { api, unwrap } from '../api/client';
import { ErrorView } from '../app/error-view';
import { ScopeEvidence, TimezoneChange } from './evidence';
import { HistoryTimeline } from './history';
import { InventoryView } from './inventory';
import { ReportView, ReportsList } from './reports';
import { ActionButton, isRoleRefusal, keys, Refusal, type Space } from './scope-shared';
import { ScopeSettings } from './settings';

export function useScope(orgId: string, clientId: string) {
  return useQuery({
    queryKey: keys.scope(orgId, clientId),
    queryFn: () =>
      unwrap(
        api.GET('/api/v2/organizations/{orgId}/clients/{clientId}', {
          params: { path: { orgId, clientId } },
        }),
      ) as Promise<Space>,
  });
}

/** One scope: its lifecycle actions, then its inventory, history, frozen reports and settings. */
export function ScopePage({ orgId, clientId }: { orgId: string; clientId: string }) {
  const scope = useScope(orgId, clientId);
  const base = `/organizations/${orgId}/scopes/${clientId}`;
  return (
    <>
      <p>
        <NavLink to={`/organizations/${orgId}/scopes`}>← All scopes</NavLink>
      </p>
      <ErrorView error={scope.error} />
      {scope.data ? (
        <>
          <header className="scope-header">
            <h2>{scope.data.name}</h2>
            <span className={`scope-state scope-state-${scope.data.state}`}>{scope.data.state}</span>
            <span className="muted">
              {scope.data.domain} · {scope.data.timezone}
              {scope.data.addresses.length > 0 ? ` · ${scope.data.addresses.join(', ')}` : ''}
            </span>
          </header>
          <Lifecycle orgId={orgId} scope={scope.data} />
          <nav aria-label="Scope" className="tabs">
            <NavLink end to={base}>
              Inventory
            </NavLink>
            <NavLink to={`${base}/history`}>History</NavLink>
            <NavLink to={`${base}/reports`}>Frozen reports</NavLink>
            <NavLink to={`${base}/evidence`}>Controls and catalogue</NavLink>
            <NavLink to={`${base}/settings`}>Monitoring, notifications, run</NavLink>
          </nav>
          <Routes>
            <Route index element={<InventoryView orgId={orgId} clientId={clientId} />} />
            <Route path="history" element={<HistoryTimeline orgId={orgId} clientId={clientId} />} />
            <Route path="reports" element={<ReportsList orgId={orgId} clientId={clientId} />} />
            <Route path="reports/:reportId" element={<ReportView orgId={orgId} clientId={clientId} />} />
            <Route path="evidence" element={<ScopeEvidence orgId={orgId} clientId={clientId} />} />
            <Route
              path="settings"
              element={
                <>
                  <TimezoneChange orgId={orgId} scope={scope.data} />
                  <ScopeSettings orgId={orgId} scope={scope.data} />
                </>
              }
            />
          </Routes>
        </>
      ) : null}
    </>
  );
}

/** Archive / reactivate (PATCH state, If-Match) and delete with the exact name typed as confirmation. */
function Lifecycle({ orgId, scope }: { orgId: string; scope: Space }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const [confirming, setConfirming] = useState(false);
  const [typed, setTyped] = useState('');
  const refresh = async (updated?: Space) => {
    if (updated) client.setQueryData(keys.scope(orgId, scope.id), updated);
    await client.invalidateQueries({ queryKey: keys.spaces(orgId) });
  };
  const change = useMutation({
    mutationFn: (state: 'active' | 'archived') =>
      unwrap(
        api.PATCH('/api/v2/organizations/{orgId}/clients/{clientId}', {
          params: { path: { orgId, clientId: scope.id }, header: { 'If-Match': scope.version } },
          body: { state },
        }),
      ) as Promise<Space>,
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: () =>
      unwrap(
        api.DELETE('/api/v2/organizations/{orgId}/clients/{clientId}', {
          params: { path: { orgId, clientId: scope.id }, header: { 'If-Match': scope.version } },
          body: { name: typed },
        }),
      ),
    onSuccess: async () => {
      client.removeQueries({ queryKey: keys.scope(orgId, scope.id) });
      await client.invalidateQueries({ queryKey: keys.deleted(orgId) });
      await refresh();
      await navigate(`/organizations/${orgId}/scopes`);
    },
  });
  const submitDelete = (event: FormEvent) => {
    event.preventDefault();
    if (!isRoleRefusal(remove.error)) remove.mutate();
  };
  const archived = scope.state === 'archived';
  return (
    <section aria-label="Scope lifecycle" className="scope-actions">
      {archived ? (
        <p role="status" className="restricted">
          This scope is archived: its work and monitoring are stopped. Restoring it does not restart
          schedules.
        </p>
      ) : null}
      <div className="row">
        {archived ? (
          <ActionButton
            label="Restore scope"
            refusal={change.error}
            pending={change.isPending}
            onClick={() => change.mutate('active')}
          />
        ) : (
          <ActionButton
            className="secondary"
            label="Archive scope"
            refusal={change.error}
            pending={change.isPending}
            onClick={() => change.mutate('archived')}
          />
        )}
        <ActionButton
          className="secondary danger"
          label="Delete scope…"
          refusal={remove.error}
          onClick={() => setConfirming(true)}
        />
      </div>
      <Refusal what={archived ? 'Restoring the scope' : 'Archiving the scope'} error={change.error} />
      {confirming ? (
        <form onSubmit={submitDelete} className="confirm-delete" aria-label="Confirm deletion">
          <p>
            Deleting ends access at once; the scope can be restored (archived) for seven days, then it is
            erased. Type the scope&apos;s exact name, <strong>{scope.name}</strong>, to confirm.
          </p>
          <label>
            Scope name to confirm
            <input value={typed} onChange={(e) => setTyped(e.target.value)} autoComplete="off" autoFocus />
          </label>
          <div className="row">
            <ActionButton
              type="submit"
              className="danger"
              label="Delete permanently"
              refusal={remove.error}
              pending={remove.isPending}
            />
            <button type="button" className="secondary" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </div>
        </form>
      ) : null}
      <Refusal what="Deleting the scope" error={remove.error} />
    </section>
  );
}
