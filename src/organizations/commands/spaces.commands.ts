import { Command } from '@nestjs/cqrs';
import type { Principal } from '../../platform/auth/access.js';
import type { CommandEnvelope } from '../../platform/event-sourcing/command-metadata.js';
import type { SpaceCommand, SpaceKind } from '../domain/space.js';

/** A client or asset scope space (General research is created with the organization). */
export class CreateSpace extends Command<{ spaceId: string }> {
  constructor(
    readonly principal: Principal,
    readonly organizationId: string,
    readonly space: {
      readonly name: string;
      readonly kind: SpaceKind;
      readonly creditLimit: number | null;
      readonly monitoring: boolean;
    },
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

/**
 * A change of a space the caller manages (rename, archive, restore, credit limit, monitoring, shares);
 * `expectedVersion`: the version the client read (If-Match), a stale one is a 409.
 */
export class ChangeSpace extends Command<void> {
  constructor(
    readonly principal: Principal,
    readonly organizationId: string,
    readonly spaceId: string,
    readonly command: SpaceCommand,
    readonly envelope: CommandEnvelope,
    readonly expectedVersion?: number,
  ) {
    super();
  }
}
