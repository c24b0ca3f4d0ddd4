import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../platform/clock/clock.js';
import { StreamWriter } from '../../platform/event-sourcing/stream-writer.js';
import { searchesStreamId, type SearchPerformed } from '../domain/search-record.js';
import { RecordSearch } from './search.commands.js';

@CommandHandler(RecordSearch)
export class RecordSearchHandler implements ICommandHandler<RecordSearch, void> {
  constructor(
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(command: RecordSearch): Promise<void> {
    const data: SearchPerformed['data'] = { ...command.search, at: this.clock.now().toISOString() };
    // Evidence of what happened, not a decision: one append, any version of the payer's stream.
    await this.writer.record({
      stream: searchesStreamId(command.envelope.metadata.payer),
      type: 'SearchPerformed',
      data: data as unknown as Record<string, unknown>,
      eventKey: `search:${command.envelope.commandId}`,
      metadata: command.envelope.metadata,
    });
  }
}

export const searchCommandHandlers = [RecordSearchHandler];
