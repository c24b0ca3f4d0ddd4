import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { subjectLabel } from './inventory';
import {
  ActionButton,
  Refusal,
  RESULT_TEXT,
  when,
  words,
  type HistoryPage,
  type ReportSummary,
  type Subject,
} from './scope-shared';

function reportsKey(orgId: string, clientId: string) {
  return ['organizations', orgId, 'clients', clientId, 'reports'] as const;
}

/** Frozen reports: freezing saves the current view (no search, scan, guest link or email); newest first. */
export function ReportsList({ orgId, clientId }: { orgId: string; clientId: string }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const reports = useQuery({
    queryKey: reportsKey(orgId, clientId),
    queryFn: () =>
      unwrap(
        api.GET('/api/v2/organizations/{orgId}/clients/{clientId}/exposure/reports', {
          params: { path: { orgId, clientId } },
        }),
      ),
  });
  const freeze = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v2/organizations/{orgId}/clients/{clientId}/exposure/reports', {
          params: { path: { orgId, clientId } },
        }),
      ) as Promise<ReportSummary>,
    onSuccess: async (report) => {
      await client.invalidateQueries({ queryKey: reportsKey(orgId, clientId) });
      await navigate(report.id);
    },
  });
  return (
    <section aria-labelledby="reports-heading">
      <h3 id="reports-heading">Frozen reports</h3>
      <p className="muted">
        A frozen report saves the inventory and up to 500 history entries as they are now. It runs no search,
        scan, guest link or email, and it is never today&apos;s inventory.
      </p>
      <ActionButton
        label="Freeze a report now"
        refusal={freeze.error}
        pending={freeze.isPending}
        onClick={() => freeze.mutate()}
      />
      <Refusal what="Freezing a report" error={freeze.error} />
      <Refusal what="The reports list" error={reports.error} />
      {reports.data && reports.data.reports.length === 0 ? <p>No frozen report yet.</p> : null}
      {reports.data && reports.data.reports.length > 0 ? (
        <div className="table-scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Report</th>
                <th scope="col">Reference time</th>
                <th scope="col">Observations</th>
                <th scope="col">KEV · matched</th>
                <th scope="col">History</th>
              </tr>
            </thead>
            <tbody>
              {reports.data.reports.map((report) => (
                <tr key={report.id}>
                  <td>
                    <Link to={report.id}>Report #{report.sequence}</Link>
                    {report.partial ? <small className="muted block">partial inventory</small> : null}
                  </td>
                  <td>
                    {when(report.reference_time)} ({report.timezone})
                  </td>
                  <td>{report.observations}</td>
                  <td>
                    {report.kev} · {report.matched}
                  </td>
                  <td>
                    {report.history_entries} of {report.history_total}
                    {report.history_partial ? ' (cut at 500)' : ''}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}

/** The saved document's shape (the contract shows its parts; the OpenAPI document leaves it open). */
interface ReportDocument {
  sequence?: number;
  organization?: { name?: string };
  scope?: { name?: string; domain?: string | null };
  author?: { account_id?: string; email?: string | null };
  timezone?: string;
  reference_time?: string;
  history_partial?: boolean;
  history_total?: number;
  history?: HistoryPage['entries'];
  notice?: string;
  observations?: Subject[];
}

/** Rows shown of a large document; the saved document itself holds every observation. */
const SHOWN = 200;

/** A frozen report under current permissions: labelled as saved at its reference time, never as today's. */
export function ReportView({ orgId, clientId }: { orgId: string; clientId: string }) {
  const { reportId = '' } = useParams();
  const report = useQuery({
    queryKey: [...reportsKey(orgId, clientId), reportId],
    queryFn: () =>
      unwrap(
        api.GET('/api/v2/organizations/{orgId}/clients/{clientId}/exposure/reports/{reportId}', {
          params: { path: { orgId, clientId, reportId } },
        }),
      ) as Promise<ReportDocument>,
  });
  const doc = report.data;
  const observations = doc?.observations ?? [];
  return (
    <section aria-labelledby="report-heading">
      <p>
        <Link to=".." relative="path">
          ← Frozen reports
        </Link>
      </p>
      <Refusal what="This report" error={report.error} />
      {doc ? (
        <>
          <h3 id="report-heading">
            Frozen report #{doc.sequence} of {doc.scope?.name}
          </h3>
          <p role="note" className="restricted frozen-banner">
            Frozen at {when(doc.reference_time)} ({doc.timezone}): this is the saved document, not
            today&apos;s inventory.
          </p>
          <dl className="facts">
            <div>
              <dt>Organization</dt>
              <dd>{doc.organization?.name}</dd>
            </div>
            <div>
              <dt>Author</dt>
              <dd>{doc.author?.email ?? doc.author?.account_id}</dd>
            </div>
            <div>
              <dt>Observations</dt>
              <dd>{observations.length}</dd>
            </div>
            <div>
              <dt>History</dt>
              <dd>
                {doc.history?.length ?? 0} of {doc.history_total ?? 0} entries
                {doc.history_partial ? ' (cut at 500)' : ''}
              </dd>
            </div>
          </dl>
          <h4>Observations then</h4>
          {observations.length > SHOWN ? (
            <p className="muted">
              The first {SHOWN} of {observations.length} observations are shown.
            </p>
          ) : null}
          <div className="table-scroll">
            <table>
              <thead>
                <tr>
                  <th scope="col">Subject</th>
                  <th scope="col">Coverage</th>
                  <th scope="col">Result</th>
                  <th scope="col">Decision</th>
                  <th scope="col">Last seen</th>
                </tr>
              </thead>
              <tbody>
                {observations.slice(0, SHOWN).map((subject) => (
                  <tr key={subject.id}>
                    <th scope="row">{subjectLabel(subject)}</th>
                    <td>{subject.coverage ? words(subject.coverage.state) : '—'}</td>
                    <td>
                      {subject.kind !== 'service'
                        ? '—'
                        : subject.result_state
                          ? (RESULT_TEXT[subject.result_state] ?? words(subject.result_state))
                          : 'no result recorded'}
                    </td>
                    <td>
                      {words(subject.decision?.state)}
                      {subject.decision?.conclusion ? ` · ${words(subject.decision.conclusion)}` : ''}
                    </td>
                    <td>{when(subject.last_seen)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <h4>History then</h4>
          <ol className="timeline">
            {(doc.history ?? []).map((entry) => (
              <li key={entry.id}>
                <time dateTime={entry.at}>{when(entry.at)}</time> <strong>{entry.summary}</strong>
                <span className="muted"> · by {entry.actor}</span>
              </li>
            ))}
          </ol>
          {doc.notice ? <p className="muted notice">{doc.notice}</p> : null}
        </>
      ) : null}
    </section>
  );
}
