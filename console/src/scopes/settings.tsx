import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, errorFrom, unwrap } from '../api/client';
import { ErrorView } from '../app/error-view';
import {
  ActionButton,
  isRoleRefusal,
  keys,
  newRunKey,
  Refusal,
  Unavailable,
  when,
  words,
  type NotificationPreference,
  type RefreshRun,
  type Space,
} from './scope-shared';

/** Monitoring on/off, the email preference and a refresh run with its stable key. */
export function ScopeSettings({ orgId, scope }: { orgId: string; scope: Space }) {
  return (
    <>
      <Monitoring orgId={orgId} scope={scope} />
      <Notifications orgId={orgId} clientId={scope.id} />
      <RunRefresh orgId={orgId} clientId={scope.id} />
    </>
  );
}

function Monitoring({ orgId, scope }: { orgId: string; scope: Space }) {
  const client = useQueryClient();
  const [notice, setNotice] = useState<string | null>(null);
  const toggle = useMutation({
    mutationFn: (enabled: boolean) =>
      unwrap(
        api.PUT('/api/v2/organizations/{orgId}/clients/{clientId}/exposure/monitoring', {
          params: { path: { orgId, clientId: scope.id } },
          body: { enabled },
        }),
      ),
    onSuccess: async (answer) => {
      setNotice(answer.monitoring.notice);
      await client.invalidateQueries({ queryKey: keys.scope(orgId, scope.id) });
    },
  });
  return (
    <section aria-labelledby="monitoring-heading">
      <h3 id="monitoring-heading">Monitoring</h3>
      <p>
        Scheduled observation watches are <strong>{scope.monitoring ? 'on' : 'off'}</strong>.
      </p>
      <ActionButton
        className="secondary"
        label={scope.monitoring ? 'Stop monitoring' : 'Activate monitoring'}
        refusal={toggle.error}
        pending={toggle.isPending}
        onClick={() => toggle.mutate(!scope.monitoring)}
      />
      {notice && !toggle.error ? (
        <p role="status" className="muted">
          {notice}
        </p>
      ) : null}
      <Refusal what="Changing monitoring" error={toggle.error} />
    </section>
  );
}

function Notifications({ orgId, clientId }: { orgId: string; clientId: string }) {
  const client = useQueryClient();
  const key = ['organizations', orgId, 'clients', clientId, 'notifications'];
  const preference = useQuery({
    queryKey: key,
    queryFn: () =>
      unwrap(
        api.GET('/api/v2/organizations/{orgId}/clients/{clientId}/exposure/notifications', {
          params: { path: { orgId, clientId } },
        }),
      ) as Promise<NotificationPreference>,
  });
  const members = useQuery({
    queryKey: ['organizations', orgId, 'members'],
    queryFn: () => unwrap(api.GET('/api/v2/organizations/{orgId}/members', { params: { path: { orgId } } })),
    enabled: preference.isSuccess,
  });
  return (
    <section aria-labelledby="notifications-heading">
      <h3 id="notifications-heading">Email notifications</h3>
      {isRoleRefusal(preference.error) ? (
        <Unavailable what="The email preference" error={preference.error} />
      ) : (
        <ErrorView error={preference.error} />
      )}
      {preference.data ? (
        <PreferenceForm
          key={preference.data.version}
          orgId={orgId}
          clientId={clientId}
          saved={preference.data}
          members={(members.data?.members ?? []).map((member) => ({
            id: member.account_id,
            role: member.role,
          }))}
          onSaved={(saved) => client.setQueryData(key, saved)}
        />
      ) : null}
    </section>
  );
}

