import type { LedgerEvent } from '../src/credits/domain/ledger.js';
import type { ProjectionDefinition } from '../src/platform/projections/projection-definition.js';
import { eventTypes } from './event-types.js';
import { payerOfLedgerStream } from './credit-ledger.support.js';

/** The balance of one payer (account or organization), as GET /api/v2/auth/credits shows it. */
export interface CreditStateDocument {
  readonly id: string;
  readonly cycleStart: string | null;
  readonly cycleEnd: string | null;
  readonly allowance: number;
  readonly allowanceUsed: number;
  /** Credits charged in the current cycle, from the allocation and from purchased credits. */
  readonly creditsUsed: number;
  readonly purchasedBalance: number;
  readonly lifetimePurchased: number;
  readonly transferredIn: number;
  readonly reserved: number;
  readonly openReservations: Readonly<Record<string, number>>;
  readonly [field: string]: unknown;
}

export const CREDIT_STATES = 'credit_states';

const empty = (id: string): CreditStateDocument => ({
  id,
  cycleStart: null,
  cycleEnd: null,
  allowance: 0,
  allowanceUsed: 0,
  creditsUsed: 0,
  purchasedBalance: 0,
  lifetimePurchased: 0,
  transferredIn: 0,
  reserved: 0,
  openReservations: {},
});

export const creditStateProjection: ProjectionDefinition<LedgerEvent> = {
  name: 'credit-state',
  version: 1,
  collections: { [CREDIT_STATES]: {} },
  handles: eventTypes<LedgerEvent>({
    CreditsPurchased: true,
    CycleStarted: true,
    AllowanceAdjusted: true,
    CreditsReserved: true,
    ReservationSettled: true,
    ReservationReleased: true,
    CreditsTransferredOut: true,
    CreditsTransferredIn: true,
  }),
  reads: (event) => [{ collection: CREDIT_STATES, id: payerOfLedgerStream(event.streamId) }],
  apply(event, view) {
    const id = payerOfLedgerStream(event.streamId);
    const state = view.get<CreditStateDocument>(CREDIT_STATES, id) ?? empty(id);
    const open = { ...state.openReservations };
    let next: CreditStateDocument = state;
    switch (event.type) {
      case 'CreditsPurchased': {
        const { credits } = event.data;
        next = {
          ...state,
          purchasedBalance: state.purchasedBalance + credits,
          lifetimePurchased: state.lifetimePurchased + credits,
        };
        break;
      }
      case 'CycleStarted': {
        const data = event.data;
        next = {
          ...state,
          cycleStart: data.cycleStart,
          cycleEnd: data.cycleEnd,
          allowance: data.allowance,
          allowanceUsed: 0,
          creditsUsed: 0,
        };
        break;
      }
      case 'AllowanceAdjusted':
        next = { ...state, allowance: event.data.allowance };
        break;
      case 'CreditsReserved': {
        const { reservationId, amount } = event.data;
        open[reservationId] = amount;
        next = { ...state, reserved: state.reserved + amount, openReservations: open };
        break;
      }
      case 'ReservationSettled': {
        const data = event.data;
        const held = open[data.reservationId] ?? 0;
        delete open[data.reservationId];
        next = {
          ...state,
          reserved: state.reserved - held,
          openReservations: open,
          allowanceUsed: state.allowanceUsed + data.fromAllowance,
          purchasedBalance: state.purchasedBalance - data.fromPurchased,
          creditsUsed: state.creditsUsed + data.fromAllowance + data.fromPurchased,
        };
        break;
      }
      case 'ReservationReleased': {
        const { reservationId } = event.data;
        const held = open[reservationId] ?? 0;
        delete open[reservationId];
        next = { ...state, reserved: state.reserved - held, openReservations: open };
        break;
      }
      case 'CreditsTransferredOut':
        next = {
          ...state,
          purchasedBalance: state.purchasedBalance - event.data.credits,
        };
        break;
      case 'CreditsTransferredIn': {
        const { credits } = event.data;
        next = {
          ...state,
          purchasedBalance: state.purchasedBalance + credits,
          transferredIn: state.transferredIn + credits,
        };
        break;
      }
    }
    view.put(CREDIT_STATES, next);
  },
};
