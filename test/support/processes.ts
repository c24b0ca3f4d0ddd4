import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

export const PROJECT_ROOT = resolve(import.meta.dirname, '../..');
/** Node 24 from the `node` dev dependency, as npm scripts use it. */
export const NODE = resolve(PROJECT_ROOT, 'node_modules/.bin/node');

/**
 * What every CLI run of the tests starts from. The operator credential comes from the test's DATA_DIR (the first
 * operator command creates it there), never from the shell running the tests.
 */
export const TEST_CLI_DEFAULTS: Readonly<Record<string, string>> = {
  LOG_LEVEL: 'silent',
  SEED_DEMO: 'false',
  OPERATOR_CREDENTIAL: '',
  OPERATOR_CREDENTIAL_FILE: '',
};

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the built CLI (dist/src/cli.js) as a separate process, as an operator would. */
export function runCli(
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  timeoutMs = 60_000,
): Promise<CliResult> {
  return runCommand(
    NODE,
    [resolve(PROJECT_ROOT, 'dist/src/cli.js'), ...args],
    env,
    `cli ${args.join(' ')}`,
    timeoutMs,
  );
}

/** Runs `cli <args> | <reader>` in bash with pipefail: the exit code is the CLI's unless it succeeded. */
export function runCliPiped(
  args: readonly string[],
  reader: string,
  env: Readonly<Record<string, string>>,
  timeoutMs = 60_000,
): Promise<CliResult> {
  const quoted = args.map((arg) => `'${arg}'`).join(' ');
  const command = `set -o pipefail; '${NODE}' dist/src/cli.js ${quoted} | ${reader}`;
  return runCommand('bash', ['-c', command], env, command, timeoutMs);
}

/** One process in the project root with the test environment, its output collected; killed past the timeout. */
function runCommand(
  file: string,
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  label: string,
  timeoutMs: number,
): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(file, args, {
      cwd: PROJECT_ROOT,
      env: { ...process.env, ...TEST_CLI_DEFAULTS, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${label} timed out\n${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code: code ?? -1, stdout, stderr });
    });
  });
}

export interface ServiceProcess {
  readonly child: ChildProcess;
  readonly baseUrl: string;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts the built service (dist/src/main.js) on a free port and waits for its banner. */
export function startServiceProcess(
  env: Readonly<Record<string, string>>,
  timeoutMs = 60_000,
): Promise<ServiceProcess> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(NODE, [resolve(PROJECT_ROOT, 'dist/src/main.js')], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, PORT: '0', LOG_LEVEL: 'warn', SEED_DEMO: 'false', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`service did not start:\n${output}`));
    }, timeoutMs);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolvePromise({
          child,
          baseUrl: match[1]!,
          output: () => output,
          stop: async (signal = 'SIGTERM') => {
            if (child.exitCode === null) child.kill(signal);
            return exited;
          },
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code} before listening:\n${output}`));
    });
  });
}
