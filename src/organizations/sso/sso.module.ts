import { Global, Module } from '@nestjs/common';
import { AccountsModule } from '../../accounts/accounts.module.js';
import { AccountDirectory } from '../../accounts/queries/account-directory.js';
import { ServiceSecrets } from '../../platform/auth/secrets.js';
import { SessionStore } from '../../platform/auth/sessions.js';
import { PASSWORD_SIGN_IN_GATE } from '../../platform/auth/sign-in-gate.js';
import { ServiceContext } from '../../platform/service-context.js';
import { OrganizationWorkspace } from '../commands/organization-workspace.js';
import { OrganizationsModule } from '../organizations.module.js';
import { SingleSignOn } from './commands/single-sign-on.js';
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
    {
      provide: SingleSignOn,
      inject: [ServiceContext, ServiceSecrets, AccountDirectory, SessionStore, OrganizationWorkspace],
      useFactory: (
        context: ServiceContext,
        secrets: ServiceSecrets,
        accounts: AccountDirectory,
        sessions: SessionStore,
        workspace: OrganizationWorkspace,
      ) => new SingleSignOn(context, secrets, accounts, sessions, workspace),
    },
    { provide: PASSWORD_SIGN_IN_GATE, useExisting: SingleSignOn },
  ],
  exports: [SingleSignOn, PASSWORD_SIGN_IN_GATE],
})
export class SsoModule {}
