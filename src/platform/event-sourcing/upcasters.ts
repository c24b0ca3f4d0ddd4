import type { RecordedEvent } from '../event-store/event-store.port.js';

/**
 * Maps the data of one stored shape of an event type (`type` at `fromVersion`) to the next shape
 * (`fromVersion + 1`). Pure, like a decider: stored events are never rewritten, they are read through it. The
 * event type stays the same (the runner chooses a projection's events by type before they are upcast).
 */
export interface Upcaster {
  readonly type: string;
  readonly fromVersion: number;
  upcast(data: unknown): unknown;
}

/**
 * The registry of upcasters, keyed by (type, fromVersion). Deciders (EventSourcedRepository.load) and
 * projections (ProjectionEngine) read every stored event through it, so they only ever see the current shape.
 */
export class Upcasters {
  private readonly byKey = new Map<string, Upcaster>();
  private readonly currentVersions = new Map<string, number>();

  constructor(upcasters: readonly Upcaster[] = []) {
    for (const upcaster of upcasters) {
      if (!Number.isInteger(upcaster.fromVersion) || upcaster.fromVersion < 1) {
        throw new Error(`upcaster of ${upcaster.type}: fromVersion must be a positive integer`);
      }
      const key = keyOf(upcaster.type, upcaster.fromVersion);
      if (this.byKey.has(key))
        throw new Error(`two upcasters of ${upcaster.type} from version ${upcaster.fromVersion}`);
      this.byKey.set(key, upcaster);
      const current = this.currentVersions.get(upcaster.type) ?? 1;
      this.currentVersions.set(upcaster.type, Math.max(current, upcaster.fromVersion + 1));
    }
    for (const [type, current] of this.currentVersions) {
      for (let version = 1; version < current; version++) {
        if (!this.byKey.has(keyOf(type, version))) {
          throw new Error(`no upcaster of ${type} from version ${version} (current is ${current})`);
        }
      }
    }
  }

  /** The schema version new events of this type are stored with: 1 until a shape change adds an upcaster. */
  currentVersion(type: string): number {
    return this.currentVersions.get(type) ?? 1;
  }

  /** The event in its current shape (the same object when it is already current). */
  upcast<TEvent extends RecordedEvent>(event: TEvent): TEvent {
    let current = event;
    for (;;) {
      const upcaster = this.byKey.get(keyOf(current.type, current.schemaVersion));
      if (!upcaster) return current;
      current = { ...current, schemaVersion: upcaster.fromVersion + 1, data: upcaster.upcast(current.data) };
    }
  }

  upcastAll<TEvent extends RecordedEvent>(events: readonly TEvent[]): TEvent[] {
    return this.byKey.size === 0 ? [...events] : events.map((event) => this.upcast(event));
  }
}

const keyOf = (type: string, fromVersion: number): string => `${type}@${fromVersion}`;

/** No event has changed shape yet: the registry the service runs with until one does. */
export const noUpcasters = new Upcasters();
