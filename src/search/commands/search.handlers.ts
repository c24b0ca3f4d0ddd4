import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../platform/clock/clock.js';
import { StreamWriter, type EvidenceRecord } from '../../platform/event-sourcing/stream-writer.js';
import { searchesStreamId, type SearchPerformed } from '../domain/search-record.js';
import { RecordSearch, RecordSearches } from './search.commands.js';

/** A search's record as evidence: not a decision, so any version of the payer's stream. */
function evidenceOf(command: RecordSearch, now: () => Date): EvidenceRecord {
  const data: SearchPerformed['data'] = { ...command.search, at: command.at ?? now().toISOString() };
  return {
    stream: searchesStreamId(command.envelope.metadata.payer),
    type: 'SearchPerformed',
    data: data as unknown as Record<string, unknown>,
    eventKey: `search:${command.envelope.commandId}`,
    metadata: command.envelope.metadata,
  };
}

@CommandHandler(RecordSearch)
export class RecordSearchHandler implements ICommandHandler<RecordSearch, void> {
  constructor(
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(command: RecordSearch): Promise<void> {
    await this.writer.record(evidenceOf(command, () => this.clock.now()));
  }
}

@CommandHandler(RecordSearches)
export class RecordSearchesHandler implements ICommandHandler<RecordSearches, void> {
  constructor(
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ searches }: RecordSearches): Promise<void> {
    const payers = new Set(searches.map((search) => search.envelope.metadata.payer));
    if (payers.size > 1) throw new Error('a group of search records belongs to one payer');
    if (searches.length === 0) return;
    await this.writer.recordAll(searches.map((search) => evidenceOf(search, () => this.clock.now())));
  }
}

export const searchCommandHandlers = [RecordSearchHandler, RecordSearchesHandler];
