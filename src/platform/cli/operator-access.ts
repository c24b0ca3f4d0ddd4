/**
 * What the CLI runtime needs to know who runs an operator command (ADR 68). The operators feature implements it
 * (the composition root passes it in): the platform only reads the credential and asks.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { ServiceContext } from '../service-context.js';
import type { CliRuntime } from './cli-runtime.js';

/** The operator a valid credential proves. */
export interface OperatorIdentity {
  readonly name: string;
  readonly credentialId: string;
}

export interface CliOperators {
  /** The operator this credential proves; throws OperatorRefused when it proves none. */
  authenticate(context: ServiceContext, credential: string): Promise<OperatorIdentity>;
  /** On a store with no operator yet: creates the first one and returns its credential; null when one exists. */
  createFirst(runtime: CliRuntime): Promise<string | null>;
}

/** Exit status of an operator command refused for its credential (sysexits' EX_NOPERM). */
export const OPERATOR_REFUSED_EXIT = 77;
/** Exit status of an operator command refused for a missing `--reason` (a usage error). */
export const REASON_REQUIRED_EXIT = 2;
export const MAX_REASON_LENGTH = 500;

/** Why an operator command was refused, as a stable code (printed with the message). */
export type OperatorRefusal = 'operator_credential_refused' | 'reason_required' | 'reason_invalid';

/** An operator command refused before it ran: no valid operator credential, or no reason given. */
export class OperatorRefused extends Error {
  override readonly name = 'OperatorRefused';
  constructor(
    message: string,
    readonly exitCode: number = OPERATOR_REFUSED_EXIT,
    readonly code: OperatorRefusal = 'operator_credential_refused',
  ) {
    super(message);
  }
}

/** What a command that needs a reason does, unless it says otherwise. */
export const MOVES_MONEY_OR_ACCESS = 'moves money or changes access';

/**
 * The reason of a money-moving, access-changing or data-loading command: required, one line of at most 500
 * characters. `changes` says what the command changes (in the refusal).
 */
export function requiredReason(
  reason: string | undefined,
  command: string,
  changes: string = MOVES_MONEY_OR_ACCESS,
): string {
  const text = reason?.trim() ?? '';
  if (text === '') {
    throw new OperatorRefused(
      `${command} ${changes}: say why with --reason <text> (recorded on the event)`,
      REASON_REQUIRED_EXIT,
      'reason_required',
    );
  }
  if (text.length > MAX_REASON_LENGTH || /[\r\n]/.test(text)) {
    throw new OperatorRefused(
      `--reason must be one line of at most ${MAX_REASON_LENGTH} characters`,
      REASON_REQUIRED_EXIT,
      'reason_invalid',
    );
  }
  return text;
}

/** Reads a credential file; null when it does not exist. */
export async function readCredentialFile(path: string): Promise<string | null> {
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return null;
    throw error;
  }
}

/** Writes a credential file readable by its owner only (0600), replacing a stale one whole. */
export async function writeCredentialFile(path: string, credential: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(temp, 'wx', 0o600);
  try {
    await handle.writeFile(`${credential}\n`, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await chmod(temp, 0o600);
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}
