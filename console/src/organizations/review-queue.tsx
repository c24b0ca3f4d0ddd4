import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { api, unwrap } from '../api/client';
import { ErrorView } from '../app/error-view';
import { ReviewItemRow } from './people/review-item-row';
import { InternalOnly, peopleKeys, useCases, useMembers, useSpaces } from './people/shared';

const DATASETS = ['hosts', 'dns', 'vhosts', 'whois'] as const;
type Dataset = (typeof DATASETS)[number];

/** Queue a record of a completed search for review (POST /review-queue); the search itself is not rerun. */
function QueueObservation({ orgId }: { orgId: string }) {
  const client = useQueryClient();
  const [searchId, setSearchId] = useState('');
  const [dataset, setDataset] = useState<Dataset>('hosts');
  const [recordId, setRecordId] = useState('');
  const add = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v2/organizations/{orgId}/review-queue', {
          params: { path: { orgId } },
          body: { search_id: searchId.trim(), record: { dataset, id: recordId.trim() } },
        }),
      ),
    onSuccess: async () => {
      setRecordId('');
      await client.invalidateQueries({ queryKey: peopleKeys.reviewQueue(orgId) });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate();
  };
  return (
    <details className="people-section">
      <summary>Queue an observation of a completed search</summary>
      <form onSubmit={submit}>
        <label>
          Search id
          <input required value={searchId} onChange={(event) => setSearchId(event.target.value)} />
        </label>
        <label>
          Dataset
          <select value={dataset} onChange={(event) => setDataset(event.target.value as Dataset)}>
            {DATASETS.map((option) => (
              <option key={option}>{option}</option>
            ))}
          </select>
        </label>
        <label>
          Record id
          <input required value={recordId} onChange={(event) => setRecordId(event.target.value)} />
        </label>
        <button type="submit" disabled={add.isPending}>
          Queue for review
        </button>
      </form>
      <ErrorView error={add.error} title="Not queued" />
    </details>
  );
}

function Queue({ orgId }: { orgId: string }) {
  const queue = useQuery({
    queryKey: peopleKeys.reviewQueue(orgId),
    queryFn: () =>
      unwrap(api.GET('/api/v2/organizations/{orgId}/review-queue', { params: { path: { orgId } } })),
  });
  const members = useMembers(orgId);
  const spaces = useSpaces(orgId);
  const cases = useCases(orgId);
  return (
    <>
      <section className="people-section" aria-labelledby="review-queue-title">
        <h2 id="review-queue-title">Review queue</h2>
        <p className="muted">
          Observations queued for review across every space you reach. Prepare a report comparison from saved
          evidence in <Link to={`/organizations/${orgId}/comparisons`}>Comparisons</Link>.
        </p>
        <ErrorView error={queue.error} title="Review queue unavailable" />
        <ErrorView error={members.error} title="Members unavailable for assignment" />
        {queue.isPending ? (
          <p role="status" className="muted">
            Loading the review queue…
          </p>
        ) : null}
        {queue.data && queue.data.items.length === 0 ? <p>Nothing is queued for review.</p> : null}
        {queue.data && queue.data.items.length > 0 ? (
          <ul className="review-items">
            {queue.data.items.map((item) => (
              <ReviewItemRow
                key={`${item.id}:${item.assignee ?? ''}:${item.due_date ?? ''}:${item.source?.evidence_id ?? ''}`}
                orgId={orgId}
                item={item}
                members={members.data?.members}
                spaces={spaces.data?.spaces}
                cases={cases.data?.cases}
              />
            ))}
          </ul>
        ) : null}
      </section>
      <QueueObservation orgId={orgId} />
    </>
  );
}

/** The review queue (rule 11): internal members only; external clients keep their published view. */
export default function ReviewQueue({ orgId }: { orgId: string }) {
  return (
    <InternalOnly orgId={orgId} page="Review queue">
      <Queue orgId={orgId} />
    </InternalOnly>
  );
}
