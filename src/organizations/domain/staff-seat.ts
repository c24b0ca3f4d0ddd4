/**
 * An account is staff (owner, administrator, analyst) of at most one organization at a time; external client
 * access elsewhere is unaffected ("External clients keep named access"). So removing a member from one
 * organization never touches their staff work in another, and an account's research context (rule 1) is one
 * organization's.
 *
 * `staff-seat-<accountId>` serializes the changes that make the account staff (an acceptance, a promotion) across
 * organizations. Such a change is decided on its organization's stream at some version first; the seat is then
 * claimed for that organization at that version, and the change appended at exactly that version. Until the
 * holder's stream has moved past the claimed version (the change landed, or can no longer land) or the claim was
 * released (the change failed), the seat stays held: a racing change in another organization is refused. After
 * that, whether the account is still staff of the holder is a fact the application establishes by folding the
 * holder's stream and passes in, so a seat whose organization has since removed or demoted the account is
 * simply taken over.
 */
import type { Decider, DomainEvent } from '../../platform/event-sourcing/decider.js';
import { ServiceError } from '../../platform/errors/service-error.js';

export function staffSeatStreamId(accountId: string): string {
  return `staff-seat-${accountId}`;
}

/** An organization whose stream was folded for a seat decision. */
export interface FoldedOrganization {
  readonly organizationId: string;
  /** Its stream's version when folded (null: no stream yet). */
  readonly version: number | null;
  /** Whether the folded stream holds the account as staff (or the account is creating it). */
  readonly staff: boolean;
}

export interface TakeStaffSeat {
  readonly type: 'TakeStaffSeat';
  readonly organizationId: string;
  /** The version of that organization's stream the change was decided on; it is appended at exactly that one. */
  readonly organizationVersion: number;
  /** The other organizations folded for this decision: the account's memberships and the seat's holder. */
  readonly checked: readonly FoldedOrganization[];
}

/** The change the claim was taken for failed: the claim no longer holds the seat (nothing landed). */
export interface ReleaseStaffSeat {
  readonly type: 'ReleaseStaffSeat';
  readonly organizationId: string;
  readonly organizationVersion: number;
}

export type StaffSeatCommand = TakeStaffSeat | ReleaseStaffSeat;

export type StaffSeatTaken = DomainEvent<
  'StaffSeatTaken',
  {
    organizationId: string;
    /** Absent on seats taken before claims were versioned: those count as settled. */
    organizationVersion?: number;
    previous: string | null;
    takenAt: string;
  }
>;
export type StaffSeatReleased = DomainEvent<
  'StaffSeatReleased',
  { organizationId: string; organizationVersion: number; releasedAt: string }
>;
export type StaffSeatEvent = StaffSeatTaken | StaffSeatReleased;

export interface StaffSeatState {
  /** The organization that last took the account as staff (it may have removed it since). */
  readonly holder: string | null;
  /** The holder's open claim: its change is appended at this version of its stream, or was never released. */
  readonly claim: { readonly organizationVersion: number } | null;
}

const staffElsewhere = (): ServiceError =>
  new ServiceError(
    'staff_of_another_organization',
    'this account is staff of another organization (or is becoming staff of one), and an account is staff of at most one organization at a time: leave that organization first (external client access is not limited)',
  );

/** Whether a stream folded at `current` is past the version a claim was taken at. */
const movedPast = (current: number | null, claimed: number): boolean => current !== null && current > claimed;

export const staffSeatDecider: Decider<StaffSeatCommand, StaffSeatEvent, StaffSeatState, { now: Date }> = {
  initialState: { holder: null, claim: null },
  decide(command, state, context) {
    if (command.type === 'ReleaseStaffSeat') {
      // Only the claim the failed change took: a seat taken over since, or claimed again, is not released.
      const ours =
        state.holder === command.organizationId &&
        state.claim?.organizationVersion === command.organizationVersion;
      return ours
        ? [
            {
              type: 'StaffSeatReleased',
              data: {
                organizationId: command.organizationId,
                organizationVersion: command.organizationVersion,
                releasedAt: context.now.toISOString(),
              },
            },
          ]
        : [];
    }
    const others = command.checked.filter((folded) => folded.organizationId !== command.organizationId);
    if (others.some((folded) => folded.staff)) throw staffElsewhere();
    if (state.holder !== null && state.holder !== command.organizationId) {
      const holder = others.find((folded) => folded.organizationId === state.holder);
      if (!holder) {
        // Another organization took the seat after the facts were gathered: they say nothing about it.
        throw new ServiceError(
          'version_conflict',
          'the account joined another organization meanwhile: retry to see whether it still can',
        );
      }
      // The holder's change may still land at the claimed version: the seat stays its own.
      if (state.claim && !movedPast(holder.version, state.claim.organizationVersion)) throw staffElsewhere();
    }
    if (
      state.holder === command.organizationId &&
      state.claim?.organizationVersion === command.organizationVersion
    ) {
      return [];
    }
    return [
      {
        type: 'StaffSeatTaken',
        data: {
          organizationId: command.organizationId,
          organizationVersion: command.organizationVersion,
          previous: state.holder,
          takenAt: context.now.toISOString(),
        },
      },
    ];
  },
  evolve(state, event) {
    switch (event.type) {
      case 'StaffSeatTaken': {
        const version = event.data.organizationVersion;
        return {
          holder: event.data.organizationId,
          claim: typeof version === 'number' ? { organizationVersion: version } : null,
        };
      }
      case 'StaffSeatReleased':
        // The holder stays a candidate to fold: a change that did land after all is still seen there.
        return { ...state, claim: null };
      default:
        return state;
    }
  },
};
