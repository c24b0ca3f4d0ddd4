import { Command } from '@nestjs/cqrs';
import type { CommandEnvelope } from '../../platform/event-sourcing/command-metadata.js';

export interface AddedOperator {
  readonly name: string;
  readonly credentialId: string;
  /** The whole credential: shown once, never stored. */
  readonly credential: string;
}

/** A new operator with its first credential (`operators add`, or the first start). */
export class AddOperator extends Command<AddedOperator> {
  constructor(
    readonly name: string,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

/** Ends an operator credential: the CLI refuses it from then on. */
export class RevokeOperatorCredential extends Command<{ operator: string; revoked: boolean }> {
  constructor(
    readonly credentialId: string,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}
