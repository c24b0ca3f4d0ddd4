import { randomUUID } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../platform/clock/clock.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import { onBehalfOf } from '../../platform/event-sourcing/command-metadata.js';
import { StreamWriter } from '../../platform/event-sourcing/stream-writer.js';
import { organizationDecider, organizationStreamId } from '../../organizations/domain/organization.js';
import { spaceDecider, spaceStreamId } from '../../organizations/domain/space.js';
import { declarationKey } from '../domain/coverage.js';
import { expositionDecider, expositionStreamId } from '../domain/exposition.js';
import { INITIAL_REFRESH_KEY, runKeyHash } from '../domain/refresh-run.js';
import { controlsStreamId } from '../scope-erasure-sweeper.js';
import { ExposureGate } from './exposure-access.js';
import { bodyVersion, EXPOSURE_PROJECTIONS, withScope } from './exposure-write.js';
import { CancelScopeRefreshes, QueueRefreshRun } from './refresh.commands.js';
import {
  ChangeScopeTimezone,
  CreateExposureScope,
  DeleteClient,
  DisableExposition,
  EnableExposition,
  ImportControlRecords,
  RestoreClient,
} from './scope-lifecycle.commands.js';

@CommandHandler(CreateExposureScope)
export class CreateExposureScopeHandler implements ICommandHandler<CreateExposureScope> {
  constructor(
    @Inject(ExposureGate) private readonly gate: ExposureGate,
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(CommandBus) private readonly commands: CommandBus,
  ) {}

  async execute({ principal, organizationId, body, envelope }: CreateExposureScope) {
    const { access, exposition } = await this.gate.organization(principal, organizationId, { write: true });
    const scopeId = randomUUID();
    const created = await this.writer.decide({
      stream: spaceStreamId(scopeId),
      decider: spaceDecider,
      command: {
        type: 'CreateExposureScope',
        spaceId: scopeId,
        organizationId: access.organizationId,
        name: body.name as string,
        domain: body.domain,
        timezone: body.timezone,
        addresses: body.addresses,
        monitoring: body.monitoring as boolean,
        creditLimit: body.creditLimit,
        billing: exposition.billing!,
      },
      context: { now: this.clock.now() },
      envelope: withScope(envelope, organizationId, scopeId),
      readYourWrites: EXPOSURE_PROJECTIONS,
    });
    const exposure = created.state.exposure!;
    // Creation: "creating a capacity-billed scope starts an initial refresh from stored observations".
    if (exposure.billing === 'capacity') {
      await this.commands.execute(
        new QueueRefreshRun(
          organizationId,
          scopeId,
          runKeyHash(INITIAL_REFRESH_KEY),
          'creation',
          declarationKey(exposure.domain, exposure.addresses),
          'capacity',
          null,
          withScope(envelope, organizationId, scopeId, 'initial-refresh'),
          true,
        ),
      );
    }
    return { scopeId };
  }
}

@CommandHandler(DeleteClient)
export class DeleteClientHandler implements ICommandHandler<DeleteClient> {
  constructor(
    @Inject(ExposureGate) private readonly gate: ExposureGate,
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(CommandBus) private readonly commands: CommandBus,
  ) {}

  async execute(command: DeleteClient): Promise<void> {
    const { principal, organizationId, spaceId, envelope } = command;
    const access = await this.gate.organizationGate().require(principal, organizationId, { open: true });
    const space = await this.gate.anySpace(access, spaceId);
    if (space.state.deleted) throw new ServiceError('not_found', 'no such space');
    await this.writer.decide({
      stream: spaceStreamId(spaceId),
      decider: spaceDecider,
      command: { type: 'DeleteSpace', confirmName: command.confirmName },
      context: { now: this.clock.now() },
      envelope: withScope(envelope, organizationId, spaceId),
      expectedVersion: command.expectedVersion,
      readYourWrites: EXPOSURE_PROJECTIONS,
    });
    // Access is removed at once; the grants are withdrawn too, so a restore does not bring them back.
    const organization = await this.writer.load(organizationStreamId(organizationId), organizationDecider);
    for (const [accountId, member] of Object.entries(organization.state.members).sort(([a], [b]) =>
      a < b ? -1 : 1,
    )) {
      if (!member.spaces.includes(spaceId)) continue;
      await this.writer.decide({
        stream: organizationStreamId(organizationId),
        decider: organizationDecider,
        command: { type: 'UnassignSpace', accountId, spaceId },
        context: { now: this.clock.now(), actorAccountId: principal.accountId },
        envelope: withScope(envelope, organizationId, spaceId, `unassign:${accountId}`),
      });
    }
    await this.commands.execute(new CancelScopeRefreshes(spaceId, 'deleted', envelope));
  }
}

