import { Module } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { PRINCIPAL_DIRECTORY } from '../platform/auth/access.js';
import {
  CREDENTIAL_STORE,
  type CredentialStore,
} from '../platform/auth/credentials/credential-store.port.js';
import { OAuthIssuers } from '../platform/auth/oauth-issuers.js';
import { ServiceSecrets } from '../platform/auth/secrets.js';
import { SessionStore } from '../platform/auth/sessions.js';
import { CLOCK, type Clock } from '../platform/clock/clock.js';
import { APP_CONFIG, type AppConfig } from '../platform/config/app-config.js';
import { RAW_HTTP_ROUTES } from '../platform/http/raw-routes.js';
import { ProjectionRunner } from '../platform/projections/projection-runner.js';
import { READ_STORE, type ReadStore } from '../platform/read-store/read-store.port.js';
import { oauthCommandHandlers } from './commands/oauth.handlers.js';
import { OAuthAppsController, ProtectedResourceController } from './http/oauth-apps.controller.js';
import { AuthorizationServer } from './oauth/authorization-server.js';
import { OAuthGateway } from './oauth/oauth-gateway.js';
import { OAuthStore } from './oauth/oauth-store.js';
import { AccessLog } from './commands/access-log.js';
import { accountCommandHandlers } from './commands/account.handlers.js';
import { sessionCommandHandlers } from './commands/session.handlers.js';
import { AccessTokensController } from './http/access-tokens.controller.js';
import { ApiKeysController } from './http/api-keys.controller.js';
import { AuthSessionController } from './http/auth-session.controller.js';
import { AccountDirectory } from './queries/account-directory.js';

@Module({
  controllers: [
    AuthSessionController,
    ApiKeysController,
    AccessTokensController,
    OAuthAppsController,
    ProtectedResourceController,
  ],
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
    ...oauthCommandHandlers,
    AccessLog,
    // The OAuth authorization server (ADR 106), mounted before body parsing through RAW_HTTP_ROUTES.
    {
      provide: OAuthStore,
      inject: [READ_STORE, CLOCK],
      useFactory: (readStore: ReadStore, clock: Clock) => new OAuthStore(readStore, clock),
    },
    {
      provide: AuthorizationServer,
      inject: [OAuthStore, ServiceSecrets, OAuthIssuers, CommandBus, AccountDirectory, CLOCK],
      useFactory: (
        store: OAuthStore,
        secrets: ServiceSecrets,
        issuers: OAuthIssuers,
        commands: CommandBus,
        accounts: AccountDirectory,
        clock: Clock,
      ) => new AuthorizationServer({ store, secrets, issuers, commands, accounts, clock }),
    },
    {
      provide: RAW_HTTP_ROUTES,
      inject: [AuthorizationServer, APP_CONFIG, CommandBus, SessionStore, ServiceSecrets, AccountDirectory],
      useFactory: (
        server: AuthorizationServer,
        config: AppConfig,
        commands: CommandBus,
        sessions: SessionStore,
        secrets: ServiceSecrets,
        accounts: AccountDirectory,
      ) => new OAuthGateway(server, { config, commands, sessions, secrets, accounts }),
    },
  ],
  exports: [AccountDirectory, PRINCIPAL_DIRECTORY],
})
export class AccountsModule {}
