import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { ErrorView } from '../app/error-view';
import { useOrganization } from '../app/organization-frame';
import {
  formatDate,
  spaceLabel,
  teamKeys,
  useCaseDetail,
  useCases,
  useSpaces,
  type Space,
} from './team/queries';
import { recordSummary } from './team/record-summary';
import './team/team.css';

/** Cases (rules 3 and 4): the list, one case with its evidence, opening one in a client space, archiving. */
export default function Cases({ orgId }: { orgId: string }) {
  const caseId = useParams()['*'] || null;
  const spaces = useSpaces(orgId);
  const names = new Map((spaces.data?.spaces ?? []).map((space) => [space.id, spaceLabel(space)]));
  return (
    <div className="team">
      {caseId ? (
        <CaseView orgId={orgId} caseId={caseId} spaceName={(id) => names.get(id) ?? 'a space'} />
      ) : (
        <>
          <CaseList orgId={orgId} spaceName={(id) => names.get(id) ?? 'a space'} />
          <ErrorView error={spaces.error} />
          {spaces.data ? <OpenCase orgId={orgId} spaces={spaces.data.spaces} /> : null}
        </>
      )}
    </div>
  );
}

function CaseList({ orgId, spaceName }: { orgId: string; spaceName: (id: string) => string }) {
  const cases = useCases(orgId);
  const list = cases.data?.cases ?? [];
  return (
    <section aria-labelledby="cases-heading">
      <h2 id="cases-heading">Cases</h2>
      <ErrorView error={cases.error} />
      {cases.data && list.length === 0 ? <p className="muted">No case yet.</p> : null}
      {list.length > 0 ? (
        <div className="table-scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Case</th>
                <th scope="col">Space</th>
                <th scope="col">Status</th>
                <th scope="col">Evidence</th>
                <th scope="col">Opened</th>
              </tr>
            </thead>
            <tbody>
              {list.map((item) => (
                <tr key={item.id}>
                  <td>
                    <Link to={`/organizations/${orgId}/cases/${item.id}`}>{item.title}</Link>
                  </td>
                  <td>{spaceName(item.space_id)}</td>
                  <td>{item.status}</td>
                  <td>{item.evidence_count}</td>
                  <td>{formatDate(item.opened_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}

function OpenCase({ orgId, spaces }: { orgId: string; spaces: Space[] }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const selectable = spaces.filter((space) => space.state === 'active');
  const [spaceId, setSpaceId] = useState('');
  const [title, setTitle] = useState('');
  const space = selectable.find((candidate) => candidate.id === spaceId);
  const open = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v2/organizations/{orgId}/cases', {
          params: { path: { orgId } },
          body: { space_id: spaceId, title: title.trim() },
        }),
      ),
    onSuccess: async (opened) => {
      await client.invalidateQueries({ queryKey: teamKeys.cases(orgId) });
      void navigate(`/organizations/${orgId}/cases/${opened.id}`);
    },
  });
  const unavailable = !space
    ? 'Choose the client space the case belongs to.'
    : space.kind === 'general'
      ? 'General research cannot own new cases: choose a client space (rule 3).'
      : !title.trim()
        ? 'Give the case a title.'
        : null;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!unavailable) open.mutate();
  };
  return (
    <section aria-labelledby="open-case-heading" className="panel">
      <h2 id="open-case-heading">Open a case</h2>
      <form onSubmit={submit}>
        <label>
          Space of the case
          <select aria-label="Space of the case" value={spaceId} onChange={(e) => setSpaceId(e.target.value)}>
            <option value="">Choose a space…</option>
            {selectable.map((candidate) => (
              <option key={candidate.id} value={candidate.id}>
                {spaceLabel(candidate)}
              </option>
            ))}
          </select>
        </label>
        <label>
          Case title
          <input value={title} onChange={(e) => setTitle(e.target.value)} maxLength={200} />
        </label>
        <button type="submit" aria-disabled={unavailable !== null || open.isPending}>
          {open.isPending ? 'Opening…' : 'Open case'}
        </button>
        {unavailable ? <p className="unavailable">{unavailable}</p> : null}
      </form>
      <ErrorView error={open.error} title="Not opened" />
    </section>
  );
}

function CaseView({
  orgId,
  caseId,
  spaceName,
}: {
  orgId: string;
  caseId: string;
  spaceName: (id: string) => string;
}) {
  const client = useQueryClient();
  const organization = useOrganization(orgId);
  const detail = useCaseDetail(orgId, caseId);
  const archive = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v2/organizations/{orgId}/cases/{caseId}/archive', {
          params: { path: { orgId, caseId } },
        }),
      ),
    onSuccess: async (archived) => {
      client.setQueryData(teamKeys.case(orgId, caseId), archived);
      await client.invalidateQueries({ queryKey: teamKeys.cases(orgId) });
    },
  });
  const item = detail.data;
  return (
    <section aria-labelledby="case-heading">
      <p>
        <Link to={`/organizations/${orgId}/cases`}>All cases</Link>
      </p>
      <ErrorView error={detail.error} />
      {item ? (
        <>
          <h2 id="case-heading">{item.title}</h2>
          <dl className="facts">
            <dt>Space</dt>
            <dd>{spaceName(item.space_id)}</dd>
            <dt>Status</dt>
            <dd>{item.status}</dd>
            <dt>Opened</dt>
            <dd>{formatDate(item.opened_at)}</dd>
            <dt>Evidence</dt>
            <dd>{item.evidence_count}</dd>
          </dl>
          {item.status === 'open' ? (
            <p>
              <button
                type="button"
                className="secondary"
                aria-disabled={organization.data?.restricted || archive.isPending}
                onClick={() => !organization.data?.restricted && archive.mutate()}
              >
                Archive case
              </button>{' '}
              {organization.data?.restricted ? (
                <span className="unavailable">
                  Unavailable while the organization is restricted: {organization.data.action}.
                </span>
              ) : (
                <span className="muted">It stays reviewable; new evidence then goes to another case.</span>
              )}
            </p>
          ) : (
            <p className="muted">Archived: it stays reviewable, and evidence is saved to another case.</p>
          )}
          <ErrorView error={archive.error} title="Not archived" />
          <h3>Evidence</h3>
          {item.evidence.length === 0 ? <p className="muted">No evidence saved yet.</p> : null}
          <ul className="evidence-list">
            {item.evidence.map((evidence) => (
              <li key={evidence.id}>
                <p>
                  <strong>{evidence.note}</strong>{' '}
                  <span className="status">
                    {evidence.visibility === 'client' ? 'client-visible' : 'internal'}
                  </span>{' '}
                  <span className="muted">saved {formatDate(evidence.saved_at)}</span>
                </p>
                <ul>
                  {evidence.records.map((record, index) => (
                    <li key={`${String(record.dataset)}:${String(record.id)}:${index}`}>
                      {String(record.dataset)} <code>{String(record.id)}</code>
                      {record.source && typeof record.source === 'object'
                        ? ` — ${recordSummary(record.source as Record<string, unknown>)}`
                        : ''}
                    </li>
                  ))}
                </ul>
              </li>
            ))}
          </ul>
        </>
      ) : detail.isPending ? (
        <p className="muted">Loading the case…</p>
      ) : null}
    </section>
  );
}
