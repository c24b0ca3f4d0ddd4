/**
 * An account is staff (owner, administrator, analyst) of at most one organization at a time; external client
 * access elsewhere is unaffected ("External clients keep named access"). So removing a member from one
 * organization never touches their staff work in another, and an account's research context (rule 1) is one
 * organization's.
 *
 * `staff-seat-<accountId>` records which organization last took the account as staff. It serializes two
 * acceptances racing in two organizations (the append's expected version); whether the account is still staff
 * elsewhere is a fact the application establishes by folding those organizations' streams and passes in, so a
 * seat whose organization has since removed or demoted the account is simply taken over.
 */
import type { Decider, DomainEvent } from '../../platform/event-sourcing/decider.js';
import { ServiceError } from '../../platform/errors/service-error.js';

export function staffSeatStreamId(accountId: string): string {
  return `staff-seat-${accountId}`;
}

export interface TakeStaffSeat {
  readonly type: 'TakeStaffSeat';
  readonly organizationId: string;
  /** Organizations whose streams were folded for this decision (the seat's holder among them). */
  readonly checked: readonly string[];
  /** Those of them whose folded stream shows the account as staff now. */
  readonly staffIn: readonly string[];
}

export type StaffSeatCommand = TakeStaffSeat;

export type StaffSeatTaken = DomainEvent<
  'StaffSeatTaken',
  { organizationId: string; previous: string | null; takenAt: string }
>;
export type StaffSeatEvent = StaffSeatTaken;

export interface StaffSeatState {
  /** The organization that last took the account as staff (it may have removed it since). */
  readonly holder: string | null;
}

export const staffSeatDecider: Decider<StaffSeatCommand, StaffSeatEvent, StaffSeatState, { now: Date }> = {
  initialState: { holder: null },
  decide(command, state, context) {
    if (command.staffIn.some((organizationId) => organizationId !== command.organizationId)) {
      throw new ServiceError(
        'staff_of_another_organization',
        'this account is staff of another organization, and an account is staff of at most one organization at a time: leave that organization first (external client access is not limited)',
      );
    }
    if (state.holder === command.organizationId) return [];
    if (state.holder !== null && !command.checked.includes(state.holder)) {
      // Another organization took the seat after the facts were gathered: they say nothing about it.
      throw new ServiceError(
        'version_conflict',
        'the account joined another organization meanwhile: retry to see whether it still can',
      );
    }
    return [
      {
        type: 'StaffSeatTaken',
        data: {
          organizationId: command.organizationId,
          previous: state.holder,
          takenAt: context.now.toISOString(),
        },
      },
    ];
  },
  evolve(state, event) {
    return event.type === 'StaffSeatTaken' ? { holder: event.data.organizationId } : state;
  },
};
