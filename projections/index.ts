import type { ProjectionDefinition } from '../src/platform/projections/projection-definition.js';
import { eventStreamsProjection } from './event-streams.projection.js';

/** Every read model the service maintains. Each module in this folder owns one. */
export const allProjections: readonly ProjectionDefinition[] = [eventStreamsProjection];
