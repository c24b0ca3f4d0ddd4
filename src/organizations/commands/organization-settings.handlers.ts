import { Inject, Injectable } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CreditLedger } from '../../credits/commands/credit-ledger.js';
import { ledgerDecider, ledgerStreamId } from '../../credits/domain/ledger.js';
import { CLOCK, type Clock } from '../../platform/clock/clock.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import { causedBy, type CommandEnvelope } from '../../platform/event-sourcing/command-metadata.js';
import { StreamWriter } from '../../platform/event-sourcing/stream-writer.js';
import { EVENT_STORE, type EventStore } from '../../platform/event-store/event-store.port.js';
import { TXT_RESOLVER, type TxtResolver } from '../dns-txt-resolver.js';
import { registrableDomain } from '../domain/business-domain.js';
import { organizationDecider, type OrganizationState } from '../domain/organization.js';
import { OrganizationGate } from './organization-access.js';
import {
  ApplyOperatorCommand,
  RenameOrganization,
  RequestOrganizationPlan,
  RequireTrialApproval,
  VerifyOrganizationDomain,
} from './organization-settings.commands.js';
import {
  approvalFlagStreamId,
  OrganizationStream,
  trialAccountClaimStreamId,
  trialDomainClaimStreamId,
  withPayer,
} from './organization-writes.js';

/** The trial's 1,000 shared credits, once per organization (idempotent by the transfer id). */
@Injectable()
export class TrialCredits {
  constructor(
    @Inject(OrganizationGate) private readonly gate: OrganizationGate,
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(CreditLedger) private readonly ledger: CreditLedger,
  ) {}

  async grant(organizationId: string, parent: CommandEnvelope): Promise<void> {
    const { state } = await this.gate.organization(organizationId);
    if (!state.trial) return;
    const payer = `organization:${organizationId}`;
    await this.writer.decide({
      stream: ledgerStreamId(payer),
      decider: ledgerDecider,
      command: { type: 'TransferIn', transferId: `trial:${organizationId}`, credits: 1_000, from: 'trial' },
      context: await this.ledger.ledgerContext(payer),
      envelope: causedBy(parent, `trial-credits:${organizationId}`, { payer }),
      conflictRetries: 25,
      readYourWrites: ['credit-state'],
    });
  }
}

@CommandHandler(RenameOrganization)
export class RenameOrganizationHandler implements ICommandHandler<RenameOrganization> {
  constructor(
    @Inject(OrganizationGate) private readonly gate: OrganizationGate,
    @Inject(OrganizationStream) private readonly organizations: OrganizationStream,
  ) {}

  async execute({ principal, organizationId, name, envelope }: RenameOrganization): Promise<void> {
    await this.gate.require(principal, organizationId);
    await this.organizations.decide(
      organizationId,
      principal.accountId,
      { type: 'RenameOrganization', name },
      envelope,
    );
  }
}

