/**
 * The Exposition product of an organization (`exposition-<organizationId>`), Authentication 6: "exposure reads
 * require access to an Exposition organization". Operators switch it on (CLI `exposure enable`) with the billing
 * mode the organization's scopes are created under; switching it off closes the exposure routes and keeps every
 * scope and its history.
 */
import type { Decider, DomainEvent } from '../../platform/event-sourcing/decider.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import { BILLING_MODES, type BillingMode } from './scope-declaration.js';

export function expositionStreamId(organizationId: string): string {
  return `exposition-${organizationId}`;
}

export interface EnableExposition {
  readonly type: 'EnableExposition';
  readonly organizationId: string;
  readonly billing: BillingMode;
}
export interface DisableExposition {
  readonly type: 'DisableExposition';
}
export type ExpositionCommand = EnableExposition | DisableExposition;

export type ExpositionEnabled = DomainEvent<
  'ExpositionEnabled',
  { organizationId: string; billing: BillingMode; enabledAt: string }
>;
export type ExpositionDisabled = DomainEvent<'ExpositionDisabled', { disabledAt: string }>;
export type ExpositionEvent = ExpositionEnabled | ExpositionDisabled;

export interface ExpositionState {
  readonly enabled: boolean;
  readonly billing: BillingMode | null;
}

export const expositionDecider: Decider<ExpositionCommand, ExpositionEvent, ExpositionState, { now: Date }> =
  {
    initialState: { enabled: false, billing: null },
    decide(command, state, { now }) {
      if (command.type === 'EnableExposition') {
        if (!(BILLING_MODES as readonly string[]).includes(command.billing)) {
          throw new ServiceError('invalid_input', 'billing must be capacity or credit');
        }
        if (state.enabled && state.billing === command.billing) return [];
        return [
          {
            type: 'ExpositionEnabled',
            data: {
              organizationId: command.organizationId,
              billing: command.billing,
              enabledAt: now.toISOString(),
            },
          },
        ];
      }
      return state.enabled ? [{ type: 'ExpositionDisabled', data: { disabledAt: now.toISOString() } }] : [];
    },
    evolve(state, event) {
      switch (event.type) {
        case 'ExpositionEnabled':
          return { enabled: true, billing: event.data.billing };
        case 'ExpositionDisabled':
          return { ...state, enabled: false };
        default:
          return state;
      }
    },
  };
