import { Command } from '@nestjs/cqrs';
import type { Principal } from '../../platform/auth/access.js';
import type { CommandEnvelope } from '../../platform/event-sourcing/command-metadata.js';
import type { ControlRecord } from '../domain/control-records.js';
import type { BillingMode } from '../domain/scope-declaration.js';

export interface ScopeBody {
  readonly name: unknown;
  readonly domain: unknown;
  readonly timezone: unknown;
  readonly addresses: unknown;
  readonly monitoring: unknown;
  readonly creditLimit: unknown;
}

/** Creates an exposure scope (a space); capacity billing starts an initial refresh from stored observations. */
export class CreateExposureScope extends Command<{ scopeId: string }> {
  constructor(
    readonly principal: Principal,
    readonly organizationId: string,
    readonly body: ScopeBody,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

/** Deletes a client (space): access ends now, its grants are withdrawn and its refreshes cancelled. */
export class DeleteClient extends Command<void> {
  constructor(
    readonly principal: Principal,
    readonly organizationId: string,
    readonly spaceId: string,
    readonly confirmName: unknown,
    readonly expectedVersion: number,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

export class RestoreClient extends Command<void> {
  constructor(
    readonly principal: Principal,
    readonly organizationId: string,
    readonly spaceId: string,
    readonly expectedVersion: number,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

export class ChangeScopeTimezone extends Command<void> {
  constructor(
    readonly principal: Principal,
    readonly organizationId: string,
    readonly scopeId: string,
    readonly body: { timezone: unknown; version: unknown },
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

/** Operator: makes an organization an Exposition organization (404 for an unknown organization). */
export class EnableExposition extends Command<{ changed: boolean }> {
  constructor(
    readonly organizationId: string,
    readonly billing: BillingMode,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

export class DisableExposition extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

/** Operator: historical control records of a scope (404 when it is not an exposure scope). */
export class ImportControlRecords extends Command<{ position: string }> {
  constructor(
    readonly scopeId: string,
    readonly records: readonly ControlRecord[],
    /** The operator's envelope; the handler names the scope's organization as payer once it is known. */
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}
