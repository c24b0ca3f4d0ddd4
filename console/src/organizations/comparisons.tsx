import { useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, Route, Routes, useNavigate, useParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { ErrorView } from '../app/error-view';
import { ComparisonView } from './people/comparison-view';
import { InternalOnly, peopleKeys, spaceName, useCases, useSpaces, type CaseDetail } from './people/shared';

/** Prepare a comparison from selected evidence of one space (POST /comparisons). */
function PrepareComparison({ orgId }: { orgId: string }) {
  const navigate = useNavigate();
  const client = useQueryClient();
  const spaces = useSpaces(orgId);
  const cases = useCases(orgId);
  const [spaceId, setSpaceId] = useState('');
  const [title, setTitle] = useState('');
  const [selected, setSelected] = useState<string[]>([]);
  const spaceCases = (cases.data?.cases ?? []).filter((c) => c.space_id === spaceId && c.evidence_count > 0);
  const details = useQueries({
    queries: spaceCases.map((c) => ({
      queryKey: peopleKeys.caseDetail(orgId, c.id),
      queryFn: () =>
        unwrap(
          api.GET('/api/v2/organizations/{orgId}/cases/{caseId}', {
            params: { path: { orgId, caseId: c.id } },
          }),
        ) as Promise<CaseDetail>,
    })),
  });
  const prepare = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v2/organizations/{orgId}/comparisons', {
          params: { path: { orgId } },
          body: { space_id: spaceId, title, evidence_ids: selected },
        }),
      ),
    onSuccess: (comparison) => {
      client.setQueryData(peopleKeys.comparison(orgId, comparison.id), comparison);
      void navigate(`/organizations/${orgId}/comparisons/${comparison.id}`);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    prepare.mutate();
  };
  const toggle = (id: string, on: boolean) =>
    setSelected((current) => (on ? [...current, id] : current.filter((other) => other !== id)));
  const clientSpaces = (spaces.data?.spaces ?? []).filter((space) => space.kind !== 'general');
  return (
    <section className="people-section" aria-labelledby="prepare-title">
      <h2 id="prepare-title">Prepare a report comparison</h2>
      <p className="muted">
        Choose saved evidence of one space; the service compares its source records and shows the fields that
        differ. Publishing it later puts it in the client&apos;s published view.
      </p>
      <ErrorView error={spaces.error ?? cases.error} />
      <form onSubmit={submit}>
        <label>
          Space
          <select
            value={spaceId}
            required
            onChange={(event) => {
              setSpaceId(event.target.value);
              setSelected([]);
            }}
          >
            <option value="">Choose a space</option>
            {clientSpaces.map((space) => (
              <option key={space.id} value={space.id}>
                {space.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Comparison title
          <input required maxLength={200} value={title} onChange={(event) => setTitle(event.target.value)} />
        </label>
        {spaceId !== '' ? (
          <fieldset className="checks">
            <legend>Evidence to compare</legend>
            {spaceCases.length === 0 ? <p className="muted">No saved evidence in this space yet.</p> : null}
            {details.map((detail, index) => (
              <div key={spaceCases[index]?.id ?? index}>
                <p>
                  <strong>{spaceCases[index]?.title}</strong>
                </p>
                <ErrorView error={detail.error} />
                {detail.data?.evidence.map((evidence) => (
                  <label key={evidence.id}>
                    <input
                      type="checkbox"
                      checked={selected.includes(evidence.id)}
                      onChange={(event) => toggle(evidence.id, event.target.checked)}
                    />
                    {evidence.note} ({evidence.records.length} records, {evidence.visibility})
                  </label>
                ))}
              </div>
            ))}
          </fieldset>
        ) : null}
        <button type="submit" disabled={prepare.isPending}>
          Prepare comparison
        </button>
      </form>
      <ErrorView error={prepare.error} title="Comparison refused" />
    </section>
  );
}

/** One comparison and its publication to the client's space view. */
function OneComparison({ orgId }: { orgId: string }) {
  const { comparisonId = '' } = useParams();
  const client = useQueryClient();
  const spaces = useSpaces(orgId);
  const comparison = useQuery({
    queryKey: peopleKeys.comparison(orgId, comparisonId),
    queryFn: () =>
      unwrap(
        api.GET('/api/v2/organizations/{orgId}/comparisons/{comparisonId}', {
          params: { path: { orgId, comparisonId } },
        }),
      ),
  });
  const publish = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v2/organizations/{orgId}/comparisons/{comparisonId}/publish', {
          params: { path: { orgId, comparisonId } },
        }),
      ),
    onSuccess: (published) => client.setQueryData(peopleKeys.comparison(orgId, comparisonId), published),
  });
  return (
    <>
      <p>
        <Link to={`/organizations/${orgId}/comparisons`}>Prepare another comparison</Link>
      </p>
      <ErrorView error={comparison.error} title="Comparison unavailable" />
      {comparison.data ? (
        <ComparisonView
          comparison={comparison.data}
          spaceLabel={spaceName(spaces.data?.spaces, comparison.data.space_id)}
          actions={
            <div className="cell-actions">
              {comparison.data.published ? (
                <Link to={`/organizations/${orgId}/published/${comparison.data.space_id}`}>
                  See the client&apos;s published view
                </Link>
              ) : (
                <button type="button" disabled={publish.isPending} onClick={() => publish.mutate()}>
                  Publish to the client
                </button>
              )}
              <ErrorView error={publish.error} title="Publication refused" />
            </div>
          }
        />
      ) : null}
    </>
  );
}

/** Report comparisons (rule 11): prepared from selected evidence, viewed, published. Internal members only. */
export default function Comparisons({ orgId }: { orgId: string }) {
  return (
    <InternalOnly orgId={orgId} page="Comparisons">
      <Routes>
        <Route index element={<PrepareComparison orgId={orgId} />} />
        <Route path=":comparisonId" element={<OneComparison orgId={orgId} />} />
      </Routes>
    </InternalOnly>
  );
}
