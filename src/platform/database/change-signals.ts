import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { SqlExecutor } from './sql-database.js';

/**
 * The wake channel between the instances sharing a database (ADR 88): an instance that appended events or switched
 * a projection's generation says so, and the others wake instead of polling. Signals carry no data and may be lost
 * (a dropped connection): listeners re-read what they watch, and keep a slow safety poll.
 */
export type ChangeTopic = 'appended' | 'generations';

/**
 * `here`: this process signalled; `elsewhere`: another process did; `resync`: the channel (re)connected, and
 * signals sent while it was down are lost, so whatever a listener watches may have changed.
 */
export type ChangeOrigin = 'here' | 'elsewhere' | 'resync';

export type ChangeListener = (origin: ChangeOrigin) => void;

export interface ChangeSignals {
  /**
   * True when other processes' changes are signalled here (LISTEN on a PostgreSQL server, the socket clients of the
   * embedded database): listeners may then poll at a slow safety interval. False: only this process's own signals
   * arrive, and watchers must keep polling as before.
   */
  readonly crossProcess: boolean;
  /** Calls `listener` on every signal of `topic`; returns the unsubscribe. */
  subscribe(topic: ChangeTopic, listener: ChangeListener): () => void;
  /** Tells the listeners of this process now, and the other processes (debounced, on the server). */
  signal(topic: ChangeTopic): void;
  close(): Promise<void>;
}

const TOPICS: readonly ChangeTopic[] = ['appended', 'generations'];

/** The listeners of this process; the signals of other processes arrive through `receive` when there is a source. */
export class LocalChangeSignals implements ChangeSignals {
  private readonly listeners = new Map<ChangeTopic, Set<ChangeListener>>(
    TOPICS.map((topic) => [topic, new Set()]),
  );

  constructor(readonly crossProcess = false) {}

  subscribe(topic: ChangeTopic, listener: ChangeListener): () => void {
    const listeners = this.listeners.get(topic)!;
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }

  signal(topic: ChangeTopic): void {
    this.receive(topic, 'here');
  }

  /** Calls the listeners of `topic` (of every topic when `topic` is null). */
  receive(topic: ChangeTopic | null, origin: ChangeOrigin): void {
    for (const each of topic ? [topic] : TOPICS) {
      for (const listener of [...this.listeners.get(each)!]) {
        try {
          listener(origin);
        } catch {
          // A listener only schedules work; one that throws must not keep the signal from the others.
        }
      }
    }
  }

  async close(): Promise<void> {
    for (const listeners of this.listeners.values()) listeners.clear();
  }
}

/** The NOTIFY channel of each topic (channels are per database). */
export const CHANGE_CHANNELS: Readonly<Record<ChangeTopic, string>> = {
  appended: 'es_appended',
  generations: 'projection_generations',
};

/** Where listening instances say they listen (ADR 111): `hello:<id>` on connecting, `here:<id>` as answer and beat. */
export const PRESENCE_CHANNEL = 'wake_presence';

export interface PostgresChangeSignalsOptions {
  /** Signals of one topic sent to the other instances at most once per this many ms (default 100). */
  readonly debounceMs?: number;
  /** How often a listening instance says it is there (default 30 s); others count it gone after twice that. */
  readonly presenceIntervalMs?: number;
  /** After its own LISTEN, how long an instance signals regardless, while the others' answers arrive (default 2 s). */
  readonly presenceGraceMs?: number;
  /** First and largest delay between reconnection attempts of the listening connection (default 100 ms, 5 s). */
  readonly reconnectDelayMs?: readonly [number, number];
}

/**
 * LISTEN/NOTIFY on a PostgreSQL server. One dedicated connection LISTENs on every topic's channel and reconnects
 * (with backoff) when it drops, LISTENing again and telling every listener `resync`. A signal of this process
 * reaches its own listeners at once and the other instances through `pg_notify` on the pool, outside any append's
 * transaction: a NOTIFY inside the append would take PostgreSQL's notification lock through every commit and
 * serialize them. Sends are debounced per topic (the first at once, then at most one per `debounceMs`): a busy
 * instance adds at most ten commits a second per topic, an idle one none. A notification names its sender, which
 * ignores its own. Only while another instance listens (ADR 111): each says `hello` when it LISTENs, the others
 * answer `here`, and each says `here` every presenceIntervalMs; an instance that heard none for twice that, and is
 * past the grace period of its own LISTEN, sends nothing (a lone instance's appends cost no notification).
 */
export class PostgresChangeSignals implements ChangeSignals {
  readonly crossProcess = true;
  private readonly local = new LocalChangeSignals(true);
  private readonly instance = randomUUID();
  private readonly debounceMs: number;
  private readonly reconnectDelayMs: readonly [number, number];
  private readonly sends = new Map<ChangeTopic, { lastAt: number; timer: NodeJS.Timeout | undefined }>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private client: pg.Client | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private readonly presenceIntervalMs: number;
  private readonly presenceGraceMs: number;
  private presenceTimer: NodeJS.Timeout | undefined;
  /** When this instance last LISTENed, and when it last heard another listening instance. */
  private listeningSince = -Infinity;
  private othersHeardAt = -Infinity;
  private failedConnects = 0;
  private closed = false;

