/**
 * The shape of every stream type's behaviour (after Emmett): pure functions, no I/O.
 * `decide` turns a command and the current state into new events, or throws a ServiceError;
 * `evolve` folds one event into the state.
 */
export interface DomainEvent<TType extends string = string, TData = unknown> {
  readonly type: TType;
  readonly data: TData;
}

export interface Decider<TCommand, TEvent extends DomainEvent, TState, TContext = unknown> {
  readonly initialState: TState;
  evolve(state: TState, event: TEvent): TState;
  decide(command: TCommand, state: TState, context: TContext): readonly TEvent[];
}

/** Folds a history into a state. */
export function fold<TEvent extends DomainEvent, TState>(
  decider: Pick<Decider<unknown, TEvent, TState>, 'initialState' | 'evolve'>,
  events: readonly TEvent[],
  from: TState = decider.initialState,
): TState {
  return events.reduce((state, event) => decider.evolve(state, event), from);
}
