import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { api, unwrap } from '../api/client';
import type { components } from '../api/schema';
import { inventoryKey, subjectLabel } from './inventory';
import {
  ActionButton,
  keys,
  Refusal,
  RESULT_TEXT,
  when,
  words,
  type Inventory,
  type Space,
} from './scope-shared';

type AssetEnrichment = components['schemas']['AssetEnrichment'];

/**
 * Historical control records and the catalogue association of a stored observation. Neither launches anything:
 * the contract makes active scanning unavailable and no launch endpoint exists, so the page offers none.
 */
export function ScopeEvidence({ orgId, clientId }: { orgId: string; clientId: string }) {
  return (
    <>
      <AssetAssociation orgId={orgId} clientId={clientId} />
      <ControlRecords orgId={orgId} clientId={clientId} />
    </>
  );
}

/** POST …/assets/{assetKey}/enrich: the stored observation matched against the catalogue, nothing contacted. */
function AssetAssociation({ orgId, clientId }: { orgId: string; clientId: string }) {
  const ids = useId();
  // The inventory's first page (the same query the inventory tab reads) lists the subjects to choose from.
  const inventory = useQuery({
    queryKey: [...inventoryKey(orgId, clientId), { offset: 0 }],
    queryFn: () =>
      unwrap(
        api.GET('/api/v2/organizations/{orgId}/clients/{clientId}/exposure', {
          params: { path: { orgId, clientId }, query: { offset: 0 } },
        }),
      ) as Promise<Inventory>,
  });
  const subjects = inventory.data?.subjects ?? [];
  const [chosen, setChosen] = useState('');
  const assetKey = chosen || subjects[0]?.id || '';
  const associate = useMutation({
    mutationFn: (key: string) =>
      unwrap(
        api.POST('/api/v2/organizations/{orgId}/clients/{clientId}/exposure/assets/{assetKey}/enrich', {
          params: { path: { orgId, clientId, assetKey: key } },
        }),
      ),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (assetKey) associate.mutate(assetKey);
  };
  return (
    <section aria-labelledby={`${ids}-heading`} className="panel">
      <h3 id={`${ids}-heading`}>Catalogue association for a stored observation</h3>
      <p>
        The stored observation is matched against the advisory catalogue. No request reaches the asset: this
        is an association, not an assessment.
      </p>
      <Refusal what="The inventory" error={inventory.error} />
      <form onSubmit={submit} className="row inline-form">
        <label>
          Stored observation
          <select
            aria-label="Stored observation"
            value={assetKey}
            onChange={(e) => setChosen(e.target.value)}
          >
            {subjects.length === 0 ? <option value="">No stored observation listed</option> : null}
            {subjects.map((subject) => (
              <option key={subject.id} value={subject.id}>
                {subjectLabel(subject)}
              </option>
            ))}
          </select>
        </label>
        <ActionButton
          type="submit"
          label="Associate with the catalogue"
          refusal={associate.error}
          pending={associate.isPending}
        />
      </form>
      <Refusal what="The catalogue association" error={associate.error} />
      {associate.data ? <AssociationResult result={associate.data} /> : null}
    </section>
  );
}

function AssociationResult({ result }: { result: AssetEnrichment }) {
  return (
    <div className="association" data-testid="association">
      <h4>Catalogue association of {subjectLabel(result.subject)}</h4>
      <p role="note" className="muted">
        {result.notice}
      </p>
      <dl className="facts">
        <dt>Result</dt>
        <dd>{RESULT_TEXT[result.result_state] ?? words(result.result_state)}</dd>
        <dt>Observation</dt>
        <dd>
          <code>{result.observation_id}</code>, last seen {when(result.observation_last_seen)}
        </dd>
        <dt>Catalogue version</dt>
        <dd>{result.catalogue_version}</dd>
      </dl>
      {result.findings.length > 0 ? (
        <ul>
          {result.findings.map((finding) => (
            <li key={finding.id}>
              <code>{finding.id}</code>
              {finding.severity ? ` · ${words(finding.severity)}` : ''}
              {finding.kev ? ' · listed in KEV (known exploitation of the advisory, not of this asset)' : ''}
              {finding.observed_products.length > 0
                ? ` · observed ${finding.observed_products
                    .map((p) => [p.vendor, p.product, p.version].filter(Boolean).join(' '))
                    .join(', ')}`
                : ''}
            </li>
          ))}
        </ul>
      ) : (
        <p>No advisory listed for this observation.</p>
      )}
    </div>
  );
}

/** GET …/exposure/controls: up to 100 records imported by operators, newest first, optionally for one asset. */
function ControlRecords({ orgId, clientId }: { orgId: string; clientId: string }) {
  const ids = useId();
  const [search, setSearch] = useSearchParams();
  const asset = search.get('asset') ?? '';
  const [typed, setTyped] = useState(asset);
  const controls = useQuery({
    queryKey: ['organizations', orgId, 'clients', clientId, 'controls', asset],
    queryFn: () =>
      unwrap(
        api.GET('/api/v2/organizations/{orgId}/clients/{clientId}/exposure/controls', {
          params: { path: { orgId, clientId }, query: asset ? { asset } : {} },
        }),
      ),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const next = new URLSearchParams(search);
    if (typed.trim()) next.set('asset', typed.trim());
    else next.delete('asset');
    setSearch(next);
  };
  const records = controls.data?.controls ?? [];
  return (
    <section aria-labelledby={`${ids}-heading`} className="panel">
      <h3 id={`${ids}-heading`}>Historical control records</h3>
      <p>
        Historical evidence only: controls performed elsewhere, earlier, and imported by an operator. No scan
        is launched here; active scanning is unavailable.
      </p>
      <form onSubmit={submit} className="row inline-form">
        <label>
          Asset (asset key or address)
          <input value={typed} onChange={(e) => setTyped(e.target.value)} maxLength={256} />
        </label>
        <button type="submit">Show records</button>
      </form>
      <Refusal what="The control records" error={controls.error} />
      {controls.isPending ? <p role="status">Loading the control records…</p> : null}
      {controls.data ? (
        <>
          <p role="note" className="muted">
            {controls.data.notice}
          </p>
          <p>
            {records.length} record{records.length === 1 ? '' : 's'}
            {asset ? ` for ${asset}` : ''} (at most 100, newest first).
          </p>
          {records.length > 0 ? (
            <div className="table-scroll">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Performed</th>
                    <th scope="col">Asset</th>
                    <th scope="col">Kind</th>
                    <th scope="col">Title</th>
                    <th scope="col">Performed by</th>
                    <th scope="col">Outcome</th>
                    <th scope="col">Source</th>
                    <th scope="col">Imported</th>
                  </tr>
                </thead>
                <tbody>
                  {records.map((record) => (
                    <tr key={record.id}>
                      <td>{when(record.performed_at)}</td>
                      <td>
                        <code>{record.asset}</code>
                      </td>
                      <td>{words(record.kind)}</td>
                      <th scope="row">{record.title}</th>
                      <td>{record.performed_by ?? '—'}</td>
                      <td>{record.outcome ?? '—'}</td>
                      <td>{record.source ?? '—'}</td>
                      <td>{when(record.imported_at)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : null}
        </>
      ) : null}
    </section>
  );
}

/** PUT …/exposure/timezone with the scope version as read; managers only, and the service says so otherwise. */
export function TimezoneChange({ orgId, scope }: { orgId: string; scope: Space }) {
  const ids = useId();
  const client = useQueryClient();
  const [timezone, setTimezone] = useState(scope.timezone ?? '');
  const change = useMutation({
    mutationFn: () =>
      unwrap(
        api.PUT('/api/v2/organizations/{orgId}/clients/{clientId}/exposure/timezone', {
          params: { path: { orgId, clientId: scope.id } },
          body: { timezone: timezone.trim(), version: scope.version ?? '' },
        }),
      ),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.scope(orgId, scope.id) }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    change.mutate();
  };
  return (
    <section aria-labelledby={`${ids}-heading`} className="panel">
      <h3 id={`${ids}-heading`}>Timezone</h3>
      <p>
        Dates of the scope (announced dates, daily cadence) are read in this IANA timezone. Currently{' '}
        <strong>{scope.timezone ?? '—'}</strong>.
      </p>
      <form onSubmit={submit} className="row inline-form">
        <label>
          New timezone (IANA)
          <input value={timezone} onChange={(e) => setTimezone(e.target.value)} placeholder="Europe/Paris" />
        </label>
        <ActionButton
          type="submit"
          label="Change timezone"
          refusal={change.error}
          pending={change.isPending}
        />
      </form>
      {change.isSuccess ? <p role="status">Timezone changed to {change.data.timezone}.</p> : null}
      <Refusal what="Changing the timezone" error={change.error} />
    </section>
  );
}