@CommandHandler(RestoreClient)
export class RestoreClientHandler implements ICommandHandler<RestoreClient> {
  constructor(
    @Inject(ExposureGate) private readonly gate: ExposureGate,
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ principal, organizationId, spaceId, expectedVersion, envelope }: RestoreClient) {
    const access = await this.gate.organizationGate().require(principal, organizationId, { open: true });
    const space = await this.gate.anySpace(access, spaceId);
    if (!space.state.deleted) throw new ServiceError('not_found', 'no such deleted space');
    await this.writer.decide({
      stream: spaceStreamId(spaceId),
      decider: spaceDecider,
      command: { type: 'RestoreDeletedSpace' },
      context: { now: this.clock.now() },
      envelope: withScope(envelope, organizationId, spaceId),
      expectedVersion,
      readYourWrites: EXPOSURE_PROJECTIONS,
    });
  }
}

@CommandHandler(ChangeScopeTimezone)
export class ChangeScopeTimezoneHandler implements ICommandHandler<ChangeScopeTimezone> {
  constructor(
    @Inject(ExposureGate) private readonly gate: ExposureGate,
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ principal, organizationId, scopeId, body, envelope }: ChangeScopeTimezone) {
    const expectedVersion = bodyVersion(body.version);
    await this.gate.scope(principal, organizationId, scopeId, { write: true });
    await this.writer.decide({
      stream: spaceStreamId(scopeId),
      decider: spaceDecider,
      command: { type: 'ChangeTimezone', timezone: body.timezone },
      context: { now: this.clock.now() },
      envelope: withScope(envelope, organizationId, scopeId),
      expectedVersion,
      readYourWrites: EXPOSURE_PROJECTIONS,
    });
  }
}

@CommandHandler(EnableExposition)
export class EnableExpositionHandler implements ICommandHandler<EnableExposition> {
  constructor(
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ organizationId, billing, envelope }: EnableExposition) {
    const organization = await this.writer.load(organizationStreamId(organizationId), organizationDecider);
    if (!organization.state.exists) throw new ServiceError('not_found', 'no such organization');
    const result = await this.writer.decide({
      stream: expositionStreamId(organizationId),
      decider: expositionDecider,
      command: { type: 'EnableExposition', organizationId, billing },
      context: { now: this.clock.now() },
      envelope: { ...envelope, metadata: { ...envelope.metadata, payer: `organization:${organizationId}` } },
    });
    return { changed: result.events.length > 0 };
  }
}

@CommandHandler(DisableExposition)
export class DisableExpositionHandler implements ICommandHandler<DisableExposition> {
  constructor(
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ organizationId, envelope }: DisableExposition): Promise<void> {
    await this.writer.decide({
      stream: expositionStreamId(organizationId),
      decider: expositionDecider,
      command: { type: 'DisableExposition' },
      context: { now: this.clock.now() },
      envelope,
    });
  }
}

@CommandHandler(ImportControlRecords)
export class ImportControlRecordsHandler implements ICommandHandler<ImportControlRecords> {
  constructor(
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ scopeId, records, envelope: operator }: ImportControlRecords) {
    const space = await this.writer.load(spaceStreamId(scopeId), spaceDecider);
    if (!space.state.exists || !space.state.exposure || space.state.deleted) {
      throw new ServiceError('not_found', `no exposure scope ${scopeId}`);
    }
    const envelope = onBehalfOf(operator, `organization:${space.state.organizationId!}`, scopeId);
    // A record of evidence, not a decision: no decider; the same file has the same event id (re-import).
    return this.writer.record({
      stream: controlsStreamId(scopeId),
      type: 'ControlRecordsImported',
      data: { scopeId, records, importedAt: this.clock.now().toISOString() },
      eventKey: `controls:${scopeId}:${JSON.stringify(records)}`,
      metadata: envelope.metadata,
    });
  }
}

export const scopeLifecycleHandlers = [
  CreateExposureScopeHandler,
  DeleteClientHandler,
  RestoreClientHandler,
  ChangeScopeTimezoneHandler,
  EnableExpositionHandler,
  DisableExpositionHandler,
  ImportControlRecordsHandler,
];
