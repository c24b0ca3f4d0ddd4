import { Inject, Injectable } from '@nestjs/common';
import { StreamReader } from '../../platform/event-sourcing/stream-reader.js';
import {
  asOfPoint,
  parseLogPoint,
  recordedBy,
  type AsOfPoint,
} from '../../platform/projections/as-of-replay.js';
import type { OrganizationAccess } from '../commands/organization-access.js';
import { organizationDecider, organizationStreamId } from '../domain/organization.js';

/**
 * `as_of` for membership and roles (ADR 73): the organization stream folded by its own decider up to a global
 * position or a recorded time, the fold the access check makes today, stopped at that moment. Who may ask is
 * decided as today (the caller's current role); what they see is the organization as it stood then.
 */
@Injectable()
export class OrganizationAsOf {
  constructor(@Inject(StreamReader) private readonly reader: StreamReader) {}

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
}
