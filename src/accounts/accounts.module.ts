import { Module } from '@nestjs/common';
import { PRINCIPAL_DIRECTORY } from '../platform/auth/access.js';
import { ServiceContext } from '../platform/service-context.js';
import { accountCommandHandlers } from './commands/account.handlers.js';
import { AccessTokensController } from './http/access-tokens.controller.js';
import { ApiKeysController } from './http/api-keys.controller.js';
import { AuthSessionController } from './http/auth-session.controller.js';
import { AccountDirectory } from './queries/account-directory.js';

@Module({
  controllers: [AuthSessionController, ApiKeysController, AccessTokensController],
  providers: [
    {
      provide: AccountDirectory,
      inject: [ServiceContext],
      useFactory: (context: ServiceContext) => new AccountDirectory(context),
    },
    { provide: PRINCIPAL_DIRECTORY, useExisting: AccountDirectory },
    ...accountCommandHandlers,
  ],
  exports: [AccountDirectory, PRINCIPAL_DIRECTORY],
})
export class AccountsModule {}
