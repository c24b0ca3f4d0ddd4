import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, unwrap } from '../../api/client';
import { ErrorView } from '../../app/error-view';
import { recordSummary } from './record-summary';
import {
  peopleKeys,
  ROLE_LABELS,
  spaceName,
  useCaseDetail,
  type CaseSummary,
  type Member,
  type ReviewItem,
  type Space,
} from './shared';

/** The evidence of the chosen case, to tie the item to one source (rule 11). */
function EvidenceSelect({
  orgId,
  caseId,
  value,
  onChange,
  itemLabel,
}: {
  orgId: string;
  caseId: string;
  value: string;
  onChange: (evidenceId: string) => void;
  itemLabel: string;
}) {
  const detail = useCaseDetail(orgId, caseId);
  return (
    <>
      <label>
        Evidence for {itemLabel}
        <select value={value} onChange={(event) => onChange(event.target.value)} disabled={caseId === ''}>
          <option value="">{caseId === '' ? 'Choose a case first' : 'Choose evidence'}</option>
          {detail.data?.evidence.map((evidence) => (
            <option key={evidence.id} value={evidence.id}>
              {evidence.note} ({evidence.records.length} records, {evidence.visibility})
            </option>
          ))}
        </select>
      </label>
      <ErrorView error={detail.error} title="Case unavailable" />
    </>
  );
}

/** One queued observation: assign it, give it a due date, tie it to a source in a case (PATCH). */
export function ReviewItemRow({
  orgId,
  item,
  members,
  spaces,
  cases,
}: {
  orgId: string;
  item: ReviewItem;
  members: readonly Member[] | undefined;
  spaces: readonly Space[] | undefined;
  cases: readonly CaseSummary[] | undefined;
}) {
  const client = useQueryClient();
  const [assignee, setAssignee] = useState(item.assignee ?? '');
  const [dueDate, setDueDate] = useState(item.due_date ?? '');
  const [caseId, setCaseId] = useState(item.source?.case_id ?? '');
  const [evidenceId, setEvidenceId] = useState(item.source?.evidence_id ?? '');
  const summary = recordSummary(item.record);
  const itemLabel = summary.title;
  const update = useMutation({
    mutationFn: () =>
      unwrap(
        api.PATCH('/api/v2/organizations/{orgId}/review-queue/{itemId}', {
          params: { path: { orgId, itemId: item.id } },
          body: {
            assignee: assignee === '' ? null : assignee,
            due_date: dueDate === '' ? null : dueDate,
            source: caseId !== '' && evidenceId !== '' ? { case_id: caseId, evidence_id: evidenceId } : null,
          },
        }),
      ),
    onSuccess: () => client.invalidateQueries({ queryKey: peopleKeys.reviewQueue(orgId) }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    update.mutate();
  };
  const spaceCases = (cases ?? []).filter((c) => c.space_id === item.space_id);
  const assigneeText = item.assignee ?? 'Unassigned';

  return (
    <li className="review-item" data-item={item.id}>
      <h3>{summary.title}</h3>
      <p className="muted">
        {spaceName(spaces, item.space_id)} · queued {new Date(item.added_at).toLocaleString()}
        {summary.detail ? ` · ${summary.detail}` : ''}
      </p>
      <dl className="review-facts">
        <dt>Assignee</dt>
        <dd className="account-id" data-field="assignee">
          {assigneeText}
        </dd>
        <dt>Due</dt>
        <dd data-field="due">{item.due_date ?? 'No due date'}</dd>
        <dt>Source</dt>
        <dd data-field="source">
          {item.source ? (
            <>
              case {cases?.find((c) => c.id === item.source?.case_id)?.title ?? item.source.case_id}, evidence{' '}
              <span className="account-id">{item.source.evidence_id}</span>
            </>
          ) : (
            'Not tied to a case'
          )}
        </dd>
      </dl>
      <form className="inline-form" onSubmit={submit} aria-label={`Review of ${itemLabel}`}>
        <label>
          Assignee for {itemLabel}
          <select value={assignee} onChange={(event) => setAssignee(event.target.value)}>
            <option value="">Unassigned</option>
            {members?.map((member) => (
              <option key={member.account_id} value={member.account_id}>
                {member.account_id} ({ROLE_LABELS[member.role]})
              </option>
            ))}
          </select>
        </label>
        <label>
          Due date for {itemLabel}
          <input type="date" value={dueDate} onChange={(event) => setDueDate(event.target.value)} />
        </label>
        <label>
          Case for {itemLabel}
          <select
            value={caseId}
            onChange={(event) => {
              setCaseId(event.target.value);
              setEvidenceId('');
            }}
          >
            <option value="">No case</option>
            {spaceCases.map((c) => (
              <option key={c.id} value={c.id}>
                {c.title}
              </option>
            ))}
          </select>
        </label>
        <EvidenceSelect
          orgId={orgId}
          caseId={caseId}
          value={evidenceId}
          onChange={setEvidenceId}
          itemLabel={itemLabel}
        />
        <button type="submit" disabled={update.isPending}>
          Save review of {itemLabel}
        </button>
      </form>
      <ErrorView error={update.error} title="Review change refused" />
    </li>
  );
}
