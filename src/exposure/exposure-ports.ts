import type { CommandBus } from '@nestjs/cqrs';
import type { Clock } from '../platform/clock/clock.js';
import type { EventStore } from '../platform/event-store/event-store.port.js';
import type { StreamWriter } from '../platform/event-sourcing/stream-writer.js';
import type { BackgroundChecks } from '../platform/health/background-checks.js';
import type { ProjectionRunner } from '../platform/projections/projection-runner.js';
import type { ReadStore } from '../platform/read-store/read-store.port.js';
import type { LogFunction } from '../platform/service-context.js';

/** The file store of frozen report documents (gzip), behind the same port as export files. */
export const REPORT_FILES = Symbol('ReportFiles');
/** The service logger, for background workers' warnings. */
export const EXPOSURE_LOG = Symbol('ExposureLog');

/** What the exposure background workers use: they change state through the command bus only. */
export interface ExposureWorkerPorts {
  readonly commands: CommandBus;
  readonly writer: StreamWriter;
  readonly projections: ProjectionRunner;
  readonly eventStore: EventStore;
  readonly clock: Clock;
  readonly background: BackgroundChecks;
  readonly readStore: ReadStore;
  readonly log: LogFunction;
}

/** The provider of ExposureWorkerPorts in the exposure modules. */
export const EXPOSURE_WORKER_PORTS = Symbol('ExposureWorkerPorts');
