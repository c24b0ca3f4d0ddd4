import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '../../platform/clock/clock.js';
import type { CommandEnvelope } from '../../platform/event-sourcing/command-metadata.js';
import { allOrNothing } from '../../platform/event-sourcing/decider.js';
import { StreamWriter } from '../../platform/event-sourcing/stream-writer.js';
import {
  EVENT_STORE,
  type EventStore,
  WrongExpectedVersion,
} from '../../platform/event-store/event-store.port.js';
import type { LogFunction } from '../../platform/service-context.js';
import { memberOf, organizationDecider, type OrganizationCommand } from '../domain/organization.js';
import { isStaff } from '../domain/roles.js';
import { staffSeatDecider, staffSeatStreamId, type FoldedOrganization } from '../domain/staff-seat.js';
import { CreationPreviews } from '../queries/creation-preview.js';
import { ORGANIZATION_LOG } from './creation-recovery.js';
import { OrganizationGate } from './organization-access.js';
import { abandoned, creationStreamId, OrganizationStream, withPayer } from './organization-writes.js';

/** How many times a staff change (or its seat claim) is decided again after another writer moved the stream. */
const STAFF_CHANGE_RETRIES = 5;

/** An account is staff of at most one organization at a time: the staff seat (`staff-seat-<accountId>`). */
@Injectable()
export class StaffSeats {
  constructor(
    @Inject(OrganizationGate) private readonly gate: OrganizationGate,
    @Inject(OrganizationStream) private readonly organizations: OrganizationStream,
    @Inject(CreationPreviews) private readonly previews: CreationPreviews,
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ORGANIZATION_LOG) private readonly log: LogFunction,
  ) {}

  /**
   * Makes an account staff of the organization with `commands` (an acceptance, a promotion), all-or-nothing.
   * The change goes in three steps: it is decided on the organization's stream as folded at version v (a
   * refusal writes nothing, the seat included); the staff seat is claimed for this organization at v (409
   * `staff_of_another_organization` while another organization holds it); the change is appended at exactly v.
   * While the organization's stream has not moved past v, the claim holds the seat, so a change racing in
   * another organization is refused rather than taking it over. A failure after the claim releases it. A change
   * that lost v to another writer of the organization is decided again on a fresh fold, with a new claim (as the
   * repository retries a conflict the client did not cause).
   */
  async becomeStaff(
    accountId: string,
    organizationId: string,
    commands: readonly OrganizationCommand[],
    actorAccountId: string | null,
    envelope: CommandEnvelope,
  ): Promise<void> {
    const decider = allOrNothing(organizationDecider);
    for (let attempt = 0; ; attempt++) {
      const { state, version } = await this.gate.organization(organizationId);
      decider.decide(commands, state, { now: this.clock.now(), actorAccountId });
      const organizationVersion = version ?? -1;
      await this.take(accountId, organizationId, organizationVersion, envelope);
      try {
        await this.organizations.decideAll(
          organizationId,
          actorAccountId,
          commands,
          envelope,
          organizationVersion,
        );
        return;
      } catch (error) {
        if (error instanceof WrongExpectedVersion && attempt < STAFF_CHANGE_RETRIES) {
          // The next claim (at the new version) replaces this one.
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 2 ** (attempt + 2)));
          continue;
        }
        await this.release(accountId, organizationId, organizationVersion, envelope);
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
  private async take(
    accountId: string,
    organizationId: string,
    organizationVersion: number,
    envelope: CommandEnvelope,
  ): Promise<void> {
    const seat = staffSeatStreamId(accountId);
    for (let attempt = 0; ; attempt++) {
      const [memberships, loaded, creation] = await Promise.all([
        this.previews.memberships(accountId),
        this.writer.load(seat, staffSeatDecider),
        this.eventStore.readStream(creationStreamId(accountId)),
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
        await this.writer.decide({
          stream: seat,
          decider: staffSeatDecider,
          command: { type: 'TakeStaffSeat', organizationId, organizationVersion, checked },
          context: { now: this.clock.now() },
          envelope: withPayer(envelope, organizationId, undefined, `staff-seat@${organizationVersion}`),
          expectedVersion: loaded.version ?? -1,
        });
        return;
      } catch (error) {
        if (error instanceof WrongExpectedVersion && attempt < STAFF_CHANGE_RETRIES) continue;
        throw error;
      }
    }
  }

  /** Releases the claim a failed change took (if it still holds the seat); a failure here is only logged. */
  private async release(
    accountId: string,
    organizationId: string,
    organizationVersion: number,
    envelope: CommandEnvelope,
  ): Promise<void> {
    try {
      await this.writer.decide({
        stream: staffSeatStreamId(accountId),
        decider: staffSeatDecider,
        command: { type: 'ReleaseStaffSeat', organizationId, organizationVersion },
        context: { now: this.clock.now() },
        envelope: withPayer(envelope, organizationId, undefined, `staff-seat-release@${organizationVersion}`),
      });
    } catch (error) {
      // The claim then holds the seat until the organization's stream moves past its version.
      this.log('warn', 'a staff seat claim could not be released', {
        accountId,
        organizationId,
        err: error,
      });
    }
  }
}
