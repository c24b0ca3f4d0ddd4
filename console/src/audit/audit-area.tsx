import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useParams } from 'react-router';
import { api, ApiError, unwrap } from '../api/client';
import type { components } from '../api/schema';
import { ErrorView } from '../app/error-view';
import { OrganizationFrame } from '../app/organization-frame';
import { useSession } from '../app/session';
import { ChainVerificationPanel, EntryVerificationBadge } from './chain-verification';
import './audit.css';

type AuditLog = components['schemas']['OrganizationAuditLog'];
type AuditEntry = AuditLog['entries'][number];
type MemberList = components['schemas']['MemberList'];

/** The filters the route supports (GET …/audit: actor, type, since, until), as sent. */
interface AuditFilters {
  readonly actor: string;
  readonly type: string;
  readonly since: string;
  readonly until: string;
}

const NO_FILTERS: AuditFilters = { actor: '', type: '', since: '', until: '' };
const PAGE_SIZE = 50;

/**
 * The organization audit log under /organizations/:orgId/audit (issue 19, "Auditor"): who acted, on whose
 * behalf, when, why and with which ids, filtered and paged by the service, with what the service verified of the
 * tamper-evident chain. Owners and administrators only: the service refuses anyone else, and the refusal is shown.
 */
export default function AuditArea() {
  const { orgId = '' } = useParams();
  return (
    <OrganizationFrame orgId={orgId}>
      <AuditLogView orgId={orgId} />
    </OrganizationFrame>
  );
}

function AuditLogView({ orgId }: { orgId: string }) {
  const [filters, setFilters] = useState<AuditFilters>(NO_FILTERS);
  // The cursors of the pages opened so far: the last one is shown (undefined: the first page).
  const [cursors, setCursors] = useState<ReadonlyArray<string | undefined>>([undefined]);
  const cursor = cursors.at(-1);
  const log = useQuery({
    queryKey: ['organizations', orgId, 'audit', filters, cursor],
    queryFn: () =>
      unwrap(
        api.GET('/api/v2/organizations/{orgId}/audit', {
          params: {
            path: { orgId },
            query: {
              limit: PAGE_SIZE,
              ...(cursor ? { after: cursor } : {}),
              ...(filters.actor ? { actor: filters.actor } : {}),
              ...(filters.type ? { type: filters.type } : {}),
              ...(filters.since ? { since: filters.since } : {}),
              ...(filters.until ? { until: filters.until } : {}),
            },
          },
        }),
      ) as Promise<AuditLog>,
    placeholderData: keepPreviousData,
  });
  // Refused as a whole (not a manager, not a member): nothing to filter. A refused filter (422) keeps the form.
  const refused = log.error instanceof ApiError && (log.error.status === 403 || log.error.status === 404);
  const apply = (next: AuditFilters) => {
    setFilters(next);
    setCursors([undefined]);
  };
  return (
    <section aria-labelledby="audit-title" className="audit">
      <h2 id="audit-title">Audit log</h2>
      <p className="muted">
        Every event of this organization in log order: who acted, on whose behalf, when and why. The content
        of events is never shown here, only their envelope.
      </p>
      {log.data ? <ChainVerificationPanel verification={log.data.verification} /> : null}
      {refused ? null : (
        <AuditFilterForm orgId={orgId} applied={filters} onApply={apply} entries={log.data?.entries ?? []} />
      )}
      <ErrorView error={log.error} title="The audit log was refused" />
      {log.isPending ? (
        <p role="status" className="muted">
          Loading the audit log…
        </p>
      ) : null}
      {log.data ? (
        <>
          <AuditTable entries={log.data.entries} filtered={Object.values(filters).some(Boolean)} />
          <nav aria-label="Audit log pages" className="audit-pages">
            <button
              type="button"
              className="secondary"
              disabled={cursors.length < 2}
              onClick={() => setCursors(cursors.slice(0, -1))}
            >
              Previous page
            </button>
            <span className="muted">Page {cursors.length}</span>
            <button
              type="button"
              className="secondary"
              disabled={!log.data.next_cursor}
              onClick={() => log.data?.next_cursor && setCursors([...cursors, log.data.next_cursor])}
            >
              Next page
            </button>
          </nav>
        </>
      ) : null}
    </section>
  );
}

/** Members as filter choices (their ids as recorded: `account:<id>`), with the caller marked. */
function useActorChoices(orgId: string) {
  const session = useSession();
  const members = useQuery({
    queryKey: ['organizations', orgId, 'members'],
    queryFn: () =>
      unwrap(
        api.GET('/api/v2/organizations/{orgId}/members', { params: { path: { orgId } } }),
      ) as Promise<MemberList>,
  });
  return (members.data?.members ?? []).map((member) => ({
    actor: `account:${member.account_id}`,
    label: `${member.account_id === session.account_id ? `you (${session.email})` : `account:${member.account_id}`} · ${member.role.replaceAll('_', ' ')}`,
  }));
}

