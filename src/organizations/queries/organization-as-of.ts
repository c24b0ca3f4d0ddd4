import { Inject, Injectable } from '@nestjs/common';
import {
  ORGANIZATION_SPACES,
  organizationsProjection,
} from '../../../projections/organizations.projection.js';
import { StreamReader } from '../../platform/event-sourcing/stream-reader.js';
import { EVENT_STORE, type EventStore } from '../../platform/event-store/event-store.port.js';
import {
  asOfPoint,
  includesStreamPrefix,
  parseLogPoint,
  readStreamsUpTo,
  recordedBy,
  replayProjections,
  type AsOfPoint,
} from '../../platform/projections/as-of-replay.js';
import type { Collection, ReadDocument } from '../../platform/read-store/read-store.port.js';
import { CreditLedger } from '../../credits/commands/credit-ledger.js';
import { ledgerDecider, ledgerStreamId } from '../../credits/domain/ledger.js';
import { comparePositions } from '../../platform/event-store/global-position.js';
import type { OrganizationAccess } from '../commands/organization-access.js';
import { memberOf, organizationDecider, organizationStreamId } from '../domain/organization.js';
import type { CreditsThen } from './organization-queries.js';
import { spaceStreamId } from '../domain/space.js';

/**
 * `as_of` for membership and roles (ADR 73): the organization stream folded by its own decider up to a global
 * position or a recorded time, the fold the access check makes today, stopped at that moment. Who may ask is
 * decided as today (the caller's current role); what they see is the organization as it stood then.
 */
@Injectable()
export class OrganizationAsOf {
  constructor(
    @Inject(StreamReader) private readonly reader: StreamReader,
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(CreditLedger) private readonly ledger: CreditLedger,
  ) {}

  async access(
    access: OrganizationAccess,
    asOf: unknown,
  ): Promise<{ access: OrganizationAccess; point: AsOfPoint }> {
    const target = parseLogPoint(asOf, 'as_of');
    const past = await this.reader.loadUpTo(
      organizationStreamId(access.organizationId),
      organizationDecider,
      (event) => recordedBy(event, target),
      { prefix: includesStreamPrefix(target) },
    );
    return {
      access: { ...access, state: past.state, version: past.version },
      point: asOfPoint(asOf, target, past.events),
    };
  }

  /**
   * A space (client or exposure scope) as it stood then: its own stream replayed through the organizations
   * projection's handlers, which build its document from that stream alone.
   */
  async spaces(
    spaceId: string,
    asOf: unknown,
  ): Promise<{ spaces: Collection<ReadDocument & Record<string, unknown>>; point: AsOfPoint }> {
    const target = parseLogPoint(asOf, 'as_of');
    const events = await readStreamsUpTo(this.eventStore, [spaceStreamId(spaceId)], target);
    const point = asOfPoint(asOf, target, events);
    const source = replayProjections([organizationsProjection], events, new Date(point.time));
    return {
      spaces: source.collection(organizationsProjection.name, ORGANIZATION_SPACES),
      point,
    };
  }

  /**
   * The organization's credits as they stood then: its ledger folded to that moment and decided with that
   * moment's cycle, the member's portion and the spaces' limits as they were. The view (shared balance or
   * envelope) still follows the caller's role today.
   */
  async credits(
    access: OrganizationAccess,
    asOf: unknown,
  ): Promise<{ access: OrganizationAccess; then: CreditsThen; point: AsOfPoint }> {
    const target = parseLogPoint(asOf, 'as_of');
    const payer = `organization:${access.organizationId}`;
    const [organization, ledger] = await Promise.all([
      this.reader.loadUpTo(
        organizationStreamId(access.organizationId),
        organizationDecider,
        (event) => recordedBy(event, target),
        { prefix: includesStreamPrefix(target) },
      ),
      this.reader.loadUpTo(ledgerStreamId(payer), ledgerDecider, (event) => recordedBy(event, target), {
        prefix: includesStreamPrefix(target),
      }),
    ]);
    const events = [...organization.events, ...ledger.events].sort((a, b) =>
      comparePositions(a.position, b.position),
    );
    const point = asOfPoint(asOf, target, events);
    const portion = memberOf(organization.state, access.accountId)?.portion ?? access.member.portion;
    return {
      access: { ...access, state: organization.state, member: { ...access.member, portion } },
      then: {
        ledger: ledger.state,
        context: await this.ledger.ledgerContext(payer, new Date(point.time)),
        spaces: { get: async (spaceId: string) => (await this.spaces(spaceId, asOf)).spaces.get(spaceId) },
      },
      point,
    };
  }
}
