import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { api, ApiError, unwrap } from '../api/client';
import { ErrorView } from '../app/error-view';
import { useOrganization, type Organization } from '../app/organization-frame';
import { SESSION_QUERY } from '../app/session';
import {
  spaceLabel,
  teamKeys,
  useCases,
  useOrganizationCredits,
  useSpaces,
  useWorkspaceContext,
  words,
  type SearchOutcome,
  type SessionContext,
  type Space,
} from './team/queries';
import { evidenceUnavailable, searchUnavailable } from './team/availability';
import { recordSummary } from './team/record-summary';
import { MAX_EVIDENCE_RECORDS, recordKey, toggleRecord, type RecordRef } from './team/selection';
import { DomainVerification } from './team/verification';
import './team/team.css';

/**
 * The organization's workspace (rules 1 to 4): the space chosen first, then a search in the organization's
 * context, and up to 20 of its records saved as evidence to an existing case. Opening it reads only: it starts
 * no collection and spends nothing.
 */
export default function Workspace({ orgId }: { orgId: string }) {
  const organization = useOrganization(orgId);
  const context = useWorkspaceContext(orgId);
  const spaces = useSpaces(orgId);
  const [search, setSearch] = useState<{ outcome: SearchOutcome; spaceId: string } | null>(null);

  if (!organization.data) return null;
  return (
    <div className="team workspace">
      <DomainVerification organization={organization.data} />
      <ErrorView error={context.error ?? spaces.error} />
      {context.data && spaces.data ? (
        <>
          <SpaceChooser
            orgId={orgId}
            context={context.data}
            spaces={spaces.data.spaces}
            onChanged={() => setSearch(null)}
          />
          <SearchPanel
            organization={organization.data}
            context={context.data}
            onSearched={(outcome) => setSearch({ outcome, spaceId: context.data.space_id ?? '' })}
          />
          {search && search.spaceId === context.data.space_id ? (
            <Results
              key={search.outcome.search_id ?? 'search'}
              organization={organization.data}
              context={context.data}
              spaces={spaces.data.spaces}
              outcome={search.outcome}
            />
          ) : null}
        </>
      ) : (
        <p className="muted">Loading the workspace…</p>
      )}
    </div>
  );
}

function SpaceChooser({
  orgId,
  context,
  spaces,
  onChanged,
}: {
  orgId: string;
  context: SessionContext;
  spaces: Space[];
  onChanged: () => void;
}) {
  const client = useQueryClient();
  const credits = useOrganizationCredits(orgId);
  const choose = useMutation({
    mutationFn: async (spaceId: string) => {
      // A session that has not entered the organization yet (a new sign-in) enters it first.
      if (!context.switched) {
        await unwrap(api.POST('/api/v2/organizations/{orgId}/switch', { params: { path: { orgId } } }));
      }
      return unwrap(
        api.PUT('/api/v2/organizations/{orgId}/context', {
          params: { path: { orgId } },
          body: { space_id: spaceId },
        }),
      );
    },
    onSuccess: async (selected) => {
      client.setQueryData(teamKeys.context(orgId), selected);
      onChanged();
      if (!context.switched) await client.invalidateQueries({ queryKey: SESSION_QUERY });
    },
  });
  const current = spaces.find((space) => space.id === context.space_id);
  return (
    <section aria-labelledby="space-heading" className="panel">
      <h2 id="space-heading">Where research runs</h2>
      <label>
        Space
        <select
          aria-label="Space"
          value={context.space_id ?? ''}
          onChange={(event) => event.target.value && choose.mutate(event.target.value)}
          disabled={choose.isPending}
        >
          <option value="">Choose a space…</option>
          {spaces
            .filter((space) => space.state !== 'deleted')
            .map((space) => (
              <option key={space.id} value={space.id} disabled={space.state === 'archived'}>
                {spaceLabel(space)}
                {space.state === 'archived' ? ' (archived)' : ''}
              </option>
            ))}
        </select>
      </label>
      <p className="muted" role="status">
        {current
          ? `Research runs in ${spaceLabel(current)}, paid from the organization's credits.`
          : context.switched
            ? 'No space is selected in this session.'
            : 'This session has not entered the organization yet: choosing a space enters it.'}{' '}
        {credits.data ? <CreditLine credits={credits.data} /> : null}
      </p>
      <ErrorView error={choose.error} title="Space not selected" />
    </section>
  );
}

function CreditLine({
  credits,
}: {
  credits: NonNullable<ReturnType<typeof useOrganizationCredits>['data']>;
}) {
  return credits.scope === 'shared' ? (
    <span>Shared balance: {credits.available.toLocaleString()} credits available.</span>
  ) : (
    <span>Your permitted envelope: {credits.available.toLocaleString()} credits available.</span>
  );
}

/** Refusals of the organization's budget or status (rule 1: a failed budget check never falls back). */
const BUDGET_REFUSALS = new Set(['insufficient_credits', 'envelope_exhausted', 'organization_restricted']);

