import type { RecordedEvent } from '../src/platform/event-store/event-store.port.js';
import type {
  ProjectionDefinition,
  ProjectionView,
} from '../src/platform/projections/projection-definition.js';
import { payerOfLedgerStream } from './credit-ledger.support.js';

/** Reservations not yet settled or released, by expiry: what the sweeper looks at. */
export const OPEN_RESERVATIONS = 'open_reservations';

export const openReservationsProjection: ProjectionDefinition = {
  name: 'open-reservations',
  version: 1,
  collections: { [OPEN_RESERVATIONS]: { indexes: [{ name: 'by_expiry', fields: [['expiresAt', 1]] }] } },
  handles: ['CreditsReserved', 'ReservationSettled', 'ReservationReleased'],
  apply(event: RecordedEvent, view: ProjectionView): void {
    const data = event.data as { reservationId: string; amount?: number; expiresAt?: string };
    if (event.type === 'CreditsReserved') {
      view.put(OPEN_RESERVATIONS, {
        id: data.reservationId,
        payer: payerOfLedgerStream(event.streamId),
        amount: data.amount ?? 0,
        expiresAt: data.expiresAt ?? '',
      });
    } else {
      view.delete(OPEN_RESERVATIONS, data.reservationId);
    }
  },
};