  constructor(
    private readonly connection: pg.ClientConfig,
    private readonly sender: SqlExecutor,
    options: PostgresChangeSignalsOptions = {},
  ) {
    this.debounceMs = options.debounceMs ?? 100;
    this.reconnectDelayMs = options.reconnectDelayMs ?? [100, 5_000];
    this.presenceIntervalMs = options.presenceIntervalMs ?? 30_000;
    this.presenceGraceMs = options.presenceGraceMs ?? 2_000;
  }

  /**
   * True while another instance may be listening: this one is not listening itself (it cannot know), its LISTEN is
   * recent (answers may still be on their way), or another said `hello` or `here` within two intervals.
   */
  get othersListening(): boolean {
    const now = Date.now();
    return (
      this.client === undefined ||
      now - this.listeningSince < this.presenceGraceMs ||
      now - this.othersHeardAt < 2 * this.presenceIntervalMs
    );
  }

  /** Connects and LISTENs once; when that fails, keeps trying in the background (polls cover the gap). */
  async start(): Promise<void> {
    await this.connect();
  }

  /** The backend process id of the listening connection, while connected (tests terminate it). */
  get listenerPid(): number | undefined {
    return (this.client as unknown as { processID?: number | null } | undefined)?.processID ?? undefined;
  }

  subscribe(topic: ChangeTopic, listener: ChangeListener): () => void {
    return this.local.subscribe(topic, listener);
  }

  signal(topic: ChangeTopic): void {
    this.local.receive(topic, 'here');
    if (this.closed || !this.othersListening) return;
    let send = this.sends.get(topic);
    if (!send) this.sends.set(topic, (send = { lastAt: -Infinity, timer: undefined }));
    if (send.timer) return; // the trailing send is already scheduled
    const wait = send.lastAt + this.debounceMs - Date.now();
    if (wait <= 0) return this.send(topic);
    send.timer = setTimeout(() => this.send(topic), wait);
    send.timer.unref();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    clearInterval(this.presenceTimer);
    // Trailing sends go now: a CLI command that appended and exits must still wake the service.
    for (const [topic, send] of this.sends) {
      if (!send.timer) continue;
      clearTimeout(send.timer);
      this.notify(topic);
    }
    await Promise.allSettled([...this.inFlight]);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
    await this.local.close();
  }

  private send(topic: ChangeTopic): void {
    const send = this.sends.get(topic)!;
    send.timer = undefined;
    send.lastAt = Date.now();
    this.notify(topic);
  }

  private notify(topic: ChangeTopic): void {
    // Lost when the database is unreachable: the others' safety polls find the change.
    const sent = this.sender
      .query('SELECT pg_notify($1, $2)', [CHANGE_CHANNELS[topic], this.instance])
      .catch(() => undefined);
    this.inFlight.add(sent);
    void sent.finally(() => this.inFlight.delete(sent));
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client(this.connection);
    client.on('notification', (message) => {
      if (message.channel === PRESENCE_CHANNEL) return this.heard(message.payload ?? '');
      if (message.payload === this.instance) return;
      const topic = TOPICS.find((each) => CHANGE_CHANNELS[each] === message.channel);
      if (topic) this.local.receive(topic, 'elsewhere');
    });
    // Without an 'error' listener a dropped connection would end the process.
    client.on('error', () => this.dropped(client));
    client.on('end', () => this.dropped(client));
    try {
      await client.connect();
      await client.query(
        [...TOPICS.map((topic) => CHANGE_CHANNELS[topic]), PRESENCE_CHANNEL]
          .map((channel) => `LISTEN ${channel}`)
          .join('; '),
      );
    } catch {
      await client.end().catch(() => undefined);
      this.scheduleReconnect();
      return;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.failedConnects = 0;
    this.listeningSince = Date.now();
    this.present('hello');
    if (!this.presenceTimer) {
      this.presenceTimer = setInterval(() => {
        if (this.client) this.present('here');
      }, this.presenceIntervalMs);
      this.presenceTimer.unref();
    }
    // Whatever was signalled while no connection listened is lost: every listener looks again.
    this.local.receive(null, 'resync');
  }

  /** Another instance said it listens; a `hello` (it just LISTENed) is answered at once. */
  private heard(payload: string): void {
    const [kind, sender] = payload.split(':');
    if (!sender || sender === this.instance) return;
    this.othersHeardAt = Date.now();
    if (kind === 'hello') this.present('here');
  }

  private present(kind: 'hello' | 'here'): void {
    const sent = this.sender
      .query('SELECT pg_notify($1, $2)', [PRESENCE_CHANNEL, `${kind}:${this.instance}`])
      .catch(() => undefined);
    this.inFlight.add(sent);
    void sent.finally(() => this.inFlight.delete(sent));
  }

  private dropped(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    void client.end().catch(() => undefined);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.reconnectTimer) return;
    const [first, largest] = this.reconnectDelayMs;
    const delay = Math.min(first * 2 ** this.failedConnects, largest);
    this.failedConnects += 1;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      void this.connect();
    }, delay);
    this.reconnectTimer.unref();
  }
}