function SearchPanel({
  organization,
  context,
  onSearched,
}: {
  organization: Organization;
  context: SessionContext;
  onSearched: (outcome: SearchOutcome) => void;
}) {
  const client = useQueryClient();
  const [query, setQuery] = useState('');
  const unavailable = searchUnavailable(organization, context);
  const run = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v2/data/search', {
          // One JSON answer (stream: false); the other fields are the service's documented defaults.
          body: {
            raw_query: query.trim(),
            stream: false,
            broad: false,
            per_type_limit: 20,
            time_frame: 'all_time',
          },
        }),
      ),
    onSuccess: async (outcome) => {
      // stream: false answers the JSON outcome; the document also lists the SSE form, hence the string type.
      onSearched(outcome as SearchOutcome);
      await client.invalidateQueries({ queryKey: teamKeys.credits(organization.id) });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (unavailable || !query.trim()) return;
    run.mutate();
  };
  return (
    <section aria-labelledby="search-heading" className="panel">
      <h2 id="search-heading">Search</h2>
      <form onSubmit={submit} role="search" className="search-form">
        <label>
          Query
          <input
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            placeholder="product:nginx port:443"
          />
        </label>
        <button
          type="submit"
          aria-disabled={unavailable !== null || run.isPending}
          aria-describedby="search-unavailable"
        >
          {run.isPending ? 'Searching…' : 'Search'}
        </button>
      </form>
      {unavailable ? (
        <p id="search-unavailable" className="unavailable" role="status">
          {unavailable}
        </p>
      ) : null}
      <ErrorView error={run.error} title="Search refused" />
      {run.error instanceof ApiError && BUDGET_REFUSALS.has(run.error.code) ? (
        <p className="unavailable">
          Search is unavailable on the organization&apos;s budget; it is never charged to a personal account
          instead.
        </p>
      ) : null}
    </section>
  );
}

type Order = 'service' | 'id';

function Results({
  organization,
  context,
  spaces,
  outcome,
}: {
  organization: Organization;
  context: SessionContext;
  spaces: Space[];
  outcome: SearchOutcome;
}) {
  const [selection, setSelection] = useState<ReadonlyMap<string, RecordRef>>(new Map());
  const [refusal, setRefusal] = useState<string | null>(null);
  const [filter, setFilter] = useState('');
  const [order, setOrder] = useState<Order>('service');

  const rows = useMemo(() => {
    const all = Object.values(outcome.results)
      .flat()
      .map((item) => ({ ...item, key: recordKey(item), summary: recordSummary(item.raw) }));
    const needle = filter.trim().toLowerCase();
    const shown = needle
      ? all.filter((row) => `${row.dataset} ${row.id} ${row.summary}`.toLowerCase().includes(needle))
      : all;
    return order === 'id' ? [...shown].sort((a, b) => a.key.localeCompare(b.key)) : shown;
  }, [outcome, filter, order]);

  const toggle = (record: RecordRef) => {
    const result = toggleRecord(selection, record);
    if (result.ok) {
      setSelection(result.selection);
      setRefusal(null);
    } else setRefusal(result.reason);
  };

  return (
    <section aria-labelledby="results-heading" className="panel">
      <h2 id="results-heading">Results</h2>
      <p className="muted">
        {outcome.credits_charged.toLocaleString()} credits charged to the organization.{' '}
        {Object.entries(outcome.per_type_status).map(([dataset, state]) => (
          <span key={dataset} className={state === 'ok' ? 'state-ok' : 'state-problem'}>
            {dataset}: {words(state)}
            {outcome.totals[dataset]?.count !== null && outcome.totals[dataset] !== undefined
              ? ` (${outcome.totals[dataset].count}${outcome.totals[dataset].lower_bound ? '+' : ''})`
              : ''}{' '}
          </span>
        ))}
      </p>
      <div className="result-tools">
        <label>
          Filter shown results
          <input value={filter} onChange={(e) => setFilter(e.target.value)} />
        </label>
        <label>
          Order
          <select aria-label="Order" value={order} onChange={(e) => setOrder(e.target.value as Order)}>
            <option value="service">As the service answered</option>
            <option value="id">By dataset and id</option>
          </select>
        </label>
      </div>
      <p role="status" className="selection-count">
        {selection.size} of {MAX_EVIDENCE_RECORDS} records selected
      </p>
      {refusal ? (
        <p role="alert" className="unavailable">
          {refusal}
        </p>
      ) : null}
      <div className="table-scroll">
        <table>
          <caption className="muted">Select the records to save as evidence</caption>
          <thead>
            <tr>
              <th scope="col">Select</th>
              <th scope="col">Dataset</th>
              <th scope="col">Record</th>
              <th scope="col">Observation</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.key}>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`Select ${row.dataset} ${row.id}`}
                    checked={selection.has(row.key)}
                    onChange={() => toggle(row)}
                  />
                </td>
                <td>{row.dataset}</td>
                <td>
                  <code>{row.id}</code>
                </td>
                <td>{row.summary}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {rows.length === 0 ? <p className="muted">No records shown.</p> : null}
      <SaveEvidence
        organization={organization}
        context={context}
        spaces={spaces}
        searchId={outcome.search_id ?? null}
        records={[...selection.values()]}
        onSaved={() => setSelection(new Map())}
      />
    </section>
  );
}

