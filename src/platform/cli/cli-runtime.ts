import { NestFactory } from '@nestjs/core';
import { CommandBus } from '@nestjs/cqrs';
import type { DynamicModule, INestApplicationContext, Type } from '@nestjs/common';
import { ConfigError, loadConfig } from '../config/app-config.js';
import { describeThrown } from '../errors/describe-thrown.js';
import { ServiceContext, type ServiceContextOptions } from '../service-context.js';

/** What the CLI's process is made of (src/cli.ts passes serviceComposition). */
export type CliComposition = Pick<ServiceContextOptions, 'projections' | 'features' | 'upcasters'>;

/** Shared by every CLI command: storage opened on demand, output as text or JSON, clean exit codes. */
export class CliRuntime {
  private context: ServiceContext | undefined;
  private application: INestApplicationContext | undefined;
  private readonly output = new AbortController();

  constructor(
    private readonly composition: CliComposition,
    /** The application's root module on a context (AppModule.forContext): the same handlers as HTTP. */
    private readonly rootModule: (context: ServiceContext) => DynamicModule,
  ) {}

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
      else process.stderr.write(`error: ${error instanceof Error ? error.message : describeThrown(error)}\n`);
      process.exitCode = error instanceof ConfigError ? 2 : 1;
    } finally {
      await runtime.close();
    }
  };
}
