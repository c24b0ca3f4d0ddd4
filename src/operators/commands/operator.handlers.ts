import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { generateOperatorCredential } from '../../platform/auth/operator-credentials.js';
import { CLOCK, type Clock } from '../../platform/clock/clock.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import { StreamWriter } from '../../platform/event-sourcing/stream-writer.js';
import { operatorDecider, operatorStreamId, OPERATOR_NAME } from '../domain/operator.js';
import { OperatorCredentialTable } from '../operator-credential-table.js';
import { AddOperator, RevokeOperatorCredential, type AddedOperator } from './operator.commands.js';

@CommandHandler(AddOperator)
export class AddOperatorHandler implements ICommandHandler<AddOperator, AddedOperator> {
  constructor(
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(OperatorCredentialTable) private readonly credentials: OperatorCredentialTable,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(command: AddOperator): Promise<AddedOperator> {
    const name = command.name.trim().toLowerCase();
    if (!OPERATOR_NAME.test(name)) {
      // The decider says the same; refused before any row is written.
      operatorDecider.decide({ type: 'AddOperator', name, credentialId: '' }, operatorDecider.initialState, {
        now: this.clock.now(),
      });
    }
    const generated = generateOperatorCredential();
    const issuedAt = this.clock.now();
    // The hash first: a row without its event proves nothing, an event without its row would be a dead credential.
    await this.credentials.put({
      id: generated.credentialId,
      operator: name,
      secretHash: generated.secretHash,
      issuedAt: issuedAt.toISOString(),
    });
    try {
      await this.writer.decide({
        stream: operatorStreamId(name),
        decider: operatorDecider,
        command: { type: 'AddOperator', name, credentialId: generated.credentialId },
        context: { now: issuedAt },
        envelope: command.envelope,
      });
    } catch (error) {
      await this.credentials.delete(generated.credentialId).catch(() => undefined);
      throw error;
    }
    return { name, credentialId: generated.credentialId, credential: generated.credential };
  }
}

@CommandHandler(RevokeOperatorCredential)
export class RevokeOperatorCredentialHandler implements ICommandHandler<
  RevokeOperatorCredential,
  { operator: string; revoked: boolean }
> {
  constructor(
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(OperatorCredentialTable) private readonly credentials: OperatorCredentialTable,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(command: RevokeOperatorCredential): Promise<{ operator: string; revoked: boolean }> {
    const row = await this.credentials.get(command.credentialId);
    if (!row) throw new ServiceError('not_found', `no operator credential ${command.credentialId}`);
    const { events } = await this.writer.decide({
      stream: operatorStreamId(row.operator),
      decider: operatorDecider,
      command: { type: 'RevokeOperatorCredential', credentialId: command.credentialId },
      context: { now: this.clock.now() },
      envelope: command.envelope,
    });
    return { operator: row.operator, revoked: events.length > 0 };
  }
}

export const operatorCommandHandlers = [AddOperatorHandler, RevokeOperatorCredentialHandler];
