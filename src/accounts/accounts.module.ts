import { Module } from '@nestjs/common';
import { PRINCIPAL_DIRECTORY } from '../platform/auth/access.js';
import {
  CREDENTIAL_STORE,
  type CredentialStore,
} from '../platform/auth/credentials/credential-store.port.js';
import { ProjectionRunner } from '../platform/projections/projection-runner.js';
import { AccessLog } from './commands/access-log.js';
import { accountCommandHandlers } from './commands/account.handlers.js';
import { sessionCommandHandlers } from './commands/session.handlers.js';
import { AccessTokensController } from './http/access-tokens.controller.js';
import { ApiKeysController } from './http/api-keys.controller.js';
import { AuthSessionController } from './http/auth-session.controller.js';
import { AccountDirectory } from './queries/account-directory.js';

@Module({
  controllers: [AuthSessionController, ApiKeysController, AccessTokensController],
  providers: [
    {
      provide: AccountDirectory,
      inject: [ProjectionRunner, CREDENTIAL_STORE],
      useFactory: (projections: ProjectionRunner, credentials: CredentialStore) =>
        new AccountDirectory({ projections, credentials }),
    },
    { provide: PRINCIPAL_DIRECTORY, useExisting: AccountDirectory },
    ...accountCommandHandlers,
    ...sessionCommandHandlers,
    AccessLog,
  ],
  exports: [AccountDirectory, PRINCIPAL_DIRECTORY],
})
export class AccountsModule {}
