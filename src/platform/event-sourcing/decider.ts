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
  /**
   * The shape of the state (default 1). Bump it when the state's shape changes: snapshots and cached states of
   * another shape are then ignored and the stream is folded again, instead of mixing shapes.
   */
  readonly stateVersion?: number;
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

/**
 * A decider whose command is a list of its commands, each decided on the state the ones before it leave: one
 * append for all their events, or none when any of them is refused. A request that changes several things at
 * once (rename and archive, a role and a portion) is then all-or-nothing, and its If-Match guards the whole.
 */
export function allOrNothing<TCommand, TEvent extends DomainEvent, TState, TContext>(
  decider: Decider<TCommand, TEvent, TState, TContext>,
): Decider<readonly TCommand[], TEvent, TState, TContext> {
  return {
    initialState: decider.initialState,
    // The same state, so the same shape: its cached states and snapshots stay valid.
    ...(decider.stateVersion !== undefined ? { stateVersion: decider.stateVersion } : {}),
    evolve: (state, event) => decider.evolve(state, event),
    decide(commands, state, context) {
      const events: TEvent[] = [];
      let current = state;
      for (const command of commands) {
        const decided = decider.decide(command, current, context);
        events.push(...decided);
        current = fold(decider, decided, current);
      }
      return events;
    },
  };
}
