import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../platform/clock/clock.js';
import { StreamWriter } from '../../platform/event-sourcing/stream-writer.js';
import { dataLoadDecider, dataLoadStream } from '../domain/data-load.js';
import { RecordDataLoadCommand, type RecordedDataLoad } from './data-load.commands.js';

@CommandHandler(RecordDataLoadCommand)
export class RecordDataLoadHandler implements ICommandHandler<RecordDataLoadCommand, RecordedDataLoad> {
  constructor(
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(command: RecordDataLoadCommand): Promise<RecordedDataLoad> {
    const stream = dataLoadStream(command.load);
    const { position } = await this.writer.decide({
      stream,
      decider: dataLoadDecider,
      command: command.load,
      context: { now: this.clock.now() },
      envelope: command.envelope,
    });
    return { stream, position };
  }
}

export const dataLoadCommandHandlers = [RecordDataLoadHandler];
