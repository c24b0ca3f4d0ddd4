import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent, type ReactNode } from 'react';
import { Link } from 'react-router';
import { api, unwrap } from '../api/client';
import type { components } from '../api/schema';
import { ErrorView } from '../app/error-view';
import { useSessionQuery } from '../app/session';
import './operator.css';

type OperatorProjections = components['schemas']['OperatorProjections'];
type ProjectionStatus = OperatorProjections['projections'][number];

/** How often the page asks again while it is open. */
const POLL_MS = 3_000;

/**
 * Projection status for operators, read-only (issue 19, "Operator"): GET /api/v2/operator/projections with the
 * operator credential the CLI uses (`opc_…`). The credential lives in this component's memory only, never in
 * storage: closing or reloading the page forgets it. Rebuilds stay on the CLI, where they need a reason.
 */
export default function OperatorArea() {
  const session = useSessionQuery();
  const [credential, setCredential] = useState<string | null>(null);
  const content = (
    <section className="operator" aria-labelledby="operator-title">
      <h1 id="operator-title">Operator: projections</h1>
      <p className="muted">
        Each read model's position, its lag behind the event log and a rebuild's progress, read-only. Rebuilds
        are ordered on the CLI:{' '}
        <code>npm run cli -- projections rebuild &lt;name&gt; --reason &lt;why&gt;</code>.
      </p>
      {credential === null ? (
        <CredentialForm onSubmit={setCredential} />
      ) : (
        <ProjectionStatusView credential={credential} onForget={() => setCredential(null)} />
      )}
    </section>
  );
  // Signed out, the page stands alone (no console frame around it): it is its own main landmark.
  if (session.data) return content;
  return (
    <main id="main" className="operator-standalone">
      <p>
        <Link to="/">Sign in to the console</Link>
      </p>
      {content}
    </main>
  );
}

function CredentialForm({ onSubmit }: { onSubmit: (credential: string) => void }) {
  const [value, setValue] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (value.trim()) onSubmit(value.trim());
  };
  return (
    <form onSubmit={submit} aria-label="Sign in as an operator">
      <label>
        Operator credential
        <input
          type="password"
          autoComplete="off"
          spellCheck={false}
          required
          placeholder="opc_…"
          aria-describedby="operator-credential-help"
          value={value}
          onChange={(event) => setValue(event.target.value)}
        />
      </label>
      <p id="operator-credential-help" className="muted">
        The credential of <code>operators add</code> (the first one is in the service's DATA_DIR). It is sent
        with each request and kept only in this page's memory.
      </p>
      <button type="submit">Show projections</button>
    </form>
  );
}

function ProjectionStatusView({ credential, onForget }: { credential: string; onForget: () => void }) {
  const status = useQuery({
    // The credential is not part of the key (keys may be logged by tools); forgetting it unmounts this view.
    queryKey: ['operator', 'projections'],
    queryFn: () =>
      unwrap(
        api.GET('/api/v2/operator/projections', {
          headers: { Authorization: `Bearer ${credential}` },
        }),
      ) as Promise<OperatorProjections>,
    // A refused credential is not asked again every few seconds.
    refetchInterval: (query) => (query.state.error ? false : POLL_MS),
    refetchIntervalInBackground: false,
    gcTime: 0,
  });
  return (
    <>
      <div className="operator-bar">
        <button type="button" className="secondary" onClick={onForget}>
          {status.error ? 'Enter another credential' : 'Forget the credential'}
        </button>
        {status.data ? (
          <span role="status" className="muted">
            Log head <code>{status.data.head_position ?? 'empty'}</code> · read{' '}
            <time dateTime={status.data.read_at}>{status.data.read_at}</time> · refreshed every{' '}
            {POLL_MS / 1000} s
          </span>
        ) : null}
      </div>
      <ErrorView error={status.error} title="The operator credential was refused" />
      {status.isPending ? (
        <p role="status" className="muted">
          Asking the service…
        </p>
      ) : null}
      {status.data && !status.error ? <ProjectionTable projections={status.data.projections} /> : null}
    </>
  );
}

function lagText(events: number, atLeast: boolean): string {
  return `${atLeast ? '≥ ' : ''}${events.toLocaleString('en-US')}`;
}

function ProjectionTable({ projections }: { projections: readonly ProjectionStatus[] }) {
  return (
    <div className="table-scroll">
      <table className="operator-table">
        <caption className="muted">{projections.length} projections</caption>
        <thead>
          <tr>
            <th scope="col">Projection</th>
            <th scope="col">State</th>
            <th scope="col">Generation</th>
            <th scope="col">Position</th>
            <th scope="col">Applied</th>
            <th scope="col">Lag (events)</th>
            <th scope="col">Lag (s)</th>
            <th scope="col">Rebuild</th>
            <th scope="col">Last error</th>
          </tr>
        </thead>
        <tbody>
          {projections.map((projection) => (
            <tr key={projection.name} data-projection={projection.name}>
              <th scope="row">{projection.name}</th>
              <td>
                <StateBadge state={projection.state} />
              </td>
              <td>
                {projection.live_generation ?? '—'}
                <span className="muted small"> v{projection.version}</span>
              </td>
              <td>
                <code>{projection.position ?? 'start'}</code>
              </td>
              <td>{projection.events_applied.toLocaleString('en-US')}</td>
              <td data-label="lag">{lagText(projection.lag_events, projection.lag_events_at_least)}</td>
              <td>{projection.lag_seconds}</td>
              <td>
                <RebuildProgress rebuild={projection.rebuild} />
              </td>
              <td>{projection.last_error ?? <span className="muted">none</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function StateBadge({ state }: { state: string }): ReactNode {
  const tone = state === 'live' ? 'ok' : state === 'stopped' || state === 'retrying' ? 'problem' : 'pending';
  return <span className={`projection-state projection-${tone}`}>{state.replaceAll('_', ' ')}</span>;
}

function RebuildProgress({ rebuild }: { rebuild: ProjectionStatus['rebuild'] }) {
  if (!rebuild) return <span className="muted">none running</span>;
  const total = rebuild.events_applied + rebuild.lag_events;
  return (
    <div className="rebuild">
      <span>
        generation {rebuild.generation}: {rebuild.events_applied.toLocaleString('en-US')} applied,{' '}
        {lagText(rebuild.lag_events, rebuild.lag_events_at_least)} to go
      </span>
      <progress
        max={Math.max(total, 1)}
        value={rebuild.events_applied}
        aria-label={`rebuild of generation ${rebuild.generation}`}
      />
    </div>
  );
}
