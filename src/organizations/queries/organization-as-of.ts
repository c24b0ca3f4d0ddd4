import { Inject, Injectable } from '@nestjs/common';
import {
  ORGANIZATION_SPACES,
  organizationsProjection,
} from '../../../projections/organizations.projection.js';
import { StreamReader } from '../../platform/event-sourcing/stream-reader.js';
import { EVENT_STORE, type EventStore } from '../../platform/event-store/event-store.port.js';
import {
  asOfPoint,
  parseLogPoint,
  readStreamsUpTo,
  recordedBy,
  replayProjections,
  type AsOfPoint,
} from '../../platform/projections/as-of-replay.js';
import type { Collection, ReadDocument } from '../../platform/read-store/read-store.port.js';
import type { OrganizationAccess } from '../commands/organization-access.js';
import { organizationDecider, organizationStreamId } from '../domain/organization.js';
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
}