function PreferenceForm({
  orgId,
  clientId,
  saved,
  members,
  onSaved,
}: {
  orgId: string;
  clientId: string;
  saved: NotificationPreference;
  members: { id: string; role: string }[];
  onSaved: (saved: NotificationPreference) => void;
}) {
  const [enabled, setEnabled] = useState(saved.enabled);
  const [language, setLanguage] = useState(saved.language);
  const [recipients, setRecipients] = useState<string[]>(saved.recipients);
  const save = useMutation({
    mutationFn: () =>
      unwrap(
        api.PUT('/api/v2/organizations/{orgId}/clients/{clientId}/exposure/notifications', {
          params: { path: { orgId, clientId } },
          body: { enabled, recipients, language, version: saved.version },
        }),
      ) as Promise<NotificationPreference>,
    onSuccess: onSaved,
  });
  const choices = [
    ...members,
    ...saved.recipients.filter((id) => !members.some((m) => m.id === id)).map((id) => ({ id, role: '' })),
  ];
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!isRoleRefusal(save.error)) save.mutate();
  };
  return (
    <form onSubmit={submit}>
      <p className="muted">
        Saved {saved.saved_at ? when(saved.saved_at) : 'never'} (version {saved.version}). {saved.delivery}
      </p>
      <label className="inline">
        <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} />
        Email notifications enabled
      </label>
      <label>
        Language
        <select value={language} onChange={(e) => setLanguage(e.target.value as 'fr' | 'en')}>
          <option value="en">English</option>
          <option value="fr">Français</option>
        </select>
      </label>
      <fieldset>
        <legend>Recipients (members; 0 to 20, at least one when enabled)</legend>
        {choices.length === 0 ? <p className="muted">No member listed.</p> : null}
        {choices.map((member) => (
          <label key={member.id} className="inline">
            <input
              type="checkbox"
              checked={recipients.includes(member.id)}
              onChange={(e) =>
                setRecipients((now) =>
                  e.target.checked ? [...now, member.id] : now.filter((id) => id !== member.id),
                )
              }
            />
            <code>{member.id}</code> {member.role ? `(${words(member.role)})` : ''}
          </label>
        ))}
      </fieldset>
      <ActionButton type="submit" label="Save preference" refusal={save.error} pending={save.isPending} />
      <Refusal what="Saving the preference" error={save.error} />
    </form>
  );
}

/** A refusal of a run, with the Retry-After the service sent (cadence and quota answer 429). */
class RunRefusal {
  constructor(
    readonly error: unknown,
    readonly retryAfter: number | null,
  ) {}
}

function RunRefresh({ orgId, clientId }: { orgId: string; clientId: string }) {
  const client = useQueryClient();
  const [key, setKey] = useState(newRunKey);
  const run = useMutation({
    mutationFn: async (): Promise<RefreshRun> => {
      const { data, error, response } = await api.POST(
        '/api/v2/organizations/{orgId}/clients/{clientId}/exposure/run',
        { params: { path: { orgId, clientId } }, body: { key } },
      );
      if (!response.ok) {
        const retry = response.headers.get('retry-after');
        throw new RunRefusal(await errorFrom(response, error), retry ? Number(retry) : null);
      }
      return data as RefreshRun;
    },
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: ['organizations', orgId, 'clients', clientId] });
    },
  });
  const refusal = run.error instanceof RunRefusal ? run.error : null;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!isRoleRefusal(refusal?.error)) run.mutate();
  };
  return (
    <section aria-labelledby="run-heading">
      <h3 id="run-heading">Refresh from stored observations</h3>
      <p className="muted">
        A refresh reads existing datasets (no scan). Its stable key makes it run once: sending the same key
        again answers the earlier run. Cadence, billing and quotas apply.
      </p>
      <form onSubmit={submit}>
        <label>
          Stable run key (16 to 64 characters)
          <input value={key} onChange={(e) => setKey(e.target.value)} spellCheck={false} />
        </label>
        <div className="row">
          <ActionButton type="submit" label="Run refresh" refusal={refusal?.error} pending={run.isPending} />
          <button type="button" className="secondary" onClick={() => setKey(newRunKey())}>
            Generate a new key
          </button>
        </div>
      </form>
      {run.data ? (
        <p role="status" className="run-result">
          {run.data.replayed ? 'This key already ran: its earlier run' : 'Refresh accepted'} ·{' '}
          {words(run.data.status)} · requested {when(run.data.requested_at)} · billing {run.data.billing}
          {run.data.charged_credits !== null ? ` · ${run.data.charged_credits} credits` : ''}
          <span className="muted block">{run.data.notice}</span>
        </p>
      ) : null}
      {refusal ? (
        <>
          <Refusal what="Running a refresh" error={refusal.error} />
          {refusal.retryAfter !== null ? (
            <p role="status" className="retry-after">
              Retry after {refusal.retryAfter} seconds (about{' '}
              {new Date(Date.now() + refusal.retryAfter * 1000).toLocaleTimeString()}).
            </p>
          ) : null}
        </>
      ) : (
        <ErrorView error={run.error} />
      )}
    </section>
  );
}