function SaveEvidence({
  organization,
  context,
  spaces,
  searchId,
  records,
  onSaved,
}: {
  organization: Organization;
  context: SessionContext;
  spaces: Space[];
  searchId: string | null;
  records: RecordRef[];
  onSaved: () => void;
}) {
  const orgId = organization.id;
  const client = useQueryClient();
  const cases = useCases(orgId);
  // Rule 4: Internal by default for staff; external client users save client-visible evidence.
  const [visibility, setVisibility] = useState<'internal' | 'client'>(
    organization.role === 'external_client' ? 'client' : 'internal',
  );
  const [note, setNote] = useState('');
  const space = spaces.find((candidate) => candidate.id === context.space_id);
  const inSpace = (cases.data?.cases ?? []).filter((item) => item.space_id === context.space_id);
  const selectedCase = inSpace.find((item) => item.id === context.case_id) ?? null;

  const chooseCase = useMutation({
    mutationFn: (caseId: string) =>
      unwrap(
        api.PUT('/api/v2/organizations/{orgId}/context', {
          params: { path: { orgId } },
          body: { space_id: context.space_id ?? '', case_id: caseId },
        }),
      ),
    onSuccess: (selected) => client.setQueryData(teamKeys.context(orgId), selected),
  });
  const [saved, setSaved] = useState<{ caseId: string; title: string; count: number } | null>(null);
  const save = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v2/organizations/{orgId}/evidence', {
          params: { path: { orgId } },
          body: { search_id: searchId ?? '', records, note: note.trim(), visibility },
        }),
      ),
    onSuccess: async (evidence) => {
      setSaved({
        caseId: evidence.case_id,
        title: selectedCase?.title ?? 'the case',
        count: evidence.records.length,
      });
      setNote('');
      onSaved();
      await client.invalidateQueries({ queryKey: teamKeys.cases(orgId) });
    },
  });

  const unavailable = evidenceUnavailable({
    organization,
    space,
    selectedCaseId: context.case_id,
    selectedCase,
    searchId,
    records: records.length,
    note,
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (unavailable) return;
    setSaved(null);
    save.mutate();
  };

  return (
    <form onSubmit={submit} className="evidence-form" aria-labelledby="evidence-heading">
      <h3 id="evidence-heading">Save as evidence</h3>
      <label>
        Case
        <select
          aria-label="Case"
          value={selectedCase?.id ?? ''}
          onChange={(event) => event.target.value && chooseCase.mutate(event.target.value)}
          disabled={space?.kind === 'general' || chooseCase.isPending}
        >
          <option value="">Choose a case…</option>
          {inSpace.map((item) => (
            <option key={item.id} value={item.id} disabled={item.status === 'archived'}>
              {item.title}
              {item.status === 'archived' ? ' (archived)' : ''}
            </option>
          ))}
        </select>
      </label>
      {space && space.kind !== 'general' && cases.data && inSpace.every((item) => item.status !== 'open') ? (
        <p className="muted">
          This space has no open case. <Link to={`/organizations/${orgId}/cases`}>Open one in Cases</Link>;
          saving never creates a case.
        </p>
      ) : null}
      <label>
        Note
        <textarea value={note} onChange={(e) => setNote(e.target.value)} maxLength={4000} rows={3} />
      </label>
      <fieldset>
        <legend>Visibility</legend>
        <label className="inline">
          <input
            type="radio"
            name="visibility"
            checked={visibility === 'internal'}
            onChange={() => setVisibility('internal')}
          />
          Internal (staff only)
        </label>
        <label className="inline">
          <input
            type="radio"
            name="visibility"
            checked={visibility === 'client'}
            onChange={() => setVisibility('client')}
          />
          Client-visible
        </label>
      </fieldset>
      <button type="submit" aria-disabled={unavailable !== null || save.isPending}>
        {save.isPending
          ? 'Saving…'
          : `Save ${records.length} record${records.length === 1 ? '' : 's'} as evidence`}
      </button>
      {unavailable ? <p className="unavailable">{unavailable}</p> : null}
      <ErrorView error={chooseCase.error ?? cases.error} title="Case" />
      <ErrorView error={save.error} title="Not saved" />
      {saved ? (
        <p role="status" className="state-ok">
          Saved {saved.count} record{saved.count === 1 ? '' : 's'} to{' '}
          <Link to={`/organizations/${orgId}/cases/${saved.caseId}`}>{saved.title}</Link>.
        </p>
      ) : null}
    </form>
  );
}
