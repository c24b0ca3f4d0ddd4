import { randomUUID } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../platform/clock/clock.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import { StreamWriter } from '../../platform/event-sourcing/stream-writer.js';
import { spaceDecider, spaceStreamId } from '../domain/space.js';
import { OrganizationGate } from './organization-access.js';
import { ORGANIZATIONS_READ_MODEL, withPayer } from './organization-writes.js';
import { ChangeSpace, CreateSpace } from './spaces.commands.js';

@CommandHandler(CreateSpace)
export class CreateSpaceHandler implements ICommandHandler<CreateSpace> {
  constructor(
    @Inject(OrganizationGate) private readonly gate: OrganizationGate,
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ principal, organizationId, space, envelope }: CreateSpace): Promise<{ spaceId: string }> {
    const access = await this.gate.require(principal, organizationId, { open: true });
    if (space.kind === 'general')
      throw new ServiceError('invalid_input', 'kind must be client or asset_scope');
    const spaceId = randomUUID();
    await this.writer.decide({
      stream: spaceStreamId(spaceId),
      decider: spaceDecider,
      command: { type: 'CreateSpace', spaceId, organizationId: access.organizationId, ...space },
      context: { now: this.clock.now() },
      envelope: withPayer(envelope, organizationId, spaceId),
      readYourWrites: ORGANIZATIONS_READ_MODEL,
    });
    return { spaceId };
  }
}

@CommandHandler(ChangeSpace)
export class ChangeSpaceHandler implements ICommandHandler<ChangeSpace> {
  constructor(
    @Inject(OrganizationGate) private readonly gate: OrganizationGate,
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(change: ChangeSpace): Promise<void> {
    const { principal, organizationId, spaceId, command, expectedVersion } = change;
    const access = await this.gate.require(principal, organizationId, { open: true });
    const space = await this.gate.space(access, spaceId);
    if (expectedVersion !== undefined && expectedVersion !== (space.version ?? -1)) {
      throw new ServiceError('version_conflict', 'the space changed since you read it: refetch and retry', {
        current_version: space.version,
      });
    }
    await this.writer.decide({
      stream: spaceStreamId(spaceId),
      decider: spaceDecider,
      command,
      context: { now: this.clock.now() },
      envelope: withPayer(change.envelope, organizationId, spaceId, command.type),
      ...(expectedVersion !== undefined ? { expectedVersion } : {}),
      readYourWrites: ORGANIZATIONS_READ_MODEL,
    });
  }
}

export const spacesHandlers = [CreateSpaceHandler, ChangeSpaceHandler];
