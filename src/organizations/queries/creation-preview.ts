import { Inject, Injectable } from '@nestjs/common';
import { ORGANIZATION_MEMBERS } from '../../../projections/organizations.projection.js';
import { accountDecider, accountStreamId } from '../../accounts/domain/account.js';
import { CreditLedger } from '../../credits/commands/credit-ledger.js';
import { transferable } from '../../credits/domain/ledger.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import { StreamReader } from '../../platform/event-sourcing/stream-reader.js';
import { EVENT_STORE, type EventStore } from '../../platform/event-store/event-store.port.js';
import { ProjectionRunner } from '../../platform/projections/projection-runner.js';
import { abandoned, creationStreamId } from '../commands/organization-writes.js';
import { creationRefusal, type CreationRefusal } from '../domain/policies.js';
import { isRole, isStaff } from '../domain/roles.js';

export interface CreationPreview {
  readonly allowed: boolean;
  readonly reason?: string;
  readonly reason_code?: CreationRefusal;
  readonly transfer_credits: number;
}

/**
 * Rule 6 as a read: whether an account may create an organization and the credits that would move. Reading
 * never finishes an interrupted creation (a GET never writes): an account with one is becoming an owner.
 */
@Injectable()
export class CreationPreviews {
  constructor(
    @Inject(StreamReader) private readonly streams: StreamReader,
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(ProjectionRunner) private readonly projections: ProjectionRunner,
    @Inject(CreditLedger) private readonly ledger: CreditLedger,
  ) {}

  /** Rule 6 for this caller: `organizationSession` is the organization its session is switched to, if any. */
  async preview(accountId: string, organizationSession: string | null = null): Promise<CreationPreview> {
    const account = await this.streams.load(accountStreamId(accountId), accountDecider);
    if (!account.state.registered) throw new ServiceError('not_found', 'no such account');
    const payer = `account:${accountId}`;
    const [ledgerState, ledgerContext] = await Promise.all([
      this.ledger.state(payer),
      this.ledger.ledgerContext(payer),
    ]);
    const memberships = await this.memberships(accountId);
    const creation = await this.eventStore.readStream(creationStreamId(accountId));
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

  /** Whether an account belongs to an organization (or is becoming the owner of one). */
  async belongsToOrganization(accountId: string): Promise<boolean> {
    // Read together: this runs in front of every personal search.
    const [memberships, creation] = await Promise.all([
      this.memberships(accountId),
      this.eventStore.readStream(creationStreamId(accountId)),
    ]);
    if (memberships.length > 0) return true;
    return creation.length > 0 && !abandoned(creation);
  }

  memberships(accountId: string): Promise<Array<{ organizationId: string; role: string }>> {
    return this.projections
      .collection<{ id: string; organizationId: string; role: string }>('organizations', ORGANIZATION_MEMBERS)
      .find({ accountId });
  }
}
