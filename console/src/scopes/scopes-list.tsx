import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, unwrap } from '../api/client';
import { ErrorView } from '../app/error-view';
import {
  ActionButton,
  isRoleRefusal,
  keys,
  Refusal,
  Unavailable,
  useFields,
  when,
  words,
  type DeletedClient,
  type ExposureScope,
  type Space,
} from './scope-shared';

/** An exposure scope is an asset-scope client with a declared domain (contract: "a scope is a client resource"). */
function isExposureScope(space: Space): boolean {
  return space.kind === 'asset_scope' && space.domain !== null;
}

export function useSpaces(orgId: string) {
  return useQuery({
    queryKey: keys.spaces(orgId),
    queryFn: () => unwrap(api.GET('/api/v2/organizations/{orgId}/spaces', { params: { path: { orgId } } })),
  });
}

/** The organization's exposure scopes, the creation form and (for managers) the deleted ones. */
export function ScopesList({ orgId }: { orgId: string }) {
  const spaces = useSpaces(orgId);
  const scopes = (spaces.data?.spaces ?? []).filter(isExposureScope);
  return (
    <>
      <h2>Exposure scopes</h2>
      <p className="muted">
        A scope&apos;s inventory is built from stored observations of its domain and addresses. Declaring a
        domain grants no access, sends no message and does not restrict public searches.
      </p>
      <ErrorView error={spaces.error} />
      {spaces.isPending ? <p role="status">Loading scopes…</p> : null}
      {spaces.data && scopes.length === 0 ? <p>No exposure scope yet.</p> : null}
      {scopes.length > 0 ? (
        <div className="table-scroll">
          <table>
            <caption className="visually-hidden">Exposure scopes</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Domain</th>
                <th scope="col">Timezone</th>
                <th scope="col">State</th>
                <th scope="col">Monitoring</th>
              </tr>
            </thead>
            <tbody>
              {scopes.map((scope) => (
                <tr key={scope.id}>
                  <td>
                    <Link to={`/organizations/${orgId}/scopes/${scope.id}`}>{scope.name}</Link>
                  </td>
                  <td>{scope.domain}</td>
                  <td>{scope.timezone}</td>
                  <td>
                    <span className={`scope-state scope-state-${scope.state}`}>{scope.state}</span>
                  </td>
                  <td>{scope.monitoring ? 'on' : 'off'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <CreateScope orgId={orgId} />
      <DeletedScopes orgId={orgId} />
    </>
  );
}

function timezones(): string[] {
  try {
    return Intl.supportedValuesOf('timeZone');
  } catch {
    return ['UTC'];
  }
}

function CreateScope({ orgId }: { orgId: string }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const zones = useMemo(timezones, []);
  const [fields, set] = useFields({
    name: '',
    domain: '',
    timezone: Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC',
    addresses: '',
    monitoring: false,
    creditLimit: '',
  });
  const create = useMutation({
    mutationFn: () => {
      const addresses = fields.addresses
        .split(/[\s,]+/)
        .map((address) => address.trim())
        .filter(Boolean);
      // The service decides every rule (domain, timezone, at most 16 addresses, credit limit): sent as typed.
      return unwrap(
        api.POST('/api/v2/organizations/{orgId}/exposure/scopes', {
          params: { path: { orgId } },
          body: {
            name: fields.name,
            domain: fields.domain,
            timezone: fields.timezone,
            monitoring: fields.monitoring,
            ...(addresses.length > 0 ? { addresses } : {}),
            ...(fields.creditLimit.trim() !== '' ? { credit_limit: Number(fields.creditLimit) } : {}),
          },
        }),
      ) as Promise<ExposureScope>;
    },
    onSuccess: async (scope) => {
      await client.invalidateQueries({ queryKey: keys.spaces(orgId) });
      await navigate(`/organizations/${orgId}/scopes/${scope.id}`);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!isRoleRefusal(create.error)) create.mutate();
  };
  return (
    <section aria-labelledby="create-scope">
      <h3 id="create-scope">Create a scope</h3>
      <form onSubmit={submit}>
        <label>
          Scope name
          <input required value={fields.name} onChange={(e) => set('name')(e.target.value)} />
        </label>
        <label>
          Domain
          <input
            required
            placeholder="example.com"
            value={fields.domain}
            onChange={(e) => set('domain')(e.target.value)}
          />
        </label>
        <label>
          Timezone (IANA)
          <input
            required
            list="scope-timezones"
            value={fields.timezone}
            onChange={(e) => set('timezone')(e.target.value)}
          />
        </label>
        <datalist id="scope-timezones">
          {zones.map((zone) => (
            <option key={zone} value={zone} />
          ))}
        </datalist>
        <label>
          Addresses (optional, up to 16 IPs, separated by spaces or commas)
          <textarea rows={2} value={fields.addresses} onChange={(e) => set('addresses')(e.target.value)} />
        </label>
        <label className="inline">
          <input
            type="checkbox"
            checked={fields.monitoring}
            onChange={(e) => set('monitoring')(e.target.checked)}
          />
          Activate scheduled monitoring
        </label>
        <label>
          Credit limit (optional; ignored under capacity billing)
          <input
            inputMode="numeric"
            value={fields.creditLimit}
            onChange={(e) => set('creditLimit')(e.target.value)}
          />
        </label>
        <ActionButton type="submit" label="Create scope" refusal={create.error} pending={create.isPending} />
        <Refusal what="Creating a scope" error={create.error} />
      </form>
    </section>
  );
}

/** Deleted scopes still recoverable (managers): restore returns one archived, before erase_after. */
function DeletedScopes({ orgId }: { orgId: string }) {
  const client = useQueryClient();
  const deleted = useQuery({
    queryKey: keys.deleted(orgId),
    queryFn: () =>
      unwrap(api.GET('/api/v2/organizations/{orgId}/clients/deleted', { params: { path: { orgId } } })),
  });
  const restore = useMutation({
    mutationFn: (entry: DeletedClient) =>
      unwrap(
        api.POST('/api/v2/organizations/{orgId}/clients/{clientId}/restore', {
          params: { path: { orgId, clientId: entry.id }, header: { 'If-Match': entry.version } },
        }),
      ),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: keys.deleted(orgId) });
      await client.invalidateQueries({ queryKey: keys.spaces(orgId) });
    },
  });
  const entries = (deleted.data?.clients ?? []).filter((entry) => entry.kind === 'asset_scope');
  return (
    <section aria-labelledby="deleted-scopes">
      <h3 id="deleted-scopes">Deleted scopes</h3>
      {isRoleRefusal(deleted.error) ? (
        <Unavailable what="The deleted scopes list" error={deleted.error} />
      ) : (
        <ErrorView error={deleted.error} />
      )}
      {deleted.data && entries.length === 0 ? <p className="muted">No deleted scope to restore.</p> : null}
      {entries.length > 0 ? (
        <div className="table-scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Domain</th>
                <th scope="col">Deleted</th>
                <th scope="col">Erased after</th>
                <th scope="col">Action</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((entry) => (
                <tr key={entry.id}>
                  <td>{entry.name}</td>
                  <td>{entry.domain ?? '—'}</td>
                  <td>
                    {when(entry.deleted_at)} (was {words(entry.previous_state)})
                  </td>
                  <td>{when(entry.erase_after)}</td>
                  <td>
                    <ActionButton
                      className="secondary"
                      label={`Restore ${entry.name}`}
                      refusal={restore.error}
                      pending={restore.isPending && restore.variables?.id === entry.id}
                      onClick={() => restore.mutate(entry)}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <Refusal what="Restoring a scope" error={restore.error} />
    </section>
  );
}
