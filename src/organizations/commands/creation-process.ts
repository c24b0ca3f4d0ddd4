import { Inject, Injectable } from '@nestjs/common';
import { CreditLedger } from '../../credits/commands/credit-ledger.js';
import { ledgerDecider, ledgerStreamId } from '../../credits/domain/ledger.js';
import { CLOCK, type Clock } from '../../platform/clock/clock.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import {
  causedBy,
  commandEnvelope,
  type CommandEnvelope,
} from '../../platform/event-sourcing/command-metadata.js';
import { StreamWriter } from '../../platform/event-sourcing/stream-writer.js';
import {
  EVENT_STORE,
  type EventStore,
  WrongExpectedVersion,
} from '../../platform/event-store/event-store.port.js';
import { organizationDecider, organizationStreamId } from '../domain/organization.js';
import { spaceDecider, spaceStreamId } from '../domain/space.js';
import {
  creationStreamId,
  ignoreAlreadyExists,
  ORGANIZATIONS_READ_MODEL,
  type CreationStarted,
} from './organization-writes.js';

/**
 * The account transition of rule 6 as one resumable process, after its intent (`OrganizationCreationStarted`):
 * the personal ledger's transfer out, the organization, its General research space, the organization ledger's
 * transfer in, then completion. Every step is idempotent by a deterministic command id and the transfer id, so
 * a crash anywhere is finished by `recover`: credits are moved once or not at all.
 */
@Injectable()
export class CreationProcess {
  constructor(
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(CreditLedger) private readonly ledger: CreditLedger,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Finishes (or abandons, when nothing moved yet) an interrupted creation of this account. */
  async recover(accountId: string): Promise<void> {
    const events = await this.eventStore.readStream(creationStreamId(accountId));
    const last = events.at(-1);
    if (!last || last.type !== 'OrganizationCreationStarted') return;
    const started = last.data as unknown as CreationStarted;
    const organization = await this.writer.load(
      organizationStreamId(started.organizationId),
      organizationDecider,
    );
    if (organization.state.transition?.completed) return;
    const envelope = commandEnvelope({
      actor: `system:organization-recovery`,
      payer: `organization:${started.organizationId}`,
      commandId: `recover:${started.transferId}`,
    });
    await this.continue(accountId, started, envelope);
  }

  async continue(accountId: string, started: CreationStarted, parent: CommandEnvelope): Promise<void> {
    const organizationId = started.organizationId;
    const step = (name: string) =>
      causedBy(parent, `${name}:${started.transferId}`, { payer: `organization:${organizationId}` });
    const organization = await this.writer.load(organizationStreamId(organizationId), organizationDecider);
    if (!organization.state.exists && started.credits > 0) {
      const personal = `account:${accountId}`;
      try {
        await this.writer.decide({
          stream: ledgerStreamId(personal),
          decider: ledgerDecider,
          command: {
            type: 'TransferOut',
            transferId: started.transferId,
            credits: started.credits,
            to: `organization:${organizationId}`,
          },
          context: await this.ledger.ledgerContext(personal),
          envelope: {
            ...step('transition-out'),
            metadata: { ...step('transition-out').metadata, payer: personal },
          },
          conflictRetries: 25,
        });
      } catch (error) {
        if (error instanceof ServiceError && error.code === 'insufficient_credits') {
          // Nothing moved: the personal balance changed under the creation. Abandon so the owner can preview again.
          await this.abandon(accountId, started, parent);
          throw new ServiceError(
            'transfer_changed',
            'the transfer amount changed since the preview: preview again',
          );
        }
        throw error;
      }
    }
    await this.writer
      .decide({
        stream: organizationStreamId(organizationId),
        decider: organizationDecider,
        command: {
          type: 'CreateOrganization',
          organizationId,
          name: started.name,
          ownerAccountId: accountId,
          start: started.start,
          domain: started.domain,
          verificationToken: started.verificationToken,
          generalSpaceId: started.generalSpaceId,
          transfer: { transferId: started.transferId, credits: started.credits },
        },
        context: { now: this.clock.now(), actorAccountId: accountId },
        envelope: step('organization-create'),
      })
      .catch(ignoreAlreadyExists);
    await this.writer
      .decide({
        stream: spaceStreamId(started.generalSpaceId),
        decider: spaceDecider,
        command: {
          type: 'CreateSpace',
          spaceId: started.generalSpaceId,
          organizationId,
          kind: 'general',
          name: 'General research',
          creditLimit: null,
          monitoring: false,
        },
        context: { now: this.clock.now() },
        envelope: step('general-space'),
      })
      .catch(ignoreAlreadyExists);
    if (started.credits > 0) {
      const payer = `organization:${organizationId}`;
      await this.writer.decide({
        stream: ledgerStreamId(payer),
        decider: ledgerDecider,
        command: {
          type: 'TransferIn',
          transferId: started.transferId,
          credits: started.credits,
          from: `account:${accountId}`,
        },
        context: await this.ledger.ledgerContext(payer),
        envelope: step('transition-in'),
        conflictRetries: 25,
      });
    }
    await this.writer.decide({
      stream: organizationStreamId(organizationId),
      decider: organizationDecider,
      command: { type: 'CompleteAccountTransition', transferId: started.transferId },
      context: { now: this.clock.now(), actorAccountId: null },
      envelope: step('transition-complete'),
      readYourWrites: [...ORGANIZATIONS_READ_MODEL, 'credit-state'],
    });
  }

  /** Records that nothing moved, so the account may preview and create again. */
  private async abandon(accountId: string, started: CreationStarted, parent: CommandEnvelope): Promise<void> {
    const stream = creationStreamId(accountId);
    const abandonedNow = await this.writer.onceOnly({
      stream,
      type: 'OrganizationCreationAbandoned',
      data: { organizationId: started.organizationId, transferId: started.transferId },
      eventKey: `abandon:${started.transferId}@${stream}`,
      metadata: parent.metadata,
      at: 'next',
    });
    // Another writer moved the intent meanwhile: as before, the process stops on the conflict.
    if (!abandonedNow.appended) {
      throw new WrongExpectedVersion(stream, 'any', await this.eventStore.streamVersion(stream));
    }
  }
}
