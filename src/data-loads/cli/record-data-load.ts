import { createHash } from 'node:crypto';
import type { CliRuntime } from '../../platform/cli/cli-runtime.js';
import { requiredReason } from '../../platform/cli/operator-access.js';
import type { CommandEnvelope } from '../../platform/event-sourcing/command-metadata.js';
import { RecordDataLoadCommand, type RecordedDataLoad } from '../commands/data-load.commands.js';
import type { RecordDataLoad } from '../domain/data-load.js';

/** The `--reason` option's help of every data load. */
export const LOAD_REASON_HELP =
  'why (required: a load changes what the service identifies, returns or enriches; recorded on the event)';

const LOAD_CHANGES = 'changes what the service identifies, returns or enriches';

/** Refuses a load without `--reason` before anything is read or opened (exit 2, `reason_required`). */
export function checkLoadReason(command: string, reason: string | undefined): void {
  requiredReason(reason, command, LOAD_CHANGES);
}

/**
 * The envelope of a data load (ADR 110): `--reason` and the operator's credential, checked before anything is
 * written, as for the commands that move money or change access.
 */
export function dataLoadEnvelope(
  runtime: CliRuntime,
  command: string,
  reason: string | undefined,
): Promise<CommandEnvelope> {
  return runtime.operatorEnvelope({
    command,
    payer: 'system',
    reason,
    reasonRequired: true,
    changes: LOAD_CHANGES,
  });
}

/** Appends the load's event through its command handler, on behalf of the envelope's operator. */
export async function recordDataLoad(
  runtime: CliRuntime,
  envelope: CommandEnvelope,
  load: RecordDataLoad,
): Promise<RecordedDataLoad> {
  const bus = await runtime.commands();
  return bus.execute(new RecordDataLoadCommand(load, envelope));
}

/** SHA-256 of a file's bytes, as the load events record it. */
export function sha256Of(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}
