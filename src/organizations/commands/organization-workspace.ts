import { createHash, randomBytes, randomUUID } from 'node:crypto';
import {
  ORGANIZATION_CREATIONS,
  ORGANIZATION_EVIDENCE,
  ORGANIZATION_MEMBERS,
} from '../../../projections/organizations.projection.js';
import { accountDecider, accountStreamId } from '../../accounts/domain/account.js';
import { CreditLedger } from '../../credits/commands/credit-ledger.js';
import { ledgerDecider, ledgerStreamId, transferable } from '../../credits/domain/ledger.js';
import type { Principal } from '../../platform/auth/access.js';
import { SessionStore } from '../../platform/auth/sessions.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import {
  causedBy,
  commandEnvelope,
  type CommandEnvelope,
} from '../../platform/event-sourcing/command-metadata.js';
import { allOrNothing, type Decider, type DomainEvent } from '../../platform/event-sourcing/decider.js';
import { eventIdFor } from '../../platform/event-store/event-id.js';
import { WrongExpectedVersion } from '../../platform/event-store/event-store.port.js';
import type { ServiceContext } from '../../platform/service-context.js';
import type { TxtResolver } from '../dns-txt-resolver.js';
import { registrableDomain, requireBusinessDomain } from '../domain/business-domain.js';
import { caseDecider, caseStreamId, type RecordRef, type Visibility } from '../domain/case.js';
import {
  isRestricted,
  memberOf,
  organizationDecider,
  organizationStreamId,
  reachesSpace,
  requireOpen,
  type OrganizationCommand,
  type OrganizationState,
  type PaidOrganizationPlan,
  type StartMode,
} from '../domain/organization.js';
import { creationRefusal, type CreationRefusal } from '../domain/policies.js';
import {
  comparisonDecider,
  comparisonStreamId,
  completedSearchDecider,
  researchStreamId,
  reviewItemDecider,
  reviewItemStreamId,
  type EvidenceFacts,
} from '../domain/review.js';
import { isRole, isStaff, type Role } from '../domain/roles.js';
import { spaceDecider, spaceStreamId, type SpaceCommand, type SpaceKind } from '../domain/space.js';
import { staffSeatDecider, staffSeatStreamId, type FoldedOrganization } from '../domain/staff-seat.js';
import { ssoSignInUrl } from '../sso/domain/sso.js';
import { isId, OrganizationGate, type OrganizationAccess } from './organization-access.js';
import { WorkspaceSelections } from './workspace-selection.js';

const PROJECTIONS = ['organizations'];
/** How many times a staff change (or its seat claim) is decided again after another writer moved the stream. */
const STAFF_CHANGE_RETRIES = 5;
/** The /health/ready background check of start-up recovery of interrupted creations. */
export const RECOVERY_CHECK = 'organization_creation_recovery';

/** The intent record of a creation, one per owner account: `organization-owner-<accountId>`. */
const creationStreamId = (accountId: string): string => `organization-owner-${accountId}`;
const trialDomainClaimStreamId = (domain: string): string =>
  `trial-domain-${createHash('sha256').update(domain).digest('hex').slice(0, 32)}`;
const trialAccountClaimStreamId = (accountId: string): string => `trial-account-${accountId}`;
/** Operators flag accounts whose trial needs administrator approval (anti-abuse). */
export const approvalFlagStreamId = (accountId: string): string => `trial-approval-flag-${accountId}`;

interface CreationStarted {
  organizationId: string;
  transferId: string;
  credits: number;
  name: string;
  start: StartMode;
  domain: string | null;
  verificationToken: string;
  generalSpaceId: string;
}

/** A creation started and not finished: `id` is the owner account. */
export type InterruptedCreation = {
  readonly id: string;
  readonly organizationId?: string;
};

export interface CreationPreview {
  readonly allowed: boolean;
  readonly reason?: string;
  readonly reason_code?: CreationRefusal;
  readonly transfer_credits: number;
}

/**
 * The organization workspace's write side: every rule is in the deciders; this class loads, checks access,
 * runs the commands and waits for the read models the answer comes from.
 */
export class OrganizationWorkspace {
  readonly gate: OrganizationGate;
  readonly selections: WorkspaceSelections;

  constructor(
    private readonly context: ServiceContext,
    private readonly ledger: CreditLedger,
    private readonly dns: TxtResolver,
    private readonly sessions: SessionStore,
  ) {
    this.gate = new OrganizationGate(context);
    this.selections = new WorkspaceSelections(context.storage.readStore);
  }

  private now(): Date {
    return this.context.clock.now();
  }

  private async run<C, E extends DomainEvent, S, X>(
    streamId: string,
    decider: Decider<C, E, S, X>,
    command: C,
    context: X,
    envelope: CommandEnvelope,
    options: { expectedVersion?: number } = {},
  ) {
    const result = await this.context.repository.handle(
      streamId,
      decider,
      command,
      context,
      envelope,
      options,
    );
    await this.context.readYourWrites(PROJECTIONS, result.position);
    return result;
  }

  private organizationCommand(
    access: { organizationId: string },
    actorAccountId: string | null,
    command: OrganizationCommand,
    envelope: CommandEnvelope,
  ) {
    return this.run(
      organizationStreamId(access.organizationId),
      organizationDecider,
      command,
      { now: this.now(), actorAccountId },
      withPayer(envelope, access.organizationId),
    );
  }

  // ---- Creation (rule 6) ----