@CommandHandler(VerifyOrganizationDomain)
export class VerifyOrganizationDomainHandler implements ICommandHandler<VerifyOrganizationDomain> {
  constructor(
    @Inject(OrganizationGate) private readonly gate: OrganizationGate,
    @Inject(OrganizationStream) private readonly organizations: OrganizationStream,
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(TXT_RESOLVER) private readonly dns: TxtResolver,
    @Inject(TrialCredits) private readonly trialCredits: TrialCredits,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ principal, organizationId, envelope }: VerifyOrganizationDomain): Promise<void> {
    const access = await this.gate.require(principal, organizationId);
    const verification = access.state.verification;
    if (!verification) throw new ServiceError('invalid_input', 'this organization did not ask for a trial');
    if (verification.verifiedAt) return;
    const txt = await this.dns.resolveTxt(verification.record.name);
    const probe = (facts: {
      domainAlreadyUsedForTrial: boolean;
      accountAlreadyHadTrial: boolean;
      approvalRequired: boolean;
    }) => ({ type: 'VerifyDomain', txt, ...facts }) as const;
    // Refuse a missing record before any claim is taken.
    organizationDecider.decide(
      probe({ domainAlreadyUsedForTrial: false, accountAlreadyHadTrial: false, approvalRequired: false }),
      access.state,
      { now: this.clock.now(), actorAccountId: principal.accountId },
    );
    const owner = access.state.ownerAccountId!;
    // Once per registrable domain: a subdomain of a domain that already had a trial claims the same key.
    const domainAlreadyUsedForTrial = !(await this.claim(
      trialDomainClaimStreamId(registrableDomain(verification.domain) ?? verification.domain),
      organizationId,
      envelope,
    ));
    const accountAlreadyHadTrial = !(await this.claim(
      trialAccountClaimStreamId(owner),
      organizationId,
      envelope,
    ));
    const approvalRequired = (await this.eventStore.streamVersion(approvalFlagStreamId(owner))) !== null;
    await this.organizations.decide(
      organizationId,
      principal.accountId,
      probe({ domainAlreadyUsedForTrial, accountAlreadyHadTrial, approvalRequired }),
      envelope,
    );
    await this.trialCredits.grant(organizationId, envelope);
  }

  /** Claims a once-only key for this organization; false when another organization holds it. */
  private async claim(stream: string, organizationId: string, envelope: CommandEnvelope): Promise<boolean> {
    const claimed = await this.writer.onceOnly({
      stream,
      type: 'TrialClaimed',
      data: { organizationId },
      eventKey: `claim:${organizationId}@${stream}`,
      metadata: withPayer(envelope, organizationId).metadata,
    });
    if (claimed.appended) return true;
    return (
      (claimed.holder?.data as { organizationId?: string } | undefined)?.organizationId === organizationId
    );
  }
}

@CommandHandler(RequestOrganizationPlan)
export class RequestOrganizationPlanHandler implements ICommandHandler<RequestOrganizationPlan> {
  constructor(
    @Inject(OrganizationGate) private readonly gate: OrganizationGate,
    @Inject(OrganizationStream) private readonly organizations: OrganizationStream,
  ) {}

  async execute({ principal, organizationId, plan, envelope }: RequestOrganizationPlan): Promise<void> {
    await this.gate.require(principal, organizationId);
    await this.organizations.decide(
      organizationId,
      principal.accountId,
      { type: 'RequestPlan', plan },
      envelope,
    );
  }
}

@CommandHandler(ApplyOperatorCommand)
export class ApplyOperatorCommandHandler implements ICommandHandler<ApplyOperatorCommand> {
  constructor(
    @Inject(OrganizationGate) private readonly gate: OrganizationGate,
    @Inject(OrganizationStream) private readonly organizations: OrganizationStream,
    @Inject(TrialCredits) private readonly trialCredits: TrialCredits,
  ) {}

  async execute({
    organizationId,
    command,
    envelope,
  }: ApplyOperatorCommand): Promise<{ changed: boolean; state: OrganizationState }> {
    const { state } = await this.gate.organization(organizationId);
    if (!state.exists) throw new ServiceError('not_found', 'no such organization');
    const result = await this.organizations.decide(organizationId, null, command, envelope);
    if (command.type === 'ApproveOrganization') await this.trialCredits.grant(organizationId, envelope);
    return { changed: result.events.length > 0, state: result.state };
  }
}

@CommandHandler(RequireTrialApproval)
export class RequireTrialApprovalHandler implements ICommandHandler<RequireTrialApproval> {
  constructor(@Inject(StreamWriter) private readonly writer: StreamWriter) {}

  async execute({ accountId, envelope }: RequireTrialApproval): Promise<{ flagged: boolean }> {
    const stream = approvalFlagStreamId(accountId);
    const flag = await this.writer.onceOnly({
      stream,
      type: 'TrialApprovalRequired',
      data: {},
      eventKey: `${envelope.commandId}@${stream}`,
      metadata: envelope.metadata,
    });
    return { flagged: flag.appended };
  }
}

export const organizationSettingsHandlers = [
  RenameOrganizationHandler,
  VerifyOrganizationDomainHandler,
  RequestOrganizationPlanHandler,
  ApplyOperatorCommandHandler,
  RequireTrialApprovalHandler,
];
