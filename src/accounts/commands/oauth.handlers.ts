/** The OAuth grant commands (ADR 106, 107): the grant decider with the account's entitlement as of now. */
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../platform/clock/clock.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import { StreamWriter } from '../../platform/event-sourcing/stream-writer.js';
import { accessTokenDecision, type PersonalDataDecision } from '../domain/entitlements.js';
import { oauthGrantDecider, oauthGrantStreamId, type OAuthGrantCommand } from '../domain/oauth-grant.js';
import { AccountDirectory } from '../queries/account-directory.js';
import type { CommandEnvelope } from '../../platform/event-sourcing/command-metadata.js';
import {
  AuthorizeOAuthApp,
  DetectOAuthReuse,
  IssueOAuthAccessToken,
  RevokeOAuthGrant,
} from './oauth.commands.js';

/** The read model the guard consults: a grant's tokens are known (and refused once it is revoked) at once. */
const READ_YOUR_WRITES = ['access-tokens'];

abstract class OnGrant {
  constructor(
    protected readonly writer: StreamWriter,
    protected readonly accounts: AccountDirectory,
    protected readonly clock: Clock,
  ) {}

  protected async entitlement(accountId: string): Promise<PersonalDataDecision> {
    const account = await this.accounts.account(accountId);
    if (!account) throw new ServiceError('unauthenticated', 'the grant belongs to no account');
    return accessTokenDecision(this.accounts.plan(account), await this.accounts.purchasedBalance(accountId));
  }

  protected decide(
    grantId: string,
    command: OAuthGrantCommand,
    envelope: CommandEnvelope,
    entitlement?: PersonalDataDecision,
  ) {
    return this.writer.decide({
      stream: oauthGrantStreamId(grantId),
      decider: oauthGrantDecider,
      command,
      context: { now: this.clock.now(), ...(entitlement ? { entitlement } : {}) },
      envelope,
      readYourWrites: READ_YOUR_WRITES,
    });
  }
}

@CommandHandler(AuthorizeOAuthApp)
export class AuthorizeOAuthAppHandler extends OnGrant implements ICommandHandler<AuthorizeOAuthApp, void> {
  constructor(
    @Inject(StreamWriter) writer: StreamWriter,
    @Inject(AccountDirectory) accounts: AccountDirectory,
    @Inject(CLOCK) clock: Clock,
  ) {
    super(writer, accounts, clock);
  }

  async execute(command: AuthorizeOAuthApp): Promise<void> {
    const entitlement = await this.entitlement(command.grant.accountId);
    await this.decide(
      command.grant.grantId,
      { type: 'AuthorizeApp', ...command.grant },
      command.envelope,
      entitlement,
    );
  }
}

@CommandHandler(IssueOAuthAccessToken)
export class IssueOAuthAccessTokenHandler
  extends OnGrant
  implements ICommandHandler<IssueOAuthAccessToken, void>
{
  constructor(
    @Inject(StreamWriter) writer: StreamWriter,
    @Inject(AccountDirectory) accounts: AccountDirectory,
    @Inject(CLOCK) clock: Clock,
  ) {
    super(writer, accounts, clock);
  }

  async execute(command: IssueOAuthAccessToken): Promise<void> {
    const { state } = await this.writer.load(oauthGrantStreamId(command.grantId), oauthGrantDecider);
    const entitlement = state.accountId ? await this.entitlement(state.accountId) : undefined;
    await this.decide(
      command.grantId,
      { type: 'IssueOAuthAccessToken', ...command.token },
      command.envelope,
      entitlement,
    );
  }
}

@CommandHandler(DetectOAuthReuse)
export class DetectOAuthReuseHandler extends OnGrant implements ICommandHandler<DetectOAuthReuse, void> {
  constructor(
    @Inject(StreamWriter) writer: StreamWriter,
    @Inject(AccountDirectory) accounts: AccountDirectory,
    @Inject(CLOCK) clock: Clock,
  ) {
    super(writer, accounts, clock);
  }

  async execute(command: DetectOAuthReuse): Promise<void> {
    await this.decide(command.grantId, { type: 'DetectReuse', artifact: command.artifact }, command.envelope);
  }
}

@CommandHandler(RevokeOAuthGrant)
export class RevokeOAuthGrantHandler
  extends OnGrant
  implements ICommandHandler<RevokeOAuthGrant, { revoked: boolean }>
{
  constructor(
    @Inject(StreamWriter) writer: StreamWriter,
    @Inject(AccountDirectory) accounts: AccountDirectory,
    @Inject(CLOCK) clock: Clock,
  ) {
    super(writer, accounts, clock);
  }

  async execute(command: RevokeOAuthGrant): Promise<{ revoked: boolean }> {
    const result = await this.decide(
      command.grantId,
      {
        type: 'RevokeGrant',
        reason: command.reason,
        ...(command.accountId !== undefined ? { accountId: command.accountId } : {}),
      },
      command.envelope,
    );
    return { revoked: result.events.length > 0 };
  }
}

export const oauthCommandHandlers = [
  AuthorizeOAuthAppHandler,
  IssueOAuthAccessTokenHandler,
  DetectOAuthReuseHandler,
  RevokeOAuthGrantHandler,
];