  /** Rule 6 for this caller: `organizationSession` is the organization its session is switched to, if any. */
  async creationPreview(
    accountId: string,
    organizationSession: string | null = null,
  ): Promise<CreationPreview> {
    await this.recoverCreation(accountId);
    const account = await this.context.repository.load(accountStreamId(accountId), accountDecider);
    if (!account.state.registered) throw new ServiceError('not_found', 'no such account');
    const payer = `account:${accountId}`;
    const [ledgerState, ledgerContext] = await Promise.all([
      this.ledger.state(payer),
      this.ledger.ledgerContext(payer),
    ]);
    const memberships = await this.memberships(accountId);
    const creation = await this.context.storage.eventStore.readStream(creationStreamId(accountId));
    const owns =
      creation.some((event) => event.type === 'OrganizationCreationStarted') && !abandoned(creation);
    const refusal = creationRefusal({
      personalPlan: account.state.plan,
      // No checkout runs in this service (contract: checkout "not shown"); purchases are recorded whole.
      personalPaymentProcessing: false,
      ownsOrganization: owns || memberships.some((m) => m.role === 'owner'),
      staffInOrganization: memberships.some((m) => isRole(m.role) && isStaff(m.role)),
      organizationSession: organizationSession !== null,
    });
    const transferCredits = transferable(ledgerState, ledgerContext);
    return refusal
      ? {
          allowed: false,
          reason: refusal.reason,
          reason_code: refusal.code,
          transfer_credits: transferCredits,
        }
      : { allowed: true, transfer_credits: transferCredits };
  }

  /**
   * The account transition runs as one resumable process: the intent (`OrganizationCreationStarted`, which also
   * makes the account an owner exactly once), the personal ledger's transfer out, the organization, its General
   * research space, the organization ledger's transfer in, then completion. Every step is idempotent by a
   * deterministic command id and the transfer id, so a crash anywhere is finished by `recoverCreation`: credits
   * are moved once or not at all.
   */
  async create(
    principal: Principal,
    body: { name: string; start: StartMode; domain: string | null; expectedTransfer: number },
    envelope: CommandEnvelope,
  ): Promise<string> {
    // Every refusal of rule 6 is decided here, before the creation process writes its first event.
    const preview = await this.creationPreview(principal.accountId, principal.organizationId ?? null);
    if (!preview.allowed) {
      throw new ServiceError('creation_unavailable', preview.reason ?? 'creation is unavailable', {
        reason: preview.reason_code,
      });
    }
    if (preview.transfer_credits !== body.expectedTransfer) {
      throw new ServiceError(
        'transfer_changed',
        'the transfer amount changed since the preview: preview again',
        {
          expected_transfer: body.expectedTransfer,
          transfer_credits: preview.transfer_credits,
        },
      );
    }
    const domain = body.start === 'trial' ? requireBusinessDomain(body.domain) : null;
    const started: CreationStarted = {
      organizationId: randomUUID(),
      transferId: randomUUID(),
      credits: preview.transfer_credits,
      name: body.name,
      start: body.start,
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
      { now: this.now(), actorAccountId: principal.accountId },
    );
    const stream = creationStreamId(principal.accountId);
    const version = await this.context.storage.eventStore.streamVersion(stream);
    try {
      await this.context.storage.eventStore.append(
        stream,
        [
          {
            id: eventIdFor(`${envelope.commandId}@${stream}`, 0),
            type: 'OrganizationCreationStarted',
            schemaVersion: 1,
            data: { ...started },
            metadata: withPayer(envelope, started.organizationId).metadata,
          },
        ],
        { expectedVersion: version === null ? 'no_stream' : version },
      );
    } catch (error) {
      if (error instanceof WrongExpectedVersion) {
        throw new ServiceError('creation_unavailable', 'this account already owns an organization', {
          reason: 'owns_organization',
        });
      }
      throw error;
    }
    await this.continueCreation(principal.accountId, started, envelope);
    return started.organizationId;
  }

  /** Finishes (or abandons, when nothing moved yet) an interrupted creation of this account. */
  async recoverCreation(accountId: string): Promise<void> {
    const events = await this.context.storage.eventStore.readStream(creationStreamId(accountId));
    const last = events.at(-1);
    if (!last || last.type !== 'OrganizationCreationStarted') return;
    const started = last.data as CreationStarted;
    const organization = await this.context.repository.load(
      organizationStreamId(started.organizationId),
      organizationDecider,
    );
    if (organization.state.transition?.completed) return;
    const envelope = commandEnvelope({
      actor: `system:organization-recovery`,
      payer: `organization:${started.organizationId}`,
      commandId: `recover:${started.transferId}`,
    });
    await this.continueCreation(accountId, started, envelope);
  }

  /**
   * Every interrupted creation, at start-up (the organization sweeper retries the unfinished ones, each under its
   * own failure record). One failure does not stop the others; each is logged and the outcome shown by
   * /health/ready.
   */
  async recoverAll(): Promise<{ pending: number; failed: number }> {
    let pending: InterruptedCreation[];
    try {
      pending = await this.interruptedCreations();
    } catch (error) {
      const message = 'interrupted organization creations could not be listed';
      this.context.log('error', message, { err: error });
      this.context.background.fail(RECOVERY_CHECK, `${message}: ${describe(error)}`, this.now());
      return { pending: 0, failed: 1 };
    }
    const failures: string[] = [];
    for (const creation of pending) {
      try {
        await this.recoverCreation(creation.id);
      } catch (error) {
        failures.push(creation.id);
        this.context.log('error', 'an interrupted organization creation could not be finished', {
          accountId: creation.id,
          organizationId: creation.organizationId,
          err: error,
        });
      }
    }
    this.reportRecovery(pending.length, failures);
    return { pending: pending.length, failed: failures.length };
  }

  /** Creations started and not finished, by owner account (`id`); throws when they cannot be listed. */
  interruptedCreations(): Promise<InterruptedCreation[]> {
    return this.context.projections
      .collection<InterruptedCreation & { status: string }>('organizations', ORGANIZATION_CREATIONS)
      .find({ status: 'started' });
  }

