import { allProjections } from '../../projections/index.js';
import type { AppConfig } from './config/app-config.js';
import { systemClock, type Clock } from './clock/clock.js';
import type { ProjectionDefinition } from './projections/projection-definition.js';
import { ProjectionMaintenance } from './projections/projection-maintenance.js';
import { ProjectionRunner } from './projections/projection-runner.js';
import { openStorage, type Storage } from './storage/open-storage.js';

export type LogFunction = (
  level: 'info' | 'warn' | 'error',
  message: string,
  fields?: Record<string, unknown>,
) => void;

/**
 * Everything a running process shares: configuration, clock, storage and the projection runner.
 * Built before Nest so a bad configuration or unreachable storage stops start-up with a clear message;
 * the Nest modules receive it as one provider.
 */
export class ServiceContext {
  private constructor(
    readonly config: AppConfig,
    readonly clock: Clock,
    readonly storage: Storage,
    readonly projections: ProjectionRunner,
    readonly maintenance: ProjectionMaintenance,
  ) {}

  static async open(
    config: AppConfig,
    options: {
      readonly clock?: Clock;
      readonly projections?: readonly ProjectionDefinition[];
      readonly log?: LogFunction;
      readonly serveSocket?: boolean;
      readonly pollIntervalMs?: number;
      readonly dropGraceMs?: number;
    } = {},
  ): Promise<ServiceContext> {
    const clock = options.clock ?? systemClock;
    const storage = await openStorage(config, {
      clock,
      serveSocket: options.serveSocket ?? true,
      ...(options.pollIntervalMs ? { pollIntervalMs: options.pollIntervalMs } : {}),
    });
    // The runner rebuilds outdated projections through maintenance, which follows the runner's engine.
    const late: { maintenance?: ProjectionMaintenance } = {};
    const projections = new ProjectionRunner(
      storage.eventStore,
      storage.readStore,
      options.projections ?? allProjections,
      {
        ...(options.log ? { log: options.log } : {}),
        rebuildOutdated: async (definition) => {
          await late.maintenance!.rebuild(definition);
        },
      },
    );
    const maintenance = new ProjectionMaintenance(projections.engine, {
      ...(options.dropGraceMs !== undefined ? { dropGraceMs: options.dropGraceMs } : {}),
      onSwitched: (name) => projections.generationSwitched(name),
    });
    late.maintenance = maintenance;
    return new ServiceContext(config, clock, storage, projections, maintenance);
  }

  async close(): Promise<void> {
    await this.projections.stop();
    await this.storage.close();
  }
}
