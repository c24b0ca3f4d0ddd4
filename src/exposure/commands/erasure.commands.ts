import { Command } from '@nestjs/cqrs';
import type { ExposureScopeDocument } from '../../../projections/exposure-scopes.projection.js';

/**
 * Erases a deleted scope after erase_after: `SpaceErasureStarted`, its streams deleted, then `ScopeErased` on
 * the organization's audit stream. Each step is idempotent: a pass interrupted anywhere is finished later.
 */
export class EraseScope extends Command<void> {
  constructor(readonly scope: ExposureScopeDocument) {
    super();
  }
}
