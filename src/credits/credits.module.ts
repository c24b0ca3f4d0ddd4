import { Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { AccountsModule } from '../accounts/accounts.module.js';
import { AccountDirectory } from '../accounts/queries/account-directory.js';
import { CLOCK, type Clock } from '../platform/clock/clock.js';
import { StreamWriter } from '../platform/event-sourcing/stream-writer.js';
import { ProjectionRunner } from '../platform/projections/projection-runner.js';
import { CreditLedger } from './commands/credit-ledger.js';
import { creditCommandHandlers } from './commands/credit.handlers.js';
import { CreditsController, PersonalCreditsController } from './http/credits.controller.js';
import { ServiceCreditsInterceptor } from './http/service-credits.interceptor.js';
import { EVENT_STORE, type EventStore } from '../platform/event-store/event-store.port.js';
import { CreditQueries } from './queries/credit-queries.js';

@Module({
  imports: [AccountsModule],
  controllers: [CreditsController, PersonalCreditsController],
  providers: [
    { provide: APP_INTERCEPTOR, useClass: ServiceCreditsInterceptor },
    {
      provide: CreditLedger,
      inject: [StreamWriter, CLOCK],
      useFactory: (writer: StreamWriter, clock: Clock) => new CreditLedger({ writer, clock }),
    },
    ...creditCommandHandlers,
    {
      provide: CreditQueries,
      inject: [ProjectionRunner, CLOCK, EVENT_STORE, AccountDirectory],
      useFactory: (
        projections: ProjectionRunner,
        clock: Clock,
        eventStore: EventStore,
        accounts: AccountDirectory,
      ) => new CreditQueries({ projections, clock, eventStore }, accounts),
    },
  ],
  exports: [CreditLedger, CreditQueries],
})
export class CreditsModule {}
