/**
 * The operator CLI run inside the test's own process: the program src/cli.ts runs (same commands, output and
 * exit codes), without a Node start-up per command. What differs from a child process is only the process
 * itself: its environment, stdout, stderr and exit code, which are swapped in for the duration of the command,
 * one command at a time. Suites keep a few real processes (runCli) for what only a process shows: pipes, the
 * built code, the exit status the shell sees.
 */
import { Command, CommanderError } from 'commander';
import { createCliProgram, createCliRuntime } from '../../src/cli-program.js';
import { describeThrown } from '../../src/platform/errors/describe-thrown.js';
import { TEST_CLI_DEFAULTS, type CliResult } from './processes.js';

type Write = typeof process.stdout.write;

let previous: Promise<unknown> = Promise.resolve();

/** Runs `exposure-cli <args>` in this process with `env` added to its environment, as runCli does in a child. */
export function runCliInProcess(
  args: readonly string[],
  env: Readonly<Record<string, string>>,
): Promise<CliResult> {
  // The process's streams, environment and exit code are global: one command at a time.
  const result = previous.then(() => runNow(args, { ...TEST_CLI_DEFAULTS, ...env }));
  previous = result.catch(() => undefined);
  return result;
}

async function runNow(args: readonly string[], env: Readonly<Record<string, string>>): Promise<CliResult> {
  const output = { stdout: '', stderr: '' };
  const restore = [
    swapEnvironment(env),
    capture(process.stdout, (text) => (output.stdout += text)),
    capture(process.stderr, (text) => (output.stderr += text)),
    swapExitCode(),
  ];
  let code: number;
  try {
    const program = createCliProgram(createCliRuntime());
    // Commander's own refusals (unknown option, missing argument) end a real process with their exit code.
    forEachCommand(program, (command) => command.exitOverride());
    await program.parseAsync([...args], { from: 'user' });
    code = Number(process.exitCode ?? 0);
  } catch (error) {
    if (error instanceof CommanderError) code = error.exitCode;
    else {
      // What Node does with an error nothing caught: print it, exit 1.
      output.stderr += `${error instanceof Error ? (error.stack ?? error.message) : describeThrown(error)}\n`;
      code = 1;
    }
  } finally {
    for (const undo of restore.reverse()) undo();
  }
  return { code, ...output };
}

function forEachCommand(command: Command, apply: (command: Command) => void): void {
  apply(command);
  for (const sub of command.commands) forEachCommand(sub, apply);
}

function swapEnvironment(env: Readonly<Record<string, string>>): () => void {
  const saved = Object.keys(env).map((name) => [name, process.env[name]] as const);
  Object.assign(process.env, env);
  return () => {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
}

/** Collects what is written to `stream`; it reads as a pipe (not a terminal), as a child's output does. */
function capture(stream: NodeJS.WriteStream, collect: (text: string) => void): () => void {
  const write = stream.write;
  const isTTY = Object.getOwnPropertyDescriptor(stream, 'isTTY');
  Object.defineProperty(stream, 'isTTY', { value: false, configurable: true, writable: true });
  stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    collect(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString());
    const done = rest.find((arg): arg is () => void => typeof arg === 'function');
    if (done) queueMicrotask(done);
    return true;
  }) as Write;
  return () => {
    stream.write = write;
    if (isTTY) Object.defineProperty(stream, 'isTTY', isTTY);
    else delete (stream as { isTTY?: boolean }).isTTY;
  };
}

function swapExitCode(): () => void {
  const saved = process.exitCode;
  process.exitCode = undefined;
  return () => {
    process.exitCode = saved;
  };
}
