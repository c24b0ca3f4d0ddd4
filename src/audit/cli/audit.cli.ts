import type { Command } from 'commander';
import type { AuditEntryDocument } from '../../../projections/audit-index.projection.js';
import { auditKey } from '../../../projections/audit-index.projection.js';
import { action, type CliRuntime } from '../../platform/cli/cli-runtime.js';
import { describeEvent, eventAsJson } from '../../platform/cli/event.commands.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import type { RecordedEvent } from '../../platform/event-store/event-store.port.js';
import { AUDIT_PAGE_MAX, AuditLog, parseBound, parseCursor } from '../queries/audit-log.js';

interface SearchOptions {
  readonly account?: string;
  readonly organization?: string;
  readonly scope?: string;
  readonly actor?: string;
  readonly type?: string;
  readonly since?: string;
  readonly until?: string;
  readonly limit: string;
  readonly after?: string;
  readonly json?: boolean;
}

/** The attribution an entry carries beside the event's own envelope (present once commands record it). */
function attribution(entry: AuditEntryDocument): Record<string, unknown> {
  return {
    reason: entry.reason,
    credential: entry.credential,
    surface: entry.surface,
    request_id: entry.requestId,
  };
}

/** An entry whose event can no longer be read (erased meanwhile): its envelope, without data. */
function entryAsJson(entry: AuditEntryDocument): Record<string, unknown> {
  return {
    position: entry.position,
    stream: entry.stream,
    stream_version: entry.streamVersion,
    id: entry.eventId,
    type: entry.type,
    recorded_at: entry.recordedAt,
    actor: entry.actor,
    payer: entry.payer,
    scope: entry.scope,
    correlation_id: entry.correlationId,
    causation_id: entry.causationId,
    data: null,
  };
}

/** `events search`: one account's, organization's, scope's or actor's events, paged, from the audit index. */
export function registerAuditCommands(program: Command, runtime: CliRuntime): void {
  const events =
    program.commands.find((command) => command.name() === 'events') ??
    program.command('events').description('the attributed event log');
  events
    .command('search')
    .description(
      "one account's, organization's, scope's or actor's events in log order, paged (ids or an email, no stream names)",
    )
    .option('--account <id|email>', 'events of this account: acted, paid for, on its streams or naming it')
    .option('--organization <id>', "events of this organization, its spaces' included")
    .option('--scope <id>', 'events of this exposure scope or client space')
    .option('--actor <actor>', 'events done by account:<id>, operator:<name>, system:<component> or an email')
    .option('--type <type>', 'only events of this type')
    .option('--since <time|position>', 'from this ISO-8601 time or global position (inclusive)')
    .option('--until <time|position>', 'up to this ISO-8601 time or global position (inclusive)')
    .option('-n, --limit <n>', `events per page (1 to ${AUDIT_PAGE_MAX})`, '50')
    .option('--after <cursor>', 'the next page: the cursor the previous page printed')
    .option('--json', 'one JSON document: {events, next_cursor}')
    .action(
      action(runtime, async (options: SearchOptions) => {
        const subjects = (['account', 'organization', 'scope', 'actor'] as const).filter(
          (subject) => options[subject] !== undefined,
        );
        if (subjects.length !== 1)
          throw new ServiceError(
            'invalid_input',
            'name exactly one of --account, --organization, --scope or --actor',
          );
        const limit = Number(options.limit);
        if (!Number.isInteger(limit) || limit < 1 || limit > AUDIT_PAGE_MAX)
          throw new ServiceError('invalid_input', `--limit must be from 1 to ${AUDIT_PAGE_MAX}`);
        const since = options.since === undefined ? undefined : parseBound(options.since, '--since');
        const until = options.until === undefined ? undefined : parseBound(options.until, '--until');
        const after = options.after === undefined ? undefined : parseCursor(options.after, '--after');

        const context = await runtime.open({ followProjections: true });
        const { eventStore } = context.storage;
        // Read what is recorded so far: the index (and the account directory) caught up to the log's head.
        const head = await eventStore.headPosition();
        const current = head
          ? await context.projections.waitFor(['audit-index', 'accounts'], head, 60_000)
          : true;
        if (!current)
          process.stderr.write(
            `warning: the audit index has not reached ${head} yet (a rebuild?): this page may miss newer events\n`,
          );
        const log = new AuditLog({
          projections: context.projections,
          eventStore,
          credentials: context.credentials,
        });
        const subject = subjects[0]!;
        const reference = options[subject]!;
        const key =
          subject === 'account'
            ? auditKey('account', await log.accountId(reference))
            : subject === 'actor'
              ? await log.actorKey(reference)
              : auditKey(subject, reference);
        const page = await log.page({
          key,
          limit,
          ...(options.type ? { type: options.type } : {}),
          ...(since ? { since } : {}),
          ...(until ? { until } : {}),
          ...(after ? { after } : {}),
        });

        const read = async (entry: AuditEntryDocument): Promise<RecordedEvent | null> =>
          (await eventStore.readStream(entry.stream, { fromVersion: entry.streamVersion, maxCount: 1 })).find(
            (event) => event.id === entry.eventId,
          ) ?? null;
        if (options.json) {
          const found = [];
          for (const entry of page.entries) {
            const event = await read(entry);
            found.push({ ...(event ? eventAsJson(event) : entryAsJson(entry)), ...attribution(entry) });
          }
          runtime.write(`${JSON.stringify({ key, events: found, next_cursor: page.nextCursor })}\n`);
          return 0;
        }
        for (const entry of page.entries) {
          if (runtime.outputClosed.aborted) return 0;
          const event = await read(entry);
          const why = entry.reason ? `\n    reason: ${entry.reason}` : '';
          runtime.write(
            event
              ? `${describeEvent(event)}${why}\n`
              : `${entry.recordedAt}  ${entry.type}  ${entry.stream}@${entry.streamVersion}  (no longer readable)${why}\n`,
          );
        }
        runtime.write(
          page.nextCursor
            ? `next page: --after ${page.nextCursor}\n`
            : `${page.entries.length === 0 ? 'no events' : 'end'} (${key})\n`,
        );
        return 0;
      }),
    );
}
