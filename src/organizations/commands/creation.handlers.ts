import { randomBytes, randomUUID } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../platform/clock/clock.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import { StreamWriter } from '../../platform/event-sourcing/stream-writer.js';
import { requireBusinessDomain } from '../domain/business-domain.js';
import { organizationDecider } from '../domain/organization.js';
import { CreationPreviews } from '../queries/creation-preview.js';
import { CreateOrganization, RecoverOrganizationCreation } from './creation.commands.js';
import { CreationProcess } from './creation-process.js';
import { creationStreamId, withPayer, type CreationStarted } from './organization-writes.js';

@CommandHandler(CreateOrganization)
export class CreateOrganizationHandler implements ICommandHandler<CreateOrganization> {
  constructor(
    @Inject(CreationPreviews) private readonly previews: CreationPreviews,
    @Inject(CreationProcess) private readonly process: CreationProcess,
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(command: CreateOrganization): Promise<{ organizationId: string }> {
    const { principal, envelope } = command;
    // An interrupted creation of this account is finished (or abandoned) first; the preview reads the outcome.
    await this.process.recover(principal.accountId);
    // Every refusal of rule 6 is decided here, before the creation process writes its first event.
    const preview = await this.previews.preview(principal.accountId, principal.organizationId ?? null);
    if (!preview.allowed) {
      throw new ServiceError('creation_unavailable', preview.reason ?? 'creation is unavailable', {
        reason: preview.reason_code,
      });
    }
    if (preview.transfer_credits !== command.expectedTransfer) {
      throw new ServiceError(
        'transfer_changed',
        'the transfer amount changed since the preview: preview again',
        { expected_transfer: command.expectedTransfer, transfer_credits: preview.transfer_credits },
      );
    }
    const domain = command.start === 'trial' ? requireBusinessDomain(command.domain) : null;
    const started: CreationStarted = {
      organizationId: randomUUID(),
      transferId: randomUUID(),
      credits: preview.transfer_credits,
      name: command.name,
      start: command.start,
      domain,
      verificationToken: randomBytes(18).toString('base64url'),
      generalSpaceId: randomUUID(),
    };
    // Validate the name and mode before anything is written.
    organizationDecider.decide(
      {
        type: 'CreateOrganization',
        organizationId: started.organizationId,
        name: started.name,
        ownerAccountId: principal.accountId,
        start: started.start,
        domain: started.domain,
        verificationToken: started.verificationToken,
        generalSpaceId: started.generalSpaceId,
        transfer: { transferId: started.transferId, credits: started.credits },
      },
      organizationDecider.initialState,
      { now: this.clock.now(), actorAccountId: principal.accountId },
    );
    // The intent, once per account: it also makes the account an owner exactly once.
    const stream = creationStreamId(principal.accountId);
    const intent = await this.writer.onceOnly({
      stream,
      type: 'OrganizationCreationStarted',
      data: { ...started },
      eventKey: `${envelope.commandId}@${stream}`,
      metadata: withPayer(envelope, started.organizationId).metadata,
      at: 'next',
    });
    if (!intent.appended) {
      throw new ServiceError('creation_unavailable', 'this account already owns an organization', {
        reason: 'owns_organization',
      });
    }
    await this.process.continue(principal.accountId, started, envelope);
    return { organizationId: started.organizationId };
  }
}

@CommandHandler(RecoverOrganizationCreation)
export class RecoverOrganizationCreationHandler implements ICommandHandler<RecoverOrganizationCreation> {
  constructor(@Inject(CreationProcess) private readonly process: CreationProcess) {}

  execute(command: RecoverOrganizationCreation): Promise<void> {
    return this.process.recover(command.accountId);
  }
}

export const creationHandlers = [CreateOrganizationHandler, RecoverOrganizationCreationHandler];
