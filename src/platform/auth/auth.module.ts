import { Global, Module } from '@nestjs/common';
import { CLOCK, type Clock } from '../clock/clock.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { READ_STORE, type ReadStore } from '../read-store/read-store.port.js';
import { AccessTokens, DEFAULT_ACCESS_TOKEN_ISSUER } from './access-tokens.js';
import { OAuthIssuers } from './oauth-issuers.js';
import { ServiceSecrets } from './secrets.js';
import { SessionStore } from './sessions.js';

/**
 * Credentials the guard and the auth routes share: secrets, sessions, access tokens. Rate limits are the
 * platform's RATE_LIMITER port.
 */
@Global()
@Module({
  providers: [
    {
      provide: ServiceSecrets,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ServiceSecrets.load(config.dataDir),
    },
    {
      provide: SessionStore,
      inject: [READ_STORE, CLOCK],
      useFactory: (readStore: ReadStore, clock: Clock) => new SessionStore(readStore, clock),
    },
    {
      provide: OAuthIssuers,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => new OAuthIssuers(config.publicUrl),
    },
    {
      provide: AccessTokens,
      inject: [ServiceSecrets, CLOCK, OAuthIssuers],
      useFactory: (secrets: ServiceSecrets, clock: Clock, issuers: OAuthIssuers) =>
        new AccessTokens(secrets, clock, DEFAULT_ACCESS_TOKEN_ISSUER, issuers),
    },
  ],
  exports: [ServiceSecrets, SessionStore, AccessTokens, OAuthIssuers],
})
export class AuthModule {}
