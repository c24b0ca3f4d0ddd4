import { Module } from '@nestjs/common';
import { dataLoadCommandHandlers } from './commands/data-load.handlers.js';

/** Data loads as attributed events (ADR 110). No route: operators load data through the CLI only. */
@Module({ providers: [...dataLoadCommandHandlers] })
export class DataLoadsModule {}
