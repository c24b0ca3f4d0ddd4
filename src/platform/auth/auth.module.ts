import { Global, Module } from '@nestjs/common';
import { CLOCK, type Clock } from '../clock/clock.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { READ_STORE, type ReadStore } from '../read-store/read-store.port.js';
import { AccessTokens } from './access-tokens.js';
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
      provide: AccessTokens,
      inject: [ServiceSecrets, CLOCK],
      useFactory: (secrets: ServiceSecrets, clock: Clock) => new AccessTokens(secrets, clock),
    },
  ],
  exports: [ServiceSecrets, SessionStore, AccessTokens],
})
export class AuthModule {}
