import type {
  AppendCondition,
  EventMetadata,
  EventStore,
  RecordedEvent,
} from '../event-store/event-store.port.js';
import { WrongExpectedVersion } from '../event-store/event-store.port.js';
import { eventIdFor } from '../event-store/event-id.js';
import type { GlobalPosition } from '../event-store/global-position.js';
import type { CommandEnvelope } from './command-metadata.js';
import type { Decider, DomainEvent } from './decider.js';
import type { AlongsideWrite, EventSourcedRepository, HandleResult } from './event-sourced-repository.js';

/** One decision on one stream: what a command handler hands to `StreamWriter.decide`. */
export interface StreamDecision<TCommand, TEvent extends DomainEvent, TState, TContext> {
  readonly stream: string;
  readonly decider: Decider<TCommand, TEvent, TState, TContext>;
  readonly command: TCommand;
  /** The facts the decider needs besides the stream (a clock reading, other streams' verdicts). */
  readonly context: TContext | ((state: TState) => TContext);
  readonly envelope: CommandEnvelope;
  /** The version the client read (If-Match or a body version): a stale one is a 409, never retried. */
  readonly expectedVersion?: number;
  /** Conflicts with another writer retried when the client sent no version (default 5). */
  readonly conflictRetries?: number;
  /** Projections the caller reads right after the append: waited for (read-your-writes). */
  readonly readYourWrites?: readonly string[];
  /**
   * Written with the append, in its transaction when the event store is SQL (a credential beside the event
   * that names it, ADR 65); idempotent, and harmless when the append does not happen.
   */
  readonly alongside?: AlongsideWrite;
  /**
   * Decide this command with the others queued on its stream and append all their events in one call (group
   * commit, ADR 91). Ignored with an expected version or an alongside write.
   */
  readonly groupCommit?: boolean;
  /**
   * The other streams `context` was decided from, at the versions read (ADR 128): the append happens only while
   * they are there, else AppendConditionFailed, and the caller decides again on a fresh read.
   */
  readonly conditions?: readonly AppendCondition[];
}

/** A once-only record: the first event of a stream (or the next one at the version read), never two. */
export interface OnceOnly {
  readonly stream: string;
  readonly type: string;
  readonly data: Record<string, unknown>;
  /** The event id's key: deterministic, so a retried command finds its own claim. */
  readonly eventKey: string;
  readonly metadata: EventMetadata;
  /**
   * `new_stream` (default): only the stream's first event. `next`: the event after the stream's current
   * version, so two writers that read the same version cannot both append.
   */
  readonly at?: 'new_stream' | 'next';
}

/** A record appended as evidence (`StreamWriter.record`). */
export interface EvidenceRecord {
  readonly stream: string;
  readonly type: string;
  readonly data: Record<string, unknown>;
  /** The event id's key: the same record gets the same id, so appending it again adds nothing. */
  readonly eventKey: string;
  readonly metadata: EventMetadata;
}

export type OnceOnlyResult =
  | { readonly appended: true; readonly position: GlobalPosition }
  /** `holder` is the stream's first event (who claimed it) when `at` is `new_stream`. */
  | { readonly appended: false; readonly holder: RecordedEvent | undefined };

export type WaitForProjections = (
  projections: readonly string[],
  position: GlobalPosition | null,
) => Promise<boolean>;

/**
 * The one write path every command handler uses: load a stream, decide with its pure decider, append with
 * the expected version, then wait until the projections the caller reads next hold the result.
 */
export class StreamWriter {
  constructor(
    private readonly repository: EventSourcedRepository,
    private readonly eventStore: EventStore,
    private readonly waitFor: WaitForProjections,
  ) {}

