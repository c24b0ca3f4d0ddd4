import { randomUUID } from 'node:crypto';
import { NestFactory } from '@nestjs/core';
import { CommandBus } from '@nestjs/cqrs';
import type { DynamicModule, INestApplicationContext, Type } from '@nestjs/common';
import { ConfigError, loadConfig } from '../config/app-config.js';
import { describeThrown } from '../errors/describe-thrown.js';
import { commandEnvelope, type CommandEnvelope, type Payer } from '../event-sourcing/command-metadata.js';
import { ServiceContext, type ServiceContextOptions } from '../service-context.js';
import {
  OperatorRefused,
  readCredentialFile,
  requiredReason,
  writeCredentialFile,
  type CliOperators,
  type OperatorIdentity,
} from './operator-access.js';

/** What the CLI's process is made of (src/cli.ts passes serviceComposition). */
export type CliComposition = Pick<ServiceContextOptions, 'projections' | 'features' | 'upcasters'>;

/** Shared by every CLI command: storage opened on demand, output as text or JSON, clean exit codes. */
export class CliRuntime {
  private context: ServiceContext | undefined;
  private application: INestApplicationContext | undefined;
  private readonly output = new AbortController();
  private operator: OperatorIdentity | undefined;
  private credentialFile: string | undefined;
  /** Names every event of this invocation (`requestId`, ADR 69). */
  readonly invocationId = randomUUID();

  constructor(
    private readonly composition: CliComposition,
    /** The application's root module on a context (AppModule.forContext): the same handlers as HTTP. */
    private readonly rootModule: (context: ServiceContext) => DynamicModule,
    /** Who may run operator commands (the operators feature); absent, every operator command is refused. */
    private readonly operators?: CliOperators,
  ) {}

  /** `--operator-credential-file`: read the credential there instead of OPERATOR_CREDENTIAL or the default file. */
  useCredentialFile(path: string | undefined): void {
    this.credentialFile = path;
  }

  /**
   * The envelope of an operator command (ADR 68): the operator its credential proves acts, on behalf of `payer`,
   * from the CLI surface, with this invocation's id and the reason. `reasonRequired` refuses a command that moves
   * money or changes access without `--reason`, before anything is opened.
   */
  async operatorEnvelope(options: {
    readonly command: string;
    readonly payer: Payer;
    readonly scope?: string | null;
    readonly reason: string | undefined;
    readonly reasonRequired: boolean;
    /** What the command changes, in the refusal without a reason (default: moves money or changes access). */
    readonly changes?: string;
  }): Promise<CommandEnvelope> {
    const reason = options.reasonRequired
      ? requiredReason(options.reason, options.command, options.changes)
      : options.reason?.trim() || undefined;
    if (reason !== undefined) requiredReason(reason, options.command);
    const operator = await this.authenticate();
    return commandEnvelope({
      actor: `operator:${operator.name}`,
      payer: options.payer,
      ...(options.scope !== undefined ? { scope: options.scope } : {}),
      credential: `operator_credential:${operator.credentialId}`,
      surface: 'cli',
      requestId: this.invocationId,
      ...(reason !== undefined ? { reason } : {}),
    });
  }

  /** The operator running this invocation, proved by its credential once; refuses (OperatorRefused) otherwise. */
  async authenticate(): Promise<OperatorIdentity> {
    if (this.operator) return this.operator;
    if (!this.operators) throw new OperatorRefused('this CLI has no operator registry');
    const config = loadConfig();
    const file = this.credentialFile ?? config.operatorCredentialFile;
    let credential: string | null;
    let source: string;
    if (this.credentialFile !== undefined) {
      credential = await readCredentialFile(this.credentialFile);
      source = `--operator-credential-file ${this.credentialFile}`;
      if (credential === null) throw new OperatorRefused(`${source} does not exist`);
    } else if (config.operatorCredential !== undefined) {
      credential = config.operatorCredential;
      source = 'OPERATOR_CREDENTIAL';
    } else {
      credential = await readCredentialFile(file);
      source = file;
      // The first start of an empty store creates the first operator and leaves its credential here.
      if (credential === null) {
        const first = await this.operators.createFirst(this);
        if (first !== null) {
          await writeCredentialFile(file, first);
          credential = first;
          process.stderr.write(`first operator "admin" created; its credential is in ${file} (mode 0600)\n`);
        }
      }
      if (credential === null) {
        throw new OperatorRefused(
          `this command needs an operator credential: none in ${file}; set OPERATOR_CREDENTIAL or pass ` +
            '--operator-credential-file <path> (`operators add` prints one; the first start wrote the first to DATA_DIR)',
        );
      }
    }
    const context = await this.open();
    try {
      this.operator = await this.operators.authenticate(context, credential);
    } catch (error) {
      if (error instanceof OperatorRefused) throw new OperatorRefused(`${error.message} (from ${source})`);
      throw error;
    }
    return this.operator;
  }

