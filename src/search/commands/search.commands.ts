import { Command } from '@nestjs/cqrs';
import type { CommandEnvelope } from '../../platform/event-sourcing/command-metadata.js';
import type { SearchPerformed } from '../domain/search-record.js';

/** Records a search that answered (ADR 70); the envelope is the request's, so the payer is the one charged. */
export class RecordSearch extends Command<void> {
  constructor(
    readonly search: Omit<SearchPerformed['data'], 'at'>,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}
