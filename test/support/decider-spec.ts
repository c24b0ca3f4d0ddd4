/**
 * Given/when/then specifications for pure deciders:
 *
 *   const { given } = deciderSpec(accountDecider);
 *   given([registered]).when({ type: 'ChangePlan', plan: 'enterprise' }, { now }).then([planChanged]);
 *   given([]).when({ type: 'SetPassword', credentialId: 'password-1' }, { now }).then('not_found');
 *
 * `then(events)` checks the decided events exactly and returns them with the folded state; `then(code)` checks
 * that decide refused with a ServiceError of that code and returns the error (for its details). Every state the
 * spec folds must survive a JSON round trip unchanged, since states are snapshotted as JSON.
 */
import { expect } from '@jest/globals';
import type { Decider, DomainEvent } from '../../src/platform/event-sourcing/decider.js';
import type { ErrorCode } from '../../src/platform/errors/error-codes.js';
import { ServiceError } from '../../src/platform/errors/service-error.js';

export interface Decided<TEvent, TState> {
  readonly events: readonly TEvent[];
  /** The given history plus the decided events, folded. */
  readonly state: TState;
}

export interface When<TEvent, TState> {
  /** The exact events decided. */
  then(expected: readonly TEvent[]): Decided<TEvent, TState>;
  /** A refusal with this error code (nothing decided). */
  then(expected: ErrorCode): ServiceError;
  /** The decision, for custom assertions (throws what decide throws). */
  decided(): Decided<TEvent, TState>;
}

export interface Given<TCommand, TEvent, TState, TContext> {
  /** The state the given history folds to. */
  readonly state: TState;
  when(command: TCommand, context: TContext): When<TEvent, TState>;
}

export interface DeciderSpec<TCommand, TEvent, TState, TContext> {
  given(events?: readonly TEvent[]): Given<TCommand, TEvent, TState, TContext>;
}

/** Asserts a state is plain JSON: no Map, Set, Date, undefined or class instances. */
export function expectPlainJson(value: unknown): void {
  expect(JSON.parse(JSON.stringify(value))).toStrictEqual(value);
}

export function deciderSpec<TCommand, TEvent extends DomainEvent, TState, TContext>(
  decider: Decider<TCommand, TEvent, TState, TContext>,
): DeciderSpec<TCommand, TEvent, TState, TContext> {
  const fold = (events: readonly TEvent[], from: TState): TState => {
    let state = from;
    for (const event of events) {
      state = decider.evolve(state, event);
      expectPlainJson(state);
    }
    return state;
  };

  return {
    given(history = []) {
      const state = fold(history, decider.initialState);
      return {
        state,
        when(command, context) {
          const decided = (): Decided<TEvent, TState> => {
            const events = decider.decide(command, state, context);
            for (const event of events) expectPlainJson(event);
            return { events, state: fold(events, state) };
          };
          function then(expected: readonly TEvent[]): Decided<TEvent, TState>;
          function then(expected: ErrorCode): ServiceError;
          function then(expected: readonly TEvent[] | ErrorCode): Decided<TEvent, TState> | ServiceError {
            if (typeof expected === 'string') {
              let thrown: unknown;
              let events: readonly TEvent[] | undefined;
              try {
                events = decider.decide(command, state, context);
              } catch (error) {
                thrown = error;
              }
              if (thrown === undefined) {
                throw new Error(`Expected a refusal '${expected}', but decided ${JSON.stringify(events)}`);
              }
              expect(thrown).toBeInstanceOf(ServiceError);
              expect((thrown as ServiceError).code).toBe(expected);
              return thrown as ServiceError;
            }
            const result = decided();
            expect(result.events).toEqual(expected);
            return result;
          }
          return { then, decided };
        },
      };
    },
  };
}