  /** Shows a recovery pass's outcome in /health/ready: the owner accounts whose creation is still unfinished. */
  reportRecovery(pending: number, unfinished: readonly string[]): void {
    if (unfinished.length === 0) {
      this.context.background.pass(RECOVERY_CHECK);
      return;
    }
    this.context.background.fail(
      RECOVERY_CHECK,
      `${unfinished.length} of ${pending} interrupted organization creations could not be finished ` +
        `(owner accounts ${unfinished.slice(0, 5).join(', ')}${unfinished.length > 5 ? ', …' : ''}); ` +
        'the organization sweeper retries them',
      this.now(),
    );
  }

  /** Whether the last recovery pass left a creation unfinished. */
  get recoveryFailing(): boolean {
    return this.context.background.get(RECOVERY_CHECK)?.ok === false;
  }

  private async continueCreation(
    accountId: string,
    started: CreationStarted,
    parent: CommandEnvelope,
  ): Promise<void> {
    const organizationId = started.organizationId;
    const step = (name: string) =>
      causedBy(parent, `${name}:${started.transferId}`, { payer: `organization:${organizationId}` });
    const organization = await this.context.repository.load(
      organizationStreamId(organizationId),
      organizationDecider,
    );
    if (!organization.state.exists && started.credits > 0) {
      const personal = `account:${accountId}`;
      try {
        await this.context.repository.handle(
          ledgerStreamId(personal),
          ledgerDecider,
          {
            type: 'TransferOut',
            transferId: started.transferId,
            credits: started.credits,
            to: `organization:${organizationId}`,
          },
          await this.ledger.ledgerContext(personal),
          { ...step('transition-out'), metadata: { ...step('transition-out').metadata, payer: personal } },
          { conflictRetries: 25 },
        );
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
    await this.context.repository
      .handle(
        organizationStreamId(organizationId),
        organizationDecider,
        {
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
        { now: this.now(), actorAccountId: accountId },
        step('organization-create'),
      )
      .catch(ignoreAlreadyExists);
    await this.context.repository
      .handle(
        spaceStreamId(started.generalSpaceId),
        spaceDecider,
        {
          type: 'CreateSpace',
          spaceId: started.generalSpaceId,
          organizationId,
          kind: 'general',
          name: 'General research',
          creditLimit: null,
          monitoring: false,
        },
        { now: this.now() },
        step('general-space'),
      )
      .catch(ignoreAlreadyExists);
    if (started.credits > 0) {
      const payer = `organization:${organizationId}`;
      await this.context.repository.handle(
        ledgerStreamId(payer),
        ledgerDecider,
        {
          type: 'TransferIn',
          transferId: started.transferId,
          credits: started.credits,
          from: `account:${accountId}`,
        },
        await this.ledger.ledgerContext(payer),
        step('transition-in'),
        { conflictRetries: 25 },
      );
    }
    const done = await this.context.repository.handle(
      organizationStreamId(organizationId),
      organizationDecider,
      { type: 'CompleteAccountTransition', transferId: started.transferId },
      { now: this.now(), actorAccountId: null },
      step('transition-complete'),
    );
    await this.context.readYourWrites([...PROJECTIONS, 'credit-state'], done.position);
  }

  private async abandon(accountId: string, started: CreationStarted, parent: CommandEnvelope): Promise<void> {
    const stream = creationStreamId(accountId);
    const version = await this.context.storage.eventStore.streamVersion(stream);
    await this.context.storage.eventStore.append(
      stream,
      [
        {
          id: eventIdFor(`abandon:${started.transferId}@${stream}`, 0),
          type: 'OrganizationCreationAbandoned',
          schemaVersion: 1,
          data: { organizationId: started.organizationId, transferId: started.transferId },
          metadata: parent.metadata,
        },
      ],
      { expectedVersion: version ?? 'no_stream' },
    );
  }

  private async memberships(accountId: string): Promise<Array<{ organizationId: string; role: string }>> {
    return this.context.projections
      .collection<{ id: string; organizationId: string; role: string }>('organizations', ORGANIZATION_MEMBERS)
      .find({ accountId });
  }

  /** Whether an account belongs to an organization (or is becoming the owner of one). */
  async belongsToOrganization(accountId: string): Promise<boolean> {
    // Read together: this runs in front of every personal search.
    const [memberships, creation] = await Promise.all([
      this.memberships(accountId),
      this.context.storage.eventStore.readStream(creationStreamId(accountId)),
    ]);
    if (memberships.length > 0) return true;
    return creation.length > 0 && !abandoned(creation);
  }

  // ---- Trial and billing (rules 5, 14) ----

  async verifyDomain(principal: Principal, organizationId: string, envelope: CommandEnvelope): Promise<void> {
    const access = await this.gate.require(principal, organizationId, { capability: 'billing.manage' });
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
      { now: this.now(), actorAccountId: principal.accountId },
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
    const approvalRequired =
      (await this.context.storage.eventStore.streamVersion(approvalFlagStreamId(owner))) !== null;
    await this.organizationCommand(
      access,
      principal.accountId,
      probe({ domainAlreadyUsedForTrial, accountAlreadyHadTrial, approvalRequired }),
      envelope,
    );
    await this.grantTrialCredits(organizationId, envelope);
  }

  /** Claims a once-only key for this organization; false when another organization holds it. */
  private async claim(streamId: string, organizationId: string, envelope: CommandEnvelope): Promise<boolean> {
    try {
      await this.context.storage.eventStore.append(
        streamId,
        [
          {
            id: eventIdFor(`claim:${organizationId}@${streamId}`, 0),
            type: 'TrialClaimed',
            schemaVersion: 1,
            data: { organizationId },
            metadata: withPayer(envelope, organizationId).metadata,
          },
        ],
        { expectedVersion: 'no_stream' },
      );
      return true;
    } catch (error) {
      if (!(error instanceof WrongExpectedVersion)) throw error;
      const [first] = await this.context.storage.eventStore.readStream(streamId);
      return (first?.data as { organizationId?: string } | undefined)?.organizationId === organizationId;
    }
  }

  /** The trial's 1,000 shared credits, once per organization (idempotent by the transfer id). */
  async grantTrialCredits(organizationId: string, parent: CommandEnvelope): Promise<void> {
    const { state } = await this.gate.organization(organizationId);
    if (!state.trial) return;
    const payer = `organization:${organizationId}`;
    const result = await this.context.repository.handle(
      ledgerStreamId(payer),
      ledgerDecider,
      { type: 'TransferIn', transferId: `trial:${organizationId}`, credits: 1_000, from: 'trial' },
      await this.ledger.ledgerContext(payer),
      causedBy(parent, `trial-credits:${organizationId}`, { payer }),
      { conflictRetries: 25 },
    );
    await this.context.readYourWrites(['credit-state'], result.position);
  }

  async requestPlan(
    principal: Principal,
    organizationId: string,
    plan: PaidOrganizationPlan,
    envelope: CommandEnvelope,
  ) {
    const access = await this.gate.require(principal, organizationId, { capability: 'billing.manage' });
    await this.organizationCommand(access, principal.accountId, { type: 'RequestPlan', plan }, envelope);
  }

  /** Operator and billing-system actions (approval, checkout completed, deactivation, trial end). */
  async operator(
    organizationId: string,
    command: OrganizationCommand,
    envelope: CommandEnvelope,
  ): Promise<{ changed: boolean; state: OrganizationState }> {
    const { state } = await this.gate.organization(organizationId);
    if (!state.exists) throw new ServiceError('not_found', 'no such organization');
    const result = await this.organizationCommand({ organizationId }, null, command, envelope);
    if (command.type === 'ApproveOrganization') await this.grantTrialCredits(organizationId, envelope);
    return { changed: result.events.length > 0, state: result.state };
  }

  /** Operators flag an account whose trial needs administrator approval (anti-abuse); false when already. */
  async requireTrialApproval(accountId: string, envelope: CommandEnvelope): Promise<boolean> {
    try {
      await this.context.storage.eventStore.append(
        approvalFlagStreamId(accountId),
        [
          {
            id: eventIdFor(`${envelope.commandId}@${approvalFlagStreamId(accountId)}`, 0),
            type: 'TrialApprovalRequired',
            schemaVersion: 1,
            data: {},
            metadata: envelope.metadata,
          },
        ],
        { expectedVersion: 'no_stream' },
      );
      return true;
    } catch (error) {
      if (error instanceof WrongExpectedVersion) return false;
      throw error;
    }
  }

  async rename(principal: Principal, organizationId: string, name: string, envelope: CommandEnvelope) {
    const access = await this.gate.require(principal, organizationId, {
      capability: 'organization.settings',
    });
    await this.organizationCommand(
      access,
      principal.accountId,
      { type: 'RenameOrganization', name },
      envelope,
    );
  }

  // ---- Members (Roles, Authentication 7–8, rule 12) ----

  async invite(
    principal: Principal,
    organizationId: string,
    body: { email: string; role: Role; spaces: string[]; portion: number | null },
    envelope: CommandEnvelope,
  ): Promise<string> {
    const access = await this.gate.require(principal, organizationId, {
      capability: 'members.manage',
      open: true,
    });
    for (const spaceId of body.spaces) await this.gate.space(access, spaceId);
    const invitationId = randomUUID();
    await this.organizationCommand(
      access,
      principal.accountId,
      { type: 'InviteMember', invitationId, ...body },
      envelope,
    );
    return invitationId;
  }

  /** The invitee (not a member yet) accepts with the account whose email was invited. */
  async acceptInvitation(
    principal: Principal,
    organizationId: string,
    invitationId: string,
    envelope: CommandEnvelope,
  ) {
    if (principal.via !== 'session') throw new ServiceError('not_found', 'no such invitation');
    if (principal.organizationId && principal.organizationId !== organizationId) {
      throw new ServiceError('not_found', 'no such invitation');
    }
    const { state } = await this.gate.organization(organizationId);
    const account = await this.context.repository.load(accountStreamId(principal.accountId), accountDecider);
    if (!state.exists || !account.state.registered || !Object.hasOwn(state.invitations, invitationId)) {
      throw new ServiceError('not_found', 'no such invitation');
    }
    if (state.invitations[invitationId]!.email !== account.state.email)
      throw new ServiceError('not_found', 'no such invitation');
    const role = state.invitations[invitationId]!.role;
    const accept: OrganizationCommand = {
      type: 'AcceptInvitation',
      invitationId,
      accountId: principal.accountId,
      email: account.state.email,
    };
    if (isStaff(role)) {
      await this.becomeStaff(principal.accountId, organizationId, [accept], principal.accountId, envelope);
    } else {
      await this.organizationCommand({ organizationId }, principal.accountId, accept, envelope);
    }
    // Rule 12: the membership is recorded, but staff of an organization enforcing SSO enter it through its
    // provider, not with the password session that accepted.
    const refusal =
      principal.organizationId === organizationId
        ? null
        : await this.gate.ssoEntryRefusal(organizationId, role);
    return { ssoSignInUrl: refusal ? ssoSignInUrl(organizationId) : null };
  }

  async updateMember(
    principal: Principal,
    organizationId: string,
    accountId: string,
    body: { role?: Role; portion?: number | null },
    envelope: CommandEnvelope,
  ) {
    const access = await this.gate.require(principal, organizationId, {
      capability: 'members.manage',
      open: true,
    });
    requireMemberId(access.state, accountId);
    const commands: OrganizationCommand[] = [
      ...(body.role !== undefined ? [{ type: 'ChangeRole' as const, accountId, role: body.role }] : []),
      ...(body.portion !== undefined
        ? [{ type: 'SetPortion' as const, accountId, portion: body.portion }]
        : []),
    ];
    const before = access.state.members[accountId]!.role;
    const becomesStaff =
      body.role !== undefined && !isStaff(before) && isRole(body.role) && isStaff(body.role);
    if (becomesStaff) {
      await this.becomeStaff(accountId, organizationId, commands, principal.accountId, envelope);
    } else {
      // All-or-nothing: a refused portion leaves no changed role behind.
      await this.run(
        organizationStreamId(organizationId),
        allOrNothing(organizationDecider),
        commands,
        { now: this.now(), actorAccountId: principal.accountId },
        withPayer(envelope, organizationId),
      );
    }
    // An external client made staff under SSO enforcement signs in again, through the provider (rule 12).
    if (
      body.role !== undefined &&
      !isStaff(before) &&
      (await this.gate.ssoEntryRefusal(organizationId, body.role))
    ) {
      await this.sessions.revokeAllFor(accountId, { organizationId });
    }
  }

  async removeMember(
    principal: Principal,
    organizationId: string,
    accountId: string,
    envelope: CommandEnvelope,
  ) {
    const access = await this.gate.require(principal, organizationId, {
      capability: 'members.manage',
      open: true,
    });
    requireMemberId(access.state, accountId);
    await this.organizationCommand(
      access,
      principal.accountId,
      { type: 'RemoveMember', accountId },
      envelope,
    );
    // Removal revokes access at once: the gate folds the stream. The member's sessions switched to this
    // organization end too; sessions in another organization (an external client's access there) are untouched.
    await this.sessions.revokeAllFor(accountId, { organizationId });
  }

  /**
   * Makes an account staff of the organization with `commands` (an acceptance, a promotion), all-or-nothing.
   * An account is staff of at most one organization at a time, so the change goes in three steps: it is decided on
   * the organization's stream as folded at version v (a refusal writes nothing, the seat included); the staff
   * seat is claimed for this organization at v (409 `staff_of_another_organization` while another organization
   * holds it); the change is appended at exactly v. While the organization's stream has not moved past v, the
   * claim holds the seat, so a change racing in another organization is refused rather than taking it over. A
   * failure after the claim releases it. A change that lost v to another writer of the organization is decided
   * again on a fresh fold, with a new claim (as the repository retries a conflict the client did not cause).
   */
  private async becomeStaff(
    accountId: string,
    organizationId: string,
    commands: readonly OrganizationCommand[],
    actorAccountId: string | null,
    envelope: CommandEnvelope,
  ): Promise<void> {
    const decider = allOrNothing(organizationDecider);
    for (let attempt = 0; ; attempt++) {
      const { state, version } = await this.gate.organization(organizationId);
      const context = { now: this.now(), actorAccountId };
      decider.decide(commands, state, context);
      const organizationVersion = version ?? -1;
      await this.takeStaffSeat(accountId, organizationId, organizationVersion, envelope);
      try {
        await this.run(
          organizationStreamId(organizationId),
          decider,
          commands,
          context,
          withPayer(envelope, organizationId),
          { expectedVersion: organizationVersion },
        );
        return;
      } catch (error) {
        if (error instanceof WrongExpectedVersion && attempt < STAFF_CHANGE_RETRIES) {
          // The next claim (at the new version) replaces this one.
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 2 ** (attempt + 2)));
          continue;
        }
        await this.releaseStaffSeat(accountId, organizationId, organizationVersion, envelope);
        throw error;
      }
    }
  }

  /**
   * Claims the staff seat for a change decided at `organizationVersion` of this organization. The organizations
   * that might hold the account as staff (its memberships, the seat's holder, an organization it is creating) are
   * folded, and the seat decides on exactly the seat version those facts were gathered against; when another
   * change took or released the seat meanwhile, the facts are gathered again. The refusal goes to the invitee
   * only: the inviting organization learns nothing about other organizations.
   */
  private async takeStaffSeat(
    accountId: string,
    organizationId: string,
    organizationVersion: number,
    envelope: CommandEnvelope,
  ): Promise<void> {
    const seat = staffSeatStreamId(accountId);
    for (let attempt = 0; ; attempt++) {
      const [memberships, loaded, creation] = await Promise.all([
        this.memberships(accountId),
        this.context.repository.load(seat, staffSeatDecider),
        this.context.storage.eventStore.readStream(creationStreamId(accountId)),
      ]);
      const creating = abandoned(creation)
        ? undefined
        : (creation.at(-1)?.data as { organizationId?: string } | undefined)?.organizationId;
      const candidates = new Set(
        [...memberships.map((m) => m.organizationId), loaded.state.holder, creating].filter(
          (id): id is string => typeof id === 'string' && id !== organizationId,
        ),
      );
      const checked: FoldedOrganization[] = [];
      for (const candidate of candidates) {
        const { state, version } = await this.gate.organization(candidate);
        const member = memberOf(state, accountId);
        // An organization the account started creating makes it its owner once the creation finishes.
        const staff =
          (member !== undefined && isStaff(member.role)) || (candidate === creating && !state.exists);
        checked.push({ organizationId: candidate, version, staff });
      }
      try {
        await this.context.repository.handle(
          seat,
          staffSeatDecider,
          { type: 'TakeStaffSeat', organizationId, organizationVersion, checked },
          { now: this.now() },
          withPayer(envelope, organizationId, undefined, `staff-seat@${organizationVersion}`),
          { expectedVersion: loaded.version ?? -1 },
        );
        return;
      } catch (error) {
        if (error instanceof WrongExpectedVersion && attempt < STAFF_CHANGE_RETRIES) continue;
        throw error;
      }
    }
  }

  /** Releases the claim a failed change took (if it still holds the seat); a failure here is only logged. */
  private async releaseStaffSeat(
    accountId: string,
    organizationId: string,
    organizationVersion: number,
    envelope: CommandEnvelope,
  ): Promise<void> {
    try {
      await this.context.repository.handle(
        staffSeatStreamId(accountId),
        staffSeatDecider,
        { type: 'ReleaseStaffSeat', organizationId, organizationVersion },
        { now: this.now() },
        withPayer(envelope, organizationId, undefined, `staff-seat-release@${organizationVersion}`),
      );
    } catch (error) {
      // The claim then holds the seat until the organization's stream moves past its version.
      this.context.log('warn', 'a staff seat claim could not be released', {
        accountId,
        organizationId,
        err: error,
      });
    }
  }

  async assignSpace(
    principal: Principal,
    organizationId: string,
    accountId: string,
    spaceId: string,
    assigned: boolean,
    envelope: CommandEnvelope,
  ) {
    const access = await this.gate.require(principal, organizationId, {
      capability: 'members.manage',
      open: true,
    });
    requireMemberId(access.state, accountId);
    await this.gate.space(access, spaceId);
    await this.organizationCommand(
      access,
      principal.accountId,
      assigned ? { type: 'AssignSpace', accountId, spaceId } : { type: 'UnassignSpace', accountId, spaceId },
      envelope,
    );
  }

  async offerOwnership(
    principal: Principal,
    organizationId: string,
    toAccountId: string,
    envelope: CommandEnvelope,
  ) {
    const access = await this.gate.require(principal, organizationId, {
      capability: 'ownership.transfer',
      open: true,
    });
    requireMemberId(access.state, toAccountId);
    await this.organizationCommand(
      access,
      principal.accountId,
      { type: 'OfferOwnership', toAccountId },
      envelope,
    );
  }

  async answerOwnership(
    principal: Principal,
    organizationId: string,
    accept: boolean,
    envelope: CommandEnvelope,
  ) {
    const access = await this.gate.require(principal, organizationId);
    await this.organizationCommand(
      access,
      principal.accountId,
      accept ? { type: 'AcceptOwnership' } : { type: 'DeclineOwnership' },
      envelope,
    );
  }

  // ---- Session context (rules 1, 2) ----

  /** Restricts the session to the organization; staff start in General research, external clients choose. */
  async switchTo(principal: Principal, organizationId: string) {
    // The gate refuses a password session of staff entering an organization that enforces SSO (rule 12).
    const access = await this.gate.require(principal, organizationId);
    if (!principal.sessionId) throw new ServiceError('unauthenticated', 'a browser session is needed');
    return this.enter(principal.sessionId, access);
  }

  /** Switches a session into the organization: staff start in General research, external clients choose. */
  async enter(sessionId: string, access: OrganizationAccess) {
    await this.sessions.switchOrganization(sessionId, access.organizationId);
    const spaceId = isStaff(access.member.role) ? access.state.generalSpaceId : null;
    return this.selections.set(sessionId, access.organizationId, { spaceId, caseId: null });
  }

  async select(
    principal: Principal,
    organizationId: string,
    body: { spaceId: string; caseId: string | null },
  ) {
    const access = await this.gate.require(principal, organizationId);
    if (!principal.sessionId || principal.organizationId !== organizationId) {
      throw new ServiceError('invalid_input', 'switch the session to this organization first', {
        fields: [{ field: 'session', problems: ['switch to the organization first'] }],
      });
    }
    const space = await this.gate.space(access, body.spaceId);
    if (space.state.state !== 'active')
      throw new ServiceError('forbidden', 'the space is archived: restore it first');
    let caseId: string | null = null;
    if (body.caseId) {
      if (!isId(body.caseId)) throw new ServiceError('not_found', 'no such case');
      const found = await this.context.repository.load(caseStreamId(body.caseId), caseDecider);
      if (
        !found.state.exists ||
        found.state.organizationId !== organizationId ||
        found.state.spaceId !== body.spaceId
      ) {
        throw new ServiceError('not_found', 'no such case in this space');
      }
      caseId = body.caseId;
    }
    const current = await this.selections.get(principal.sessionId, organizationId);
    // Changing space clears the selected case (rule 4) unless the same request picks one in the new space.
    const keepCase = current?.spaceId === body.spaceId && caseId === null ? current.caseId : caseId;
    return this.selections.set(principal.sessionId, organizationId, {
      spaceId: body.spaceId,
      caseId: keepCase,
    });
  }

  // ---- Spaces (rules 8, 13) ----

  async createSpace(
    principal: Principal,
    organizationId: string,
    body: { name: string; kind: SpaceKind; creditLimit: number | null; monitoring: boolean },
    envelope: CommandEnvelope,
  ): Promise<string> {
    const access = await this.gate.require(principal, organizationId, {
      capability: 'spaces.manage',
      open: true,
    });
    if (body.kind === 'general')
      throw new ServiceError('invalid_input', 'kind must be client or asset_scope');
    const spaceId = randomUUID();
    await this.run(
      spaceStreamId(spaceId),
      spaceDecider,
      { type: 'CreateSpace', spaceId, organizationId: access.organizationId, ...body },
      { now: this.now() },
      withPayer(envelope, organizationId, spaceId),
    );
    return spaceId;
  }

  async spaceCommand(
    principal: Principal,
    organizationId: string,
    spaceId: string,
    command: SpaceCommand,
    envelope: CommandEnvelope,
    expectedVersion?: number,
  ): Promise<void> {
    const access = await this.gate.require(principal, organizationId, {
      capability: 'spaces.manage',
      open: true,
    });
    const space = await this.gate.space(access, spaceId);
    if (expectedVersion !== undefined && expectedVersion !== (space.version ?? -1)) {
      throw new ServiceError('version_conflict', 'the space changed since you read it: refetch and retry', {
        current_version: space.version,
      });
    }
    await this.run(
      spaceStreamId(spaceId),
      spaceDecider,
      command,
      { now: this.now() },
      withPayer(envelope, organizationId, spaceId, command.type),
      expectedVersion !== undefined ? { expectedVersion } : {},
    );
  }

  // ---- Cases and evidence (rules 3, 4) ----

  async openCase(
    principal: Principal,
    organizationId: string,
    body: { spaceId: string; title: string },
    envelope: CommandEnvelope,
  ) {
    const access = await this.gate.require(principal, organizationId, {
      capability: 'work.internal',
      open: true,
    });
    const space = await this.gate.space(access, body.spaceId);
    const caseId = randomUUID();
    await this.run(
      caseStreamId(caseId),
      caseDecider,
      {
        type: 'OpenCase',
        caseId,
        organizationId,
        spaceId: body.spaceId,
        spaceKind: space.state.kind,
        spaceArchived: space.state.state !== 'active',
        title: body.title,
        openedBy: principal.accountId,
      },
      { now: this.now() },
      withPayer(envelope, organizationId, body.spaceId),
    );
    return caseId;
  }

  async archiveCase(principal: Principal, organizationId: string, caseId: string, envelope: CommandEnvelope) {
    const access = await this.gate.require(principal, organizationId, {
      capability: 'work.internal',
      open: true,
    });
    const found = await this.caseOf(access, caseId);
    await this.run(
      caseStreamId(caseId),
      caseDecider,
      { type: 'ArchiveCase' },
      { now: this.now() },
      withPayer(envelope, organizationId, found.spaceId!),
    );
  }

  async caseOf(access: OrganizationAccess, caseId: string) {
    if (!isId(caseId)) throw new ServiceError('not_found', 'no such case');
    const found = await this.context.repository.load(caseStreamId(caseId), caseDecider);
    if (!found.state.exists || found.state.organizationId !== access.organizationId) {
      throw new ServiceError('not_found', 'no such case');
    }
    if (!reachesSpace(access.state, access.accountId, found.state.spaceId!))
      throw new ServiceError('not_found', 'no such case');
    return found.state;
  }

  /** Saves records of a completed search into the session's selected case; runs no search, creates no case. */
  async saveEvidence(
    principal: Principal,
    organizationId: string,
    body: { searchId: string; records: RecordRef[]; note: string; visibility: Visibility | undefined },
    envelope: CommandEnvelope,
  ): Promise<{ evidenceId: string; caseId: string }> {
    const access = await this.gate.require(principal, organizationId, { open: true });
    const selection = principal.sessionId
      ? await this.selections.get(principal.sessionId, organizationId)
      : null;
    if (!selection?.caseId) {
      throw new ServiceError(
        'case_required',
        'select an existing case of the current space before saving evidence',
      );
    }
    const caseState = await this.context.repository.load(caseStreamId(selection.caseId), caseDecider);
    if (
      caseState.state.exists &&
      (!reachesSpace(access.state, access.accountId, caseState.state.spaceId!) ||
        caseState.state.organizationId !== organizationId)
    ) {
      throw new ServiceError(
        'case_unavailable',
        'the selected case is no longer available: select another case',
      );
    }
    if (caseState.state.exists) {
      const space = await this.context.repository.load(spaceStreamId(caseState.state.spaceId!), spaceDecider);
      if (space.state.state !== 'active') {
        throw new ServiceError(
          'case_unavailable',
          "the selected case's space is archived: select another case",
        );
      }
    }
    const search = await this.completedSearch(access, body.searchId);
    const spaceKind = (await this.context.repository.load(spaceStreamId(search.spaceId), spaceDecider)).state
      .kind;
    const evidenceId = randomUUID();
    await this.run(
      caseStreamId(selection.caseId),
      caseDecider,
      {
        type: 'SaveEvidence',
        evidenceId,
        search: {
          searchId: body.searchId,
          organizationId: search.organizationId,
          spaceId: search.spaceId,
          spaceKind,
          records: Object.fromEntries(search.records.map((r) => [`${r.dataset}:${r.id}`, r.source])),
        },
        records: body.records,
        note: body.note,
        visibility: body.visibility,
        savedBy: principal.accountId,
        savedByStaff: isStaff(access.member.role),
      },
      { now: this.now() },
      withPayer(envelope, organizationId, search.spaceId),
    );
    return { evidenceId, caseId: selection.caseId };
  }

  private async completedSearch(access: OrganizationAccess, searchId: string) {
    if (!isId(searchId)) throw new ServiceError('not_found', 'no such search');
    const { state } = await this.context.repository.load(researchStreamId(searchId), completedSearchDecider);
    if (!state.data || state.data.organizationId !== access.organizationId)
      throw new ServiceError('not_found', 'no such search');
    if (!reachesSpace(access.state, access.accountId, state.data.spaceId))
      throw new ServiceError('not_found', 'no such search');
    return state.data;
  }

  // ---- Review queue and comparisons (rule 11) ----

  async addReviewItem(
    principal: Principal,
    organizationId: string,
    body: { searchId: string; record: RecordRef },
    envelope: CommandEnvelope,
  ): Promise<string> {
    const access = await this.gate.require(principal, organizationId, {
      capability: 'work.internal',
      open: true,
    });
    const search = await this.completedSearch(access, body.searchId);
    const record = search.records.find((r) => r.dataset === body.record?.dataset && r.id === body.record?.id);
    if (!record) throw new ServiceError('invalid_input', 'record is not a record of this search');
    const itemId = randomUUID();
    await this.run(
      reviewItemStreamId(itemId),
      reviewItemDecider,
      {
        type: 'AddReviewItem',
        itemId,
        organizationId,
        spaceId: search.spaceId,
        searchId: body.searchId,
        record,
        addedBy: principal.accountId,
      },
      { now: this.now() },
      withPayer(envelope, organizationId, search.spaceId),
    );
    return itemId;
  }

  async updateReviewItem(
    principal: Principal,
    organizationId: string,
    itemId: string,
    body: {
      assignee?: string | null;
      dueDate?: string | null;
      source?: { caseId: string; evidenceId: string } | null;
    },
    envelope: CommandEnvelope,
  ) {
    const access = await this.gate.require(principal, organizationId, {
      capability: 'work.internal',
      open: true,
    });
    if (!isId(itemId)) throw new ServiceError('not_found', 'no such review item');
    const item = await this.context.repository.load(reviewItemStreamId(itemId), reviewItemDecider);
    if (
      !item.state.exists ||
      item.state.organizationId !== organizationId ||
      !reachesSpace(access.state, access.accountId, item.state.spaceId!)
    ) {
      throw new ServiceError('not_found', 'no such review item');
    }
    const spaceId = item.state.spaceId!;
    const assigneeMember =
      typeof body.assignee === 'string' ? memberOf(access.state, body.assignee) : undefined;
    const assigneeReachesSpace =
      assigneeMember !== undefined &&
      isStaff(assigneeMember.role) &&
      reachesSpace(access.state, body.assignee!, spaceId);
    let sourceInSpace = false;
    if (body.source) {
      const evidence = await this.context.projections
        .collection<{ id: string; caseId: string; spaceId: string; organizationId: string }>(
          'organizations',
          ORGANIZATION_EVIDENCE,
        )
        .get(String(body.source.evidenceId));
      sourceInSpace =
        evidence !== null &&
        evidence.organizationId === organizationId &&
        evidence.caseId === body.source.caseId &&
        evidence.spaceId === spaceId;
    }
    await this.run(
      reviewItemStreamId(itemId),
      reviewItemDecider,
      { type: 'UpdateReviewItem', ...body, assigneeReachesSpace, sourceInSpace },
      { now: this.now() },
      withPayer(envelope, organizationId, spaceId),
    );
  }

  async prepareComparison(
    principal: Principal,
    organizationId: string,
    body: { spaceId: string; title: string; evidenceIds: string[] },
    envelope: CommandEnvelope,
  ): Promise<string> {
    const access = await this.gate.require(principal, organizationId, {
      capability: 'work.internal',
      open: true,
    });
    await this.gate.space(access, body.spaceId);
    const ids = [...new Set(body.evidenceIds)];
    const found = await this.context.projections
      .collection<EvidenceFacts & { id: string; organizationId: string; [field: string]: unknown }>(
        'organizations',
        ORGANIZATION_EVIDENCE,
      )
      .getMany(ids.filter(isId));
    const byId = new Map(found.filter((e) => e.organizationId === organizationId).map((e) => [e.id, e]));
    const missing = ids.filter((id) => !byId.has(id));
    if (missing.length > 0)
      throw new ServiceError('invalid_input', `unknown evidence: ${missing.join(', ')}`);
    const comparisonId = randomUUID();
    await this.run(
      comparisonStreamId(comparisonId),
      comparisonDecider,
      {
        type: 'PrepareComparison',
        comparisonId,
        organizationId,
        spaceId: body.spaceId,
        title: body.title,
        evidence: ids.map((id) => byId.get(id)!),
        preparedBy: principal.accountId,
      },
      { now: this.now() },
      withPayer(envelope, organizationId, body.spaceId),
    );
    return comparisonId;
  }

  async publishComparison(
    principal: Principal,
    organizationId: string,
    comparisonId: string,
    envelope: CommandEnvelope,
  ) {
    const access = await this.gate.require(principal, organizationId, {
      capability: 'work.internal',
      open: true,
    });
    const found = await this.comparisonSpace(access, comparisonId);
    await this.run(
      comparisonStreamId(comparisonId),
      comparisonDecider,
      { type: 'PublishComparison' },
      { now: this.now() },
      withPayer(envelope, organizationId, found),
    );
  }

  async comparisonSpace(access: OrganizationAccess, comparisonId: string): Promise<string> {
    if (!isId(comparisonId)) throw new ServiceError('not_found', 'no such comparison');
    const events = await this.context.storage.eventStore.readStream(comparisonStreamId(comparisonId));
    const prepared = events[0]?.data as { organizationId?: string; spaceId?: string } | undefined;
    if (
      !prepared ||
      prepared.organizationId !== access.organizationId ||
      !reachesSpace(access.state, access.accountId, prepared.spaceId!)
    ) {
      throw new ServiceError('not_found', 'no such comparison');
    }
    return prepared.spaceId!;
  }

  // ---- Research in the organization context (rules 1, 2, 7, 8) ----

  async recordSearch(
    organizationId: string,
    spaceId: string,
    accountId: string,
    search: {
      rawQuery: string;
      timeFrame: string;
      creditsCharged: number;
      records: Array<{ dataset: string; id: string; source: Record<string, unknown> }>;
    },
    envelope: CommandEnvelope,
  ): Promise<string> {
    const searchId = randomUUID();
    await this.context.repository.handle(
      researchStreamId(searchId),
      completedSearchDecider,
      { type: 'RecordCompletedSearch', data: { searchId, organizationId, spaceId, accountId, ...search } },
      { now: this.now() },
      causedBy(envelope, `search-record:${searchId}`, {
        payer: `organization:${organizationId}`,
        scope: spaceId,
      }),
    );
    return searchId;
  }

  restricted(state: OrganizationState): boolean {
    return isRestricted(state);
  }

  requireOpen(state: OrganizationState): void {
    requireOpen(state);
  }
}

function withPayer(
  envelope: CommandEnvelope,
  organizationId: string,
  scope?: string,
  suffix?: string,
): CommandEnvelope {
  return {
    commandId: suffix ? `${envelope.commandId}:${suffix}` : envelope.commandId,
    metadata: {
      ...envelope.metadata,
      payer: `organization:${organizationId}`,
      ...(scope ? { scope } : {}),
    },
  };
}

function requireMemberId(state: OrganizationState, accountId: string): void {
  if (!isId(accountId) || !memberOf(state, accountId)) throw new ServiceError('not_found', 'no such member');
}

function abandoned(events: ReadonlyArray<{ type: string }>): boolean {
  return events.at(-1)?.type === 'OrganizationCreationAbandoned';
}

function ignoreAlreadyExists(error: unknown): void {
  if (error instanceof ServiceError && error.code === 'already_exists') return;
  throw error;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
