import { createHash, randomUUID } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { API_KEYS } from '../../../projections/api-keys.projection.js';
import type { ApiKeyDocument } from '../../../projections/api-keys.projection.js';
import { generateApiKey } from '../../platform/auth/api-keys.js';
import {
  CREDENTIAL_STORE,
  type CredentialStore,
} from '../../platform/auth/credentials/credential-store.port.js';
import { hashPassword, passwordNeedsRehash } from '../../platform/auth/passwords.js';
import { CLOCK, type Clock } from '../../platform/clock/clock.js';
import { APP_CONFIG, type AppConfig } from '../../platform/config/app-config.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import { WrongExpectedVersion } from '../../platform/event-store/event-store.port.js';
import { onBehalfOf, type CommandEnvelope } from '../../platform/event-sourcing/command-metadata.js';
import type { AlongsideWrite } from '../../platform/event-sourcing/event-sourced-repository.js';
import { StreamWriter } from '../../platform/event-sourcing/stream-writer.js';
import { ProjectionRunner } from '../../platform/projections/projection-runner.js';
import {
  accountCredentialSubject,
  accountDecider,
  accountStreamId,
  API_KEY_CREDENTIAL,
  apiKeyCredentialId,
  PASSWORD_CREDENTIAL,
  type AccountCommand,
} from '../domain/account.js';
import {
  ChangePlan,
  IssueApiKey,
  RegisterAccount,
  RehashPassword,
  RevokeApiKey,
  SetPassword,
} from './account.commands.js';

/** One account per email: the claim is a stream of its own that can only be created once. */
export const emailClaimStreamId = (email: string): string =>
  `email-${createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 32)}`;

/**
 * A new password's hash as a credential (ADR 65): its id goes into PasswordSet, the hash is written beside the
 * event, in the append's transaction where the stores allow.
 */
function passwordCredential(
  credentials: CredentialStore,
  accountId: string,
  passwordHash: string,
  clock: Clock,
): { credentialId: string; alongside: AlongsideWrite } {
  const credentialId = `${PASSWORD_CREDENTIAL}-${randomUUID()}`;
  const credential = {
    id: credentialId,
    kind: PASSWORD_CREDENTIAL,
    subject: accountCredentialSubject(accountId),
    material: passwordHash,
    createdAt: clock.now().toISOString(),
  };
  return { credentialId, alongside: (within) => credentials.put(credential, within) };
}

/** A decision on an account's stream, for `StreamWriter.decide`. */
function onAccount(accountId: string, command: AccountCommand, clock: Clock, envelope: CommandEnvelope) {
  return {
    stream: accountStreamId(accountId),
    decider: accountDecider,
    command,
    context: { now: clock.now() },
    envelope,
  };
}

@CommandHandler(RegisterAccount)
export class RegisterAccountHandler implements ICommandHandler<RegisterAccount, { accountId: string }> {
  constructor(
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CREDENTIAL_STORE) private readonly credentials: CredentialStore,
  ) {}

  async execute(command: RegisterAccount): Promise<{ accountId: string }> {
    const accountId = randomUUID();
    const email = command.email.trim().toLowerCase();
    const passwordHash =
      command.password === undefined
        ? undefined
        : await hashPassword(command.password, this.config.passwordHashCost);
    const envelope = {
      ...command.envelope,
      metadata: { ...command.envelope.metadata, payer: `account:${accountId}` },
    };
    const claim = await this.writer.onceOnly({
      stream: emailClaimStreamId(email),
      type: 'EmailClaimed',
      data: { accountId },
      eventKey: `${command.envelope.commandId}@email`,
      metadata: envelope.metadata,
    });
    if (!claim.appended) throw new ServiceError('already_exists', `an account already uses ${email}`);
    const password = passwordHash
      ? passwordCredential(this.credentials, accountId, passwordHash, this.clock)
      : undefined;
    await this.writer.decide({
      ...onAccount(
        accountId,
        {
          type: 'RegisterAccount',
          accountId,
          email,
          plan: command.plan,
          ...(password ? { passwordCredentialId: password.credentialId } : {}),
        },
        this.clock,
        envelope,
      ),
      ...(password ? { alongside: password.alongside } : {}),
      readYourWrites: ['accounts'],
    });
    return { accountId };
  }
}

@CommandHandler(ChangePlan)
export class ChangePlanHandler implements ICommandHandler<ChangePlan, { changed: boolean }> {
  constructor(
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(command: ChangePlan): Promise<{ changed: boolean }> {
    const result = await this.writer.decide({
      ...onAccount(
        command.accountId,
        { type: 'ChangePlan', plan: command.plan },
        this.clock,
        command.envelope,
      ),
      readYourWrites: ['accounts'],
    });
    return { changed: result.events.length > 0 };
  }
}

@CommandHandler(SetPassword)
export class SetPasswordHandler implements ICommandHandler<SetPassword, void> {
  constructor(
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CREDENTIAL_STORE) private readonly credentials: CredentialStore,
  ) {}

