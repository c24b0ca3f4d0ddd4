import type {
  CreditsReserved,
  ReservationReleased,
  ReservationSettled,
} from '../src/credits/domain/ledger.js';
import type { ProjectionDefinition } from '../src/platform/projections/projection-definition.js';
import { payerOfLedgerStream } from './credit-ledger.support.js';

/** Reservations not yet settled or released, by expiry: what the sweeper looks at. */
export const OPEN_RESERVATIONS = 'open_reservations';

export const openReservationsProjection: ProjectionDefinition<
  CreditsReserved | ReservationSettled | ReservationReleased
> = {
  name: 'open-reservations',
  version: 1,
  collections: { [OPEN_RESERVATIONS]: { indexes: [{ name: 'by_expiry', fields: [['expiresAt', 1]] }] } },
  handles: ['CreditsReserved', 'ReservationSettled', 'ReservationReleased'],
  apply(event, view) {
    if (event.type === 'CreditsReserved') {
      view.put(OPEN_RESERVATIONS, {
        id: event.data.reservationId,
        payer: payerOfLedgerStream(event.streamId),
        amount: event.data.amount,
        expiresAt: event.data.expiresAt,
      });
    } else {
      view.delete(OPEN_RESERVATIONS, event.data.reservationId);
    }
  },
};
