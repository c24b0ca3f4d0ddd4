import type { Command } from 'commander';
import type { RecordedEvent } from '../event-store/event-store.port.js';
import { isGlobalPosition, type GlobalPosition } from '../event-store/global-position.js';
import { action, type CliRuntime } from './cli-runtime.js';
import { registerIntegrityCommands } from './event-integrity.commands.js';

/** One event as an auditor reads it: when, what, who did it, on whose behalf, and why. */
export function describeEvent(event: RecordedEvent): string {
  const meta = event.metadata;
  return [
    `${event.recordedAt}  ${event.type} (v${event.schemaVersion})  ${event.streamId}@${event.streamVersion}`,
    `    by ${meta.actor} on behalf of ${meta.payer}${meta.scope ? ` in scope ${meta.scope}` : ''}`,
    ...attributionLines(event),
    `    correlation ${meta.correlationId}, caused by ${meta.causationId}, event ${event.id}, position ${event.position}`,
    `    ${JSON.stringify(event.data)}`,
  ].join('\n');
}

export function eventAsJson(event: RecordedEvent): Record<string, unknown> {
  return {
    position: event.position,
    stream: event.streamId,
    stream_version: event.streamVersion,
    id: event.id,
    type: event.type,
    schema_version: event.schemaVersion,
    recorded_at: event.recordedAt,
    actor: event.metadata.actor,
    payer: event.metadata.payer,
    scope: event.metadata.scope,
    correlation_id: event.metadata.correlationId,
    causation_id: event.metadata.causationId,
    ...attributionJson(event),
    data: event.data,
  };
}

/** The credential, surface, client, request and reason (ADR 68, 109), where the event records them. */
function attributionLines(event: RecordedEvent): string[] {
  const meta = event.metadata;
  const via = [
    meta.credential !== undefined ? `credential ${meta.credential ?? 'none'}` : null,
    meta.surface !== undefined ? `surface ${meta.surface}` : null,
    meta.clientId !== undefined ? `client ${meta.clientId}` : null,
    meta.requestId !== undefined ? `request ${meta.requestId}` : null,
  ].filter((part): part is string => part !== null);
  return [
    ...(via.length > 0 ? [`    via ${via.join(', ')}`] : []),
    ...(meta.reason !== undefined ? [`    reason: ${JSON.stringify(meta.reason)}`] : []),
  ];
}

function attributionJson(event: RecordedEvent): Record<string, unknown> {
  const meta = event.metadata;
  return {
    ...(meta.credential !== undefined ? { credential: meta.credential } : {}),
    ...(meta.surface !== undefined ? { surface: meta.surface } : {}),
    ...(meta.clientId !== undefined ? { client_id: meta.clientId } : {}),
    ...(meta.requestId !== undefined ? { request_id: meta.requestId } : {}),
    ...(meta.reason !== undefined ? { reason: meta.reason } : {}),
  };
}

export function registerEventCommands(program: Command, runtime: CliRuntime): void {
  const events = program.command('events').description('the attributed event log');

  events
    .command('tail')
    .description('the newest events of the global log (and, with --follow, new ones as they are recorded)')
    .option('-n, --limit <n>', 'how many of the newest events to show', '20')
    .option('--after <position>', 'start after this global position instead')
    .option('-f, --follow', 'keep printing new events until interrupted')
    .option('--json', 'one JSON document per line')
    .action(
      action(
        runtime,
        async (options: { limit: string; after?: string; follow?: boolean; json?: boolean }) => {
          const limit = Number(options.limit);
          if (!Number.isInteger(limit) || limit < 1 || limit > 10_000)
            throw new Error('--limit must be from 1 to 10000');
          if (options.after && !isGlobalPosition(options.after))
            throw new Error('--after must be a global position');
          const { eventStore } = (await runtime.open()).storage;
          const print = (event: RecordedEvent): void =>
            runtime.write(
              options.json ? `${JSON.stringify(eventAsJson(event))}\n` : `${describeEvent(event)}\n`,
            );
          let after: GlobalPosition | null = (options.after as GlobalPosition | undefined) ?? null;
          if (!options.after) {
            const newest = await eventStore.readLast(limit);
            newest.forEach(print);
            after = newest.at(-1)?.position ?? (await eventStore.headPosition());
          } else {
            const page = await eventStore.readAll({ after, limit });
            page.forEach(print);
            after = page.at(-1)?.position ?? after;
          }
          if (!options.follow || runtime.outputClosed.aborted) return;
          const interrupted = new AbortController();
          process.once('SIGINT', () => interrupted.abort());
          // Until interrupted, or until nobody reads the output any more (`| head`).
          const signal = AbortSignal.any([interrupted.signal, runtime.outputClosed]);
          for await (const event of eventStore.subscribeAll({ after, signal })) print(event);
        },
      ),
    );

  events
    .command('replay')
    .description("one stream's history in order: who did what, on whose behalf, when")
    .requiredOption('--stream <id>', 'stream id, e.g. account-<id>')
    .option('--from <version>', 'first stream version', '0')
    .option('--json', 'one JSON document per line')
    .action(
      action(runtime, async (options: { stream: string; from: string; json?: boolean }) => {
        const fromVersion = Number(options.from);
        if (!Number.isInteger(fromVersion) || fromVersion < 0)
          throw new Error('--from must be a version from 0');
        const { eventStore } = (await runtime.open()).storage;
        const history = await eventStore.readStream(options.stream, { fromVersion });
        if (history.length === 0) {
          process.stderr.write(
            `stream ${options.stream} has no events${fromVersion ? ` from version ${fromVersion}` : ''}\n`,
          );
          return 5;
        }
        for (const event of history) {
          if (runtime.outputClosed.aborted) break;
          runtime.write(
            options.json ? `${JSON.stringify(eventAsJson(event))}\n` : `${describeEvent(event)}\n`,
          );
        }
        return 0;
      }),
    );

  registerIntegrityCommands(events, runtime);
}
