import { createHash, randomUUID } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { API_KEYS } from '../../../projections/api-keys.projection.js';
import type { ApiKeyDocument } from '../../../projections/api-keys.projection.js';
import { CreditLedger } from '../../credits/commands/credit-ledger.js';
import { generateApiKey } from '../../platform/auth/api-keys.js';
import { hashPassword } from '../../platform/auth/passwords.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import { WrongExpectedVersion } from '../../platform/event-store/event-store.port.js';
import { eventIdFor } from '../../platform/event-store/event-id.js';
import { ServiceContext } from '../../platform/service-context.js';
import { accountDecider, accountStreamId } from '../domain/account.js';
import {
  ChangePlan,
  IssueApiKey,
  PurchaseCredits,
  RegisterAccount,
  RevokeApiKey,
  SetPassword,
} from './account.commands.js';

/** One account per email: the claim is a stream of its own that can only be created once. */
export const emailClaimStreamId = (email: string): string =>
  `email-${createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 32)}`;

@CommandHandler(RegisterAccount)
export class RegisterAccountHandler implements ICommandHandler<RegisterAccount, { accountId: string }> {
  constructor(@Inject(ServiceContext) private readonly context: ServiceContext) {}

  async execute(command: RegisterAccount): Promise<{ accountId: string }> {
    const accountId = randomUUID();
    const email = command.email.trim().toLowerCase();
    const passwordHash = command.password === undefined ? undefined : await hashPassword(command.password);
    try {
      await this.context.storage.eventStore.append(
        emailClaimStreamId(email),
        [
          {
            id: eventIdFor(`${command.envelope.commandId}@email`, 0),
            type: 'EmailClaimed',
            schemaVersion: 1,
            data: { accountId },
            metadata: { ...command.envelope.metadata, payer: `account:${accountId}` },
          },
        ],
        { expectedVersion: 'no_stream' },
      );
    } catch (error) {
      if (error instanceof WrongExpectedVersion)
        throw new ServiceError('already_exists', `an account already uses ${email}`);
      throw error;
    }
    const result = await this.context.repository.handle(
      accountStreamId(accountId),
      accountDecider,
      {
        type: 'RegisterAccount',
        accountId,
        email,
        plan: command.plan,
        ...(passwordHash ? { passwordHash } : {}),
      },
      { now: this.context.clock.now() },
      { ...command.envelope, metadata: { ...command.envelope.metadata, payer: `account:${accountId}` } },
    );
    await this.context.readYourWrites(['accounts'], result.position);
    return { accountId };
  }
}

@CommandHandler(ChangePlan)
export class ChangePlanHandler implements ICommandHandler<ChangePlan, { changed: boolean }> {
  constructor(@Inject(ServiceContext) private readonly context: ServiceContext) {}

  async execute(command: ChangePlan): Promise<{ changed: boolean }> {
    const result = await this.context.repository.handle(
      accountStreamId(command.accountId),
      accountDecider,
      { type: 'ChangePlan', plan: command.plan },
      { now: this.context.clock.now() },
      command.envelope,
    );
    await this.context.readYourWrites(['accounts'], result.position);
    return { changed: result.events.length > 0 };
  }
}

@CommandHandler(SetPassword)
export class SetPasswordHandler implements ICommandHandler<SetPassword, void> {
  constructor(@Inject(ServiceContext) private readonly context: ServiceContext) {}

  async execute(command: SetPassword): Promise<void> {
    const passwordHash = await hashPassword(command.password);
    const result = await this.context.repository.handle(
      accountStreamId(command.accountId),
      accountDecider,
      { type: 'SetPassword', passwordHash },
      { now: this.context.clock.now() },
      command.envelope,
    );
    await this.context.readYourWrites(['accounts'], result.position);
  }
}

@CommandHandler(IssueApiKey)
export class IssueApiKeyHandler implements ICommandHandler<IssueApiKey> {
  constructor(@Inject(ServiceContext) private readonly context: ServiceContext) {}

  async execute(
    command: IssueApiKey,
  ): Promise<{ keyId: string; prefix: string; key: string; label: string; issuedAt: string }> {
    const generated = generateApiKey();
    const result = await this.context.repository.handle(
      accountStreamId(command.accountId),
      accountDecider,
      {
        type: 'IssueApiKey',
        keyId: generated.keyId,
        prefix: generated.prefix,
        secretHash: generated.secretHash,
        label: command.label,
      },
      { now: this.context.clock.now() },
      command.envelope,
    );
    // The key must work as soon as the caller has it.
    await this.context.readYourWrites(['api-keys'], result.position);
    const issued = result.events[0]?.data as { issuedAt: string } | undefined;
    return {
      keyId: generated.keyId,
      prefix: generated.prefix,
      key: generated.key,
      label: command.label,
      issuedAt: issued?.issuedAt ?? this.context.clock.now().toISOString(),
    };
  }
}

@CommandHandler(RevokeApiKey)
export class RevokeApiKeyHandler implements ICommandHandler<RevokeApiKey, { revoked: boolean }> {
  constructor(@Inject(ServiceContext) private readonly context: ServiceContext) {}

  async execute(command: RevokeApiKey): Promise<{ revoked: boolean }> {
    const key = await this.context.projections
      .collection<ApiKeyDocument>('api-keys', API_KEYS)
      .get(command.keyId);
    // Another account's key is reported exactly like a missing one.
    if (!key || (command.ownerAccountId !== undefined && key.accountId !== command.ownerAccountId)) {
      throw new ServiceError('not_found', 'no such API key');
    }
    const result = await this.context.repository.handle(
      accountStreamId(key.accountId),
      accountDecider,
      { type: 'RevokeApiKey', keyId: command.keyId },
      { now: this.context.clock.now() },
      command.envelope,
    );
    // Revocation takes effect before the caller hears it did.
    await this.context.readYourWrites(['api-keys'], result.position);
    return { revoked: result.events.length > 0 };
  }
}

@CommandHandler(PurchaseCredits)
export class PurchaseCreditsHandler implements ICommandHandler<PurchaseCredits, { position: string | null }> {
  constructor(@Inject(ServiceContext) private readonly context: ServiceContext) {}

  async execute(command: PurchaseCredits): Promise<{ position: string | null }> {
    if (!Number.isInteger(command.credits) || command.credits < 1 || command.credits > 100_000_000) {
      throw new ServiceError('invalid_input', 'credits must be an integer from 1 to 100,000,000');
    }
    const position = await new CreditLedger(this.context).purchase(
      `account:${command.accountId}`,
      command.credits,
      command.envelope,
    );
    await this.context.readYourWrites(['credit-state'], position);
    return { position };
  }
}

export const accountCommandHandlers = [
  RegisterAccountHandler,
  ChangePlanHandler,
  SetPasswordHandler,
  IssueApiKeyHandler,
  RevokeApiKeyHandler,
  PurchaseCreditsHandler,
];