function AuditFilterForm({
  orgId,
  applied,
  onApply,
  entries,
}: {
  orgId: string;
  applied: AuditFilters;
  onApply: (filters: AuditFilters) => void;
  entries: readonly AuditEntry[];
}) {
  const [draft, setDraft] = useState<AuditFilters>(applied);
  const actors = useActorChoices(orgId);
  const types = [...new Set(entries.map((entry) => entry.type))].sort();
  const set = (field: keyof AuditFilters) => (value: string) => setDraft({ ...draft, [field]: value.trim() });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply(draft);
  };
  return (
    <form className="audit-filters" onSubmit={submit} aria-label="Filter the audit log">
      <label>
        Actor
        <input
          list="audit-actors"
          value={draft.actor}
          placeholder="account:<id>, operator:<name> or system:<component>"
          onChange={(event) => set('actor')(event.target.value)}
        />
        <datalist id="audit-actors">
          {actors.map((choice) => (
            <option key={choice.actor} value={choice.actor}>
              {choice.label}
            </option>
          ))}
        </datalist>
      </label>
      <label>
        Event type
        <input
          list="audit-types"
          value={draft.type}
          placeholder="e.g. MemberInvited"
          onChange={(event) => set('type')(event.target.value)}
        />
        <datalist id="audit-types">
          {types.map((type) => (
            <option key={type} value={type} />
          ))}
        </datalist>
      </label>
      <label>
        From
        <input
          value={draft.since}
          placeholder="2026-11-28T09:00:00Z or a position"
          aria-describedby="audit-bounds-help"
          onChange={(event) => set('since')(event.target.value)}
        />
      </label>
      <label>
        Until
        <input
          value={draft.until}
          placeholder="2026-11-28T18:00:00Z or a position"
          aria-describedby="audit-bounds-help"
          onChange={(event) => set('until')(event.target.value)}
        />
      </label>
      <p id="audit-bounds-help" className="muted audit-help">
        From and until are inclusive: an ISO 8601 time or a global log position.
      </p>
      <div className="audit-filter-actions">
        <button type="submit">Apply filters</button>
        <button
          type="button"
          className="secondary"
          onClick={() => {
            setDraft(NO_FILTERS);
            onApply(NO_FILTERS);
          }}
        >
          Clear filters
        </button>
      </div>
    </form>
  );
}

function credentialText(credential: unknown): string | null {
  if (credential === null || credential === undefined) return null;
  return typeof credential === 'string' ? credential : JSON.stringify(credential);
}

function AuditTable({ entries, filtered }: { entries: readonly AuditEntry[]; filtered: boolean }) {
  if (entries.length === 0)
    return <p role="status">{filtered ? 'No entry matches these filters.' : 'No entry yet.'}</p>;
  return (
    <div className="table-scroll">
      <table className="audit-table">
        <caption className="muted">
          {entries.length} {entries.length === 1 ? 'entry' : 'entries'}, oldest first
        </caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Event</th>
            <th scope="col">Who</th>
            <th scope="col">On behalf of</th>
            <th scope="col">Why</th>
            <th scope="col">Ids</th>
            <th scope="col">Chain</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => (
            <AuditRow key={entry.event_id} entry={entry} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function AuditRow({ entry }: { entry: AuditEntry }) {
  const credential = credentialText(entry.credential);
  return (
    <tr data-position={entry.position} data-type={entry.type}>
      <td>
        <time dateTime={entry.recorded_at}>
          {entry.recorded_at.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}
        </time>
      </td>
      <td>
        <strong>{entry.type}</strong>
        <div className="muted small">
          {entry.stream} v{entry.stream_version}
          {entry.scope ? ` · scope ${entry.scope}` : ''}
        </div>
      </td>
      <td className="audit-who">
        <span className="audit-actor">{entry.actor}</span>
        <div className="muted small">
          {entry.surface ? `via ${entry.surface}` : 'surface not recorded'}
          {credential ? ` · ${credential}` : ''}
        </div>
      </td>
      <td className="audit-behalf audit-actor">{entry.on_behalf_of}</td>
      <td className="audit-why">{entry.reason ?? <span className="muted">no reason recorded</span>}</td>
      <td className="audit-ids">
        <dl>
          <dt>position</dt>
          <dd>{entry.position}</dd>
          <dt>request</dt>
          <dd>{entry.request_id ?? '—'}</dd>
          <dt>correlation</dt>
          <dd>{entry.correlation_id}</dd>
          <dt>causation</dt>
          <dd>{entry.causation_id}</dd>
        </dl>
      </td>
      <td>
        <EntryVerificationBadge verification={entry.chain_verification} />
      </td>
    </tr>
  );
}
