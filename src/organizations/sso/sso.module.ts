import { Global, Module } from '@nestjs/common';
import { AccountsModule } from '../../accounts/accounts.module.js';
import { PASSWORD_SIGN_IN_GATE } from '../../platform/auth/sign-in-gate.js';
import { OrganizationsModule } from '../organizations.module.js';
import { SignInFlows } from './commands/sign-in-flows.js';
import { SingleSignOn } from './commands/single-sign-on.js';
import { SsoStream } from './commands/sso-facts.js';
import { SsoProvider } from './commands/sso-provider.js';
import { ssoCommandHandlers } from './commands/sso.handlers.js';
import { SsoSettingsController, SsoSignInController } from './http/sso.controllers.js';

/**
 * Staff single sign-on (rule 12). Global so the password login (accounts) finds the sign-in gate it asks
 * before opening a session.
 */
@Global()
@Module({
  imports: [AccountsModule, OrganizationsModule],
  controllers: [SsoSettingsController, SsoSignInController],
  providers: [
    SsoStream,
    SsoProvider,
    SignInFlows,
    SingleSignOn,
    { provide: PASSWORD_SIGN_IN_GATE, useExisting: SingleSignOn },
    ...ssoCommandHandlers,
  ],
  exports: [SingleSignOn, PASSWORD_SIGN_IN_GATE],
})
export class SsoModule {}