  async decide<TCommand, TEvent extends DomainEvent, TState, TContext>(
    decision: StreamDecision<TCommand, TEvent, TState, TContext>,
  ): Promise<HandleResult<TEvent, TState>> {
    const result = await this.repository.handle(
      decision.stream,
      decision.decider,
      decision.command,
      decision.context,
      decision.envelope,
      {
        ...(decision.expectedVersion !== undefined ? { expectedVersion: decision.expectedVersion } : {}),
        ...(decision.conflictRetries !== undefined ? { conflictRetries: decision.conflictRetries } : {}),
        ...(decision.alongside ? { alongside: decision.alongside } : {}),
        ...(decision.groupCommit ? { groupCommit: true } : {}),
        ...(decision.conditions?.length ? { conditions: decision.conditions } : {}),
      },
    );
    if (decision.readYourWrites?.length) await this.waitFor(decision.readYourWrites, result.position);
    return result;
  }

  /**
   * The current state and version of a stream, folded by its decider (no append). `ownRead`: inside a read group,
   * read on the group's connection instead of joining a read begun elsewhere (EventSourcedRepository.load).
   */
  load<TEvent extends DomainEvent, TState>(
    stream: string,
    decider: Pick<Decider<unknown, TEvent, TState, unknown>, 'initialState' | 'evolve' | 'stateVersion'>,
    options: { readonly ownRead?: boolean } = {},
  ): Promise<{ readonly state: TState; readonly version: number | null }> {
    return this.repository.load(stream, decider, options);
  }

  /**
   * The state and version this process last knew of a stream, without reading it (undefined when not known):
   * decide with it only with that version as an append condition (StreamDecision.conditions).
   */
  known<TEvent extends DomainEvent, TState>(
    stream: string,
    decider: Pick<Decider<unknown, TEvent, TState, unknown>, 'initialState' | 'evolve' | 'stateVersion'>,
  ): { readonly state: TState; readonly version: number | null } | undefined {
    return this.repository.known(stream, decider);
  }

  /** Waits until these projections applied `position` (read-your-writes after several decisions). */
  readYourWrites(projections: readonly string[], position: GlobalPosition | null): Promise<boolean> {
    return this.waitFor(projections, position);
  }

  /**
   * Appends a once-only event (an email claim, a trial claim, a creation intent): true when this call
   * appended it (or a retry of the same command finds it stored), false when another command holds it.
   */
  async onceOnly(once: OnceOnly): Promise<OnceOnlyResult> {
    const version = once.at === 'next' ? await this.eventStore.streamVersion(once.stream) : null;
    try {
      const result = await this.eventStore.append(
        once.stream,
        [
          {
            id: eventIdFor(once.eventKey, 0),
            type: once.type,
            schemaVersion: 1,
            data: once.data,
            metadata: once.metadata,
          },
        ],
        { expectedVersion: version === null ? 'no_stream' : version },
      );
      return { appended: true, position: result.position };
    } catch (error) {
      if (!(error instanceof WrongExpectedVersion)) throw error;
      const holder =
        once.at === 'next' ? undefined : (await this.eventStore.readStream(once.stream, { maxCount: 1 }))[0];
      return { appended: false, holder };
    }
  }

  /**
   * Appends a record that is evidence, not a decision (an imported file, an erasure's audit entry): no decider,
   * any stream version, and a deterministic id, so the same record appended again adds nothing.
   */
  record(record: EvidenceRecord): Promise<{ readonly position: GlobalPosition }> {
    return this.recordAll([record]);
  }

  /** Several records of one stream in one append (a group commit of evidence, e.g. the search log's). */
  async recordAll(records: readonly EvidenceRecord[]): Promise<{ readonly position: GlobalPosition }> {
    const stream = records[0]?.stream;
    if (stream === undefined || records.some((record) => record.stream !== stream))
      throw new Error('recordAll takes one or more records of one stream');
    const result = await this.eventStore.append(
      stream,
      records.map((record) => ({
        id: eventIdFor(record.eventKey, 0),
        type: record.type,
        schemaVersion: 1,
        data: record.data,
        metadata: record.metadata,
      })),
      { expectedVersion: 'any' },
    );
    return { position: result.position };
  }

  /** Forgets a stream's cached state (erasure, tests that rewrite history). */
  forget(stream?: string): void {
    this.repository.forget(stream);
  }
}
