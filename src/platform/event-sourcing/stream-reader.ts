import type { RecordedEvent } from '../event-store/event-store.port.js';
import type { Decider, DomainEvent } from './decider.js';
import type { EventSourcedRepository } from './event-sourced-repository.js';

/**
 * Reads a stream's current state, folded by its decider, without the means to append: what query services use
 * when a read model is not enough (access checks on the stream itself, read-your-writes of a fresh stream).
 */
export class StreamReader {
  constructor(private readonly repository: EventSourcedRepository) {}

  load<TEvent extends DomainEvent, TState>(
    stream: string,
    decider: Pick<Decider<unknown, TEvent, TState, unknown>, 'initialState' | 'evolve' | 'stateVersion'>,
  ): Promise<{ readonly state: TState; readonly version: number | null }> {
    return this.repository.load(stream, decider);
  }

  /**
   * The stream's state as it stood at a moment of the log (`as_of`): only the events `include` accepts (those
   * recorded by a position or a time, see `recordedBy`) are folded. Also returns those events. `prefix`: see
   * EventSourcedRepository.loadUpTo.
   */
  loadUpTo<TEvent extends DomainEvent, TState>(
    stream: string,
    decider: Pick<Decider<unknown, TEvent, TState, unknown>, 'initialState' | 'evolve' | 'stateVersion'>,
    include: (event: RecordedEvent) => boolean,
    options: { readonly prefix?: boolean } = {},
  ): Promise<{
    readonly state: TState;
    readonly version: number | null;
    readonly events: readonly RecordedEvent[];
  }> {
    return this.repository.loadUpTo(stream, decider, include, options);
  }
}
