import { Command } from '@nestjs/cqrs';
import type { CommandEnvelope } from '../../platform/event-sourcing/command-metadata.js';
import type { SearchPerformed } from '../domain/search-record.js';

/** Records a search that answered (ADR 70); the envelope is the request's, so the payer is the one charged. */
export class RecordSearch extends Command<void> {
  constructor(
    readonly search: Omit<SearchPerformed['data'], 'at'>,
    readonly envelope: CommandEnvelope,
    /** When it was answered (ISO); the handler's clock when absent. */
    readonly at?: string,
  ) {
    super();
  }
}

/**
 * Records several answered searches of one payer in one append (ADR 132: the search log's group commit). Each
 * keeps its own envelope (who, on whose behalf, request and correlation ids) and time.
 */
export class RecordSearches extends Command<void> {
  constructor(readonly searches: readonly RecordSearch[]) {
    super();
  }
}
