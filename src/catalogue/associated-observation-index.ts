/**
 * The observation index as the service uses it: every write of host observations also refreshes their CVE
 * associations (the index behind `cve:`/`kev:`), and clearing the hosts clears the associations. Everything
 * else is the underlying adapter's.
 *
 * The association update follows the observation write (two steps, not one transaction): if the process dies in
 * between, `cli catalogue reindex` rebuilds the index; a catalogue import always rebuilds it.
 */
import type { Dataset } from '../search/domain/datasets.js';
import type {
  Facets,
  ObservationIndex,
  ObservationQuery,
  ObservationRecord,
  ObservationWriteOptions,
  ObservationWriteResult,
  SearchPage,
} from '../search/observation-index/observation-index.port.js';
import type { CatalogueService } from './catalogue-service.js';

export class AssociatedObservationIndex implements ObservationIndex {
  /** The inner index's, when it has one (ADR 0131): the search engine tests for the capability. */
  readonly searchThenAggregate: ObservationIndex['searchThenAggregate'];

  constructor(
    readonly inner: ObservationIndex,
    private readonly catalogue: CatalogueService,
  ) {
    this.searchThenAggregate = inner.searchThenAggregate?.bind(inner);
  }

  get kind(): string {
    return this.inner.kind;
  }

  init(): Promise<void> {
    return this.inner.init();
  }

  async write(
    dataset: Dataset,
    records: readonly ObservationRecord[],
    options: ObservationWriteOptions = {},
  ): Promise<ObservationWriteResult> {
    if (dataset !== 'hosts' || records.length === 0 || options.seen !== 'merge') {
      const written = await this.inner.write(dataset, records, options);
      if (dataset === 'hosts' && records.length > 0) await this.catalogue.observationsWritten(records);
      return written;
    }
    // A merge may keep the stored fields (an older observation): associate what is stored, not what was sent.
    // An adapter that can answers the merged cpe with the write itself; else the rows are read back, and only
    // when the catalogue has anything to associate them with.
    if (this.inner.writeMerged) {
      const { records: stored, inserted, updated } = await this.inner.writeMerged(dataset, records, ['cpe']);
      await this.catalogue.observationsWritten(stored);
      return { inserted, updated };
    }
    const written = await this.inner.write(dataset, records, options);
    const ids = [...new Set(records.map((record) => record.id))];
    await this.catalogue.observationsWritten(() => this.inner.getMany(dataset, ids));
    return written;
  }

  getMany(dataset: Dataset, ids: readonly string[]): Promise<ObservationRecord[]> {
    return this.inner.getMany(dataset, ids);
  }

  count(dataset: Dataset): Promise<number> {
    return this.inner.count(dataset);
  }

  get(dataset: Dataset, id: string): Promise<ObservationRecord | null> {
    return this.inner.get(dataset, id);
  }

  search(
    dataset: Dataset,
    query: ObservationQuery,
    page: { offset: number; limit: number; countLimit?: number },
    signal?: AbortSignal,
  ): Promise<SearchPage> {
    return this.inner.search(dataset, query, page, signal);
  }

  aggregate(
    dataset: Dataset,
    query: ObservationQuery,
    fields: readonly string[],
    limit: number,
    signal?: AbortSignal,
  ): Promise<Facets> {
    return this.inner.aggregate(dataset, query, fields, limit, signal);
  }

  stream(
    dataset: Dataset,
    query: ObservationQuery,
    batchSize: number,
    signal?: AbortSignal,
  ): AsyncIterable<ObservationRecord[]> {
    return this.inner.stream(dataset, query, batchSize, signal);
  }

  async clear(dataset: Dataset): Promise<void> {
    await this.inner.clear(dataset);
    if (dataset === 'hosts') await this.catalogue.store.clearAssociations();
  }
}
