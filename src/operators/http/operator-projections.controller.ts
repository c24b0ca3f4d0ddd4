import { Controller, Inject } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { projectionStatus, type ProjectionStatusRow } from '../../platform/projections/projection-status.js';
import { Route } from '../../platform/http/route.js';
import { ServiceContext } from '../../platform/service-context.js';
import { OPERATOR_PROJECTIONS } from './operator.openapi.js';

/** The `operator` surface (ADR 119): an operator credential as Bearer, read-only. */
export const OPERATOR_READ = { surface: 'operator', permission: 'operator.read' } as const;

/**
 * What `projections status` prints, over HTTP for the console's operator page (issue 19): each projection's
 * generation, position, lag behind the log head, state and a running rebuild's progress. Read-only: rebuilds
 * stay on the CLI, where they are ordered with a reason.
 */
@ApiTags('operator')
@Controller('api/v2/operator')
export class OperatorProjectionsController {
  constructor(@Inject(ServiceContext) private readonly context: ServiceContext) {}

  @Route({
    method: 'GET',
    path: 'projections',
    access: OPERATOR_READ,
    summary:
      "Each projection's generation, position, lag (events behind the log head), state and rebuild progress",
    answer: { status: 200, schema: OPERATOR_PROJECTIONS },
  })
  async projections(): Promise<{
    head_position: string | null;
    read_at: string;
    projections: ProjectionStatusRow[];
  }> {
    const head = await this.context.storage.eventStore.headPosition();
    const projections = await projectionStatus(this.context);
    return { head_position: head, read_at: this.context.clock.now().toISOString(), projections };
  }
}