  async execute(command: SetPassword): Promise<void> {
    const passwordHash = await hashPassword(command.password, this.config.passwordHashCost);
    const { credentialId, alongside } = passwordCredential(
      this.credentials,
      command.accountId,
      passwordHash,
      this.clock,
    );
    await this.writer.decide({
      ...onAccount(command.accountId, { type: 'SetPassword', credentialId }, this.clock, command.envelope),
      alongside,
      readYourWrites: ['accounts'],
    });
  }
}

@CommandHandler(RehashPassword)
export class RehashPasswordHandler implements ICommandHandler<RehashPassword, { rehashed: boolean }> {
  constructor(
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CREDENTIAL_STORE) private readonly credentials: CredentialStore,
  ) {}

  async execute(command: RehashPassword): Promise<{ rehashed: boolean }> {
    if (!passwordNeedsRehash(command.verified.hash, this.config.passwordHashCost)) return { rehashed: false };
    const { state, version } = await this.writer.load(accountStreamId(command.accountId), accountDecider);
    // Only the credential the password was verified against is replaced: a password changed since stays.
    if (version === null || state.passwordCredentialId !== command.verified.credentialId) {
      return { rehashed: false };
    }
    const passwordHash = await hashPassword(command.password, this.config.passwordHashCost);
    const { credentialId, alongside } = passwordCredential(
      this.credentials,
      command.accountId,
      passwordHash,
      this.clock,
    );
    try {
      const result = await this.writer.decide({
        ...onAccount(
          command.accountId,
          // The same password: its access tokens keep working (only a change ends them, ADR 75).
          { type: 'ReplacePasswordHash', credentialId },
          this.clock,
          command.envelope,
        ),
        alongside,
        readYourWrites: ['accounts'],
        expectedVersion: version,
      });
      return { rehashed: result.events.length > 0 };
    } catch (error) {
      // Another write reached the account first: the next sign-in upgrades the hash.
      if (error instanceof WrongExpectedVersion) return { rehashed: false };
      throw error;
    }
  }
}

@CommandHandler(IssueApiKey)
export class IssueApiKeyHandler implements ICommandHandler<IssueApiKey> {
  constructor(
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(CREDENTIAL_STORE) private readonly credentials: CredentialStore,
  ) {}

  async execute(
    command: IssueApiKey,
  ): Promise<{ keyId: string; prefix: string; key: string; label: string; issuedAt: string }> {
    const generated = generateApiKey();
    const credential = {
      id: apiKeyCredentialId(generated.keyId),
      kind: API_KEY_CREDENTIAL,
      subject: accountCredentialSubject(command.accountId),
      material: generated.secretHash,
      createdAt: this.clock.now().toISOString(),
    };
    // The key must work as soon as the caller has it.
    const result = await this.writer.decide({
      ...onAccount(
        command.accountId,
        {
          type: 'IssueApiKey',
          keyId: generated.keyId,
          prefix: generated.prefix,
          label: command.label,
        },
        this.clock,
        command.envelope,
      ),
      alongside: (within) => this.credentials.put(credential, within),
      readYourWrites: ['api-keys'],
    });
    const issued = result.events[0]?.data as { issuedAt: string } | undefined;
    return {
      keyId: generated.keyId,
      prefix: generated.prefix,
      key: generated.key,
      label: command.label,
      issuedAt: issued?.issuedAt ?? this.clock.now().toISOString(),
    };
  }
}

@CommandHandler(RevokeApiKey)
export class RevokeApiKeyHandler implements ICommandHandler<RevokeApiKey, { revoked: boolean }> {
  constructor(
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(ProjectionRunner) private readonly projections: ProjectionRunner,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(command: RevokeApiKey): Promise<{ revoked: boolean }> {
    const key = await this.projections.collection<ApiKeyDocument>('api-keys', API_KEYS).get(command.keyId);
    // Another account's key is reported exactly like a missing one.
    if (!key || (command.ownerAccountId !== undefined && key.accountId !== command.ownerAccountId)) {
      throw new ServiceError('not_found', 'no such API key');
    }
    // Revocation takes effect before the caller hears it did.
    const result = await this.writer.decide({
      ...onAccount(
        key.accountId,
        { type: 'RevokeApiKey', keyId: command.keyId },
        this.clock,
        // On behalf of the key's account, whoever revokes it (an operator's command names no account).
        onBehalfOf(command.envelope, `account:${key.accountId}`),
      ),
      readYourWrites: ['api-keys'],
    });
    return { revoked: result.events.length > 0 };
  }
}

export const accountCommandHandlers = [
  RegisterAccountHandler,
  ChangePlanHandler,
  SetPasswordHandler,
  RehashPasswordHandler,
  IssueApiKeyHandler,
  RevokeApiKeyHandler,
];
