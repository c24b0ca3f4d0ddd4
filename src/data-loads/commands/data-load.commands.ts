import { Command } from '@nestjs/cqrs';
import type { CommandEnvelope } from '../../platform/event-sourcing/command-metadata.js';
import type { GlobalPosition } from '../../platform/event-store/global-position.js';
import type { RecordDataLoad } from '../domain/data-load.js';

export interface RecordedDataLoad {
  readonly stream: string;
  readonly position: GlobalPosition | null;
}

/** Records a finished (or stopped) data load on its stream, attributed by the envelope (ADR 110). */
export class RecordDataLoadCommand extends Command<RecordedDataLoad> {
  constructor(
    readonly load: RecordDataLoad,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}
