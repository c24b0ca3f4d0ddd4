import { Global, Module } from '@nestjs/common';
import { RATE_LIMITER } from '../rate-limit/rate-limiter.port.js';
import { ServiceContext } from '../service-context.js';
import { AccessTokens } from './access-tokens.js';
import { ServiceSecrets } from './secrets.js';
import { SessionStore } from './sessions.js';

/** Credentials the guard and the auth routes share: secrets, sessions, access tokens, rate limits. */
@Global()
@Module({
  providers: [
    {
      provide: ServiceSecrets,
      inject: [ServiceContext],
      useFactory: (context: ServiceContext) => ServiceSecrets.load(context.config.dataDir),
    },
    {
      provide: SessionStore,
      inject: [ServiceContext],
      useFactory: (context: ServiceContext) => new SessionStore(context.storage.readStore, context.clock),
    },
    {
      provide: AccessTokens,
      inject: [ServiceSecrets, ServiceContext],
      useFactory: (secrets: ServiceSecrets, context: ServiceContext) =>
        new AccessTokens(secrets, context.clock),
    },
    {
      provide: RATE_LIMITER,
      inject: [ServiceContext],
      useFactory: (context: ServiceContext) => context.rateLimiter,
    },
  ],
  exports: [ServiceSecrets, SessionStore, AccessTokens, RATE_LIMITER],
})
export class AuthModule {}