  /**
   * Once for the whole CLI: a reader that stops reading (`| head`) ends the output quietly instead of an EPIPE
   * stack trace. Commands see `outputClosed`, stop producing output and end with their usual exit code.
   */
  endQuietlyWhenOutputCloses(stdout: NodeJS.WriteStream = process.stdout): void {
    stdout.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      this.output.abort();
    });
  }

  /** Aborted once nobody reads stdout any more. */
  get outputClosed(): AbortSignal {
    return this.output.signal;
  }

  /** Writes to stdout unless its reader is gone. */
  write(text: string): void {
    if (!this.output.signal.aborted) process.stdout.write(text);
  }

  /**
   * Opens the configured storage. With the embedded database, this connects through the running service's
   * socket, or owns DATA_DIR itself (and serves it) when no service runs.
   */
  async open(options: { readonly followProjections?: boolean } = {}): Promise<ServiceContext> {
    if (!this.context) {
      this.context = await ServiceContext.open(loadConfig(), {
        ...this.composition,
        serveSocket: true,
        ownerName: 'cli',
      });
      // Owning the embedded database means no service runs: nobody follows the log unless we do.
      this.context.projectionsFollowed = this.context.storage.sqlRole !== 'owner';
    }
    if (options.followProjections && !this.context.projectionsFollowed) {
      // Commands that read models (accounts by email, keys) need them current: follow the log ourselves.
      await this.context.projections.start();
      this.context.projectionsFollowed = true;
      const deadline = Date.now() + 120_000;
      while (!this.context.projections.allLive() && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
    }
    return this.context;
  }

  /** The same command handlers the HTTP routes use, without the HTTP server. */
  async commands(): Promise<CommandBus> {
    if (!this.application) {
      const context = await this.open({ followProjections: true });
      this.application = await NestFactory.createApplicationContext(this.rootModule(context), {
        logger: false,
      });
    }
    return this.application.get(CommandBus);
  }

  /** A provider of the application (the same services the HTTP routes use), e.g. a context's command facade. */
  async get<T>(token: Type<T> | symbol): Promise<T> {
    await this.commands();
    return this.application!.get<T>(token);
  }

  async close(): Promise<void> {
    await this.application?.close();
    this.application = undefined;
    await this.context?.close();
    this.context = undefined;
  }

  print(json: boolean, value: unknown, text: () => string): void {
    this.write(json ? `${JSON.stringify(value, jsonBigInt, 2)}\n` : `${text()}\n`);
  }
}

function jsonBigInt(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

/** Wraps a command action: opens nothing itself, reports failures on stderr, sets the exit code. */
export function action<A extends unknown[]>(
  runtime: CliRuntime,
  run: (...args: A) => Promise<number | void>,
): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      const code = await run(...args);
      process.exitCode = code ?? 0;
    } catch (error) {
      if (error instanceof ConfigError) process.stderr.write(`${error.message}\n`);
      else if (error instanceof OperatorRefused)
        process.stderr.write(`refused: ${error.message} (${error.code})\n`);
      else process.stderr.write(`error: ${error instanceof Error ? error.message : describeThrown(error)}\n`);
      process.exitCode =
        error instanceof ConfigError ? 2 : error instanceof OperatorRefused ? error.exitCode : 1;
    } finally {
      await runtime.close();
    }
  };
}
