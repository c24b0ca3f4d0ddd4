import { Inject } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { OrganizationGate } from '../commands/organization-access.js';
import { OrganizationQueries } from '../queries/organization-queries.js';

/**
 * What every organization controller uses: the command bus its writes go through, the gate and the queries its
 * answers are read with. A controller that needs more injects it as a property.
 */
export abstract class OrganizationHandlers {
  constructor(
    @Inject(CommandBus) protected readonly commands: CommandBus,
    @Inject(OrganizationGate) protected readonly gate: OrganizationGate,
    @Inject(OrganizationQueries) protected readonly queries: OrganizationQueries,
  ) {}
}
