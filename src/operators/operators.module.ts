import { Module } from '@nestjs/common';
import { READ_STORE, type ReadStore } from '../platform/read-store/read-store.port.js';
import { operatorCommandHandlers } from './commands/operator.handlers.js';
import { OperatorCredentialTable } from './operator-credential-table.js';

/** Operators of the CLI and their credentials (ADR 68). No route: operators act through the CLI only. */
@Module({
  providers: [
    {
      provide: OperatorCredentialTable,
      inject: [READ_STORE],
      useFactory: (readStore: ReadStore) => new OperatorCredentialTable(readStore),
    },
    ...operatorCommandHandlers,
  ],
})
export class OperatorsModule {}
