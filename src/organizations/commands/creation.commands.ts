import { Command } from '@nestjs/cqrs';
import type { Principal } from '../../platform/auth/access.js';
import type { CommandEnvelope } from '../../platform/event-sourcing/command-metadata.js';
import type { StartMode } from '../domain/organization.js';

/**
 * Rule 6: the account becomes the owner of a new organization, its purchased credits moving with it. Refused
 * (409) when the preview would refuse, or when the transfer differs from the one the caller previewed.
 */
export class CreateOrganization extends Command<{ organizationId: string }> {
  constructor(
    readonly principal: Principal,
    readonly name: string,
    readonly start: StartMode,
    readonly domain: string | null,
    readonly expectedTransfer: number,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

/** Finishes (or abandons, when nothing moved yet) an interrupted creation of this account. */
export class RecoverOrganizationCreation extends Command<void> {
  constructor(readonly accountId: string) {
    super();
  }
}
