/**
 * The operator stream (`operator-<name>`, ADR 68): who may run the operator CLI, and with which credentials.
 * The credential secrets are never here: only their ids (the hashes live in the credential table beside the log).
 * Pure decider: time comes from the context, refusals are ServiceErrors.
 */
import type { Decider, DomainEvent } from '../../platform/event-sourcing/decider.js';
import { ServiceError } from '../../platform/errors/service-error.js';

/** Lowercase, starts with a letter, at most 40 characters: it is the operator's identity (`operator:<name>`). */
export const OPERATOR_NAME = /^[a-z][a-z0-9._-]{0,39}$/;
/** The operator the first start creates. */
export const FIRST_OPERATOR_NAME = 'admin';

export function operatorStreamId(name: string): string {
  return `operator-${name}`;
}

export interface AddOperator {
  readonly type: 'AddOperator';
  readonly name: string;
  readonly credentialId: string;
}
export interface RevokeOperatorCredential {
  readonly type: 'RevokeOperatorCredential';
  readonly credentialId: string;
}
export type OperatorCommand = AddOperator | RevokeOperatorCredential;

export type OperatorAdded = DomainEvent<'OperatorAdded', { name: string; addedAt: string }>;
export type OperatorCredentialIssued = DomainEvent<
  'OperatorCredentialIssued',
  { name: string; credentialId: string; issuedAt: string }
>;
export type OperatorCredentialRevoked = DomainEvent<
  'OperatorCredentialRevoked',
  { name: string; credentialId: string; revokedAt: string }
>;
export type OperatorEvent = OperatorAdded | OperatorCredentialIssued | OperatorCredentialRevoked;

export interface OperatorState {
  readonly name: string | null;
  /** Credential id → whether it is still valid. */
  readonly credentials: Readonly<Record<string, boolean>>;
}

export interface OperatorContext {
  readonly now: Date;
}

export const operatorDecider: Decider<OperatorCommand, OperatorEvent, OperatorState, OperatorContext> = {
  initialState: { name: null, credentials: {} },
  decide(command, state, { now }) {
    const at = now.toISOString();
    switch (command.type) {
      case 'AddOperator': {
        if (!OPERATOR_NAME.test(command.name)) {
          throw new ServiceError(
            'invalid_input',
            `an operator name is lowercase letters, digits, ".", "_" or "-", starting with a letter, at most 40 characters; got "${command.name}"`,
          );
        }
        if (state.name !== null) throw new ServiceError('already_exists', `operator ${command.name} exists`);
        return [
          { type: 'OperatorAdded', data: { name: command.name, addedAt: at } },
          {
            type: 'OperatorCredentialIssued',
            data: { name: command.name, credentialId: command.credentialId, issuedAt: at },
          },
        ];
      }
      case 'RevokeOperatorCredential': {
        if (state.name === null || !(command.credentialId in state.credentials)) {
          throw new ServiceError('not_found', `no operator credential ${command.credentialId}`);
        }
        if (!state.credentials[command.credentialId]) return [];
        return [
          {
            type: 'OperatorCredentialRevoked',
            data: { name: state.name, credentialId: command.credentialId, revokedAt: at },
          },
        ];
      }
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'OperatorAdded':
        return { ...state, name: event.data.name };
      case 'OperatorCredentialIssued':
        return { ...state, credentials: { ...state.credentials, [event.data.credentialId]: true } };
      case 'OperatorCredentialRevoked':
        return { ...state, credentials: { ...state.credentials, [event.data.credentialId]: false } };
    }
  },
};
