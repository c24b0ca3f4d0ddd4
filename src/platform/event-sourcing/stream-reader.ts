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
}
