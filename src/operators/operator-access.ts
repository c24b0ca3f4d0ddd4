import type { CommandBus } from '@nestjs/cqrs';
import { operatorSecretMatches, parseOperatorCredential } from '../platform/auth/operator-credentials.js';
import {
  OperatorRefused,
  type CliOperators,
  type OperatorIdentity,
} from '../platform/cli/operator-access.js';
import { commandEnvelope } from '../platform/event-sourcing/command-metadata.js';
import { ServiceError } from '../platform/errors/service-error.js';
import type { EventStore } from '../platform/event-store/event-store.port.js';
import type { ServiceContext } from '../platform/service-context.js';
import { AddOperator } from './commands/operator.commands.js';
import { FIRST_OPERATOR_NAME, operatorDecider, operatorStreamId } from './domain/operator.js';
import { OperatorCredentialTable } from './operator-credential-table.js';

/** The operator a credential proves: its hash matches, and its operator's stream issued it and never revoked it. */
export async function authenticateOperator(
  context: ServiceContext,
  credential: string,
): Promise<OperatorIdentity> {
  const parsed = parseOperatorCredential(credential);
  if (!parsed) throw new OperatorRefused('the operator credential is malformed (expected opc_<id>_<secret>)');
  const row = await new OperatorCredentialTable(context.storage.readStore).get(parsed.credentialId);
  if (!row || !operatorSecretMatches(parsed.secret, row.secretHash)) {
    throw new OperatorRefused('the operator credential is not valid');
  }
  const { state } = await context.reader.load(operatorStreamId(row.operator), operatorDecider);
  const valid = state.credentials[parsed.credentialId];
  if (valid === undefined) throw new OperatorRefused('the operator credential is not valid');
  if (!valid) throw new OperatorRefused(`the operator credential ${parsed.credentialId} was revoked`);
  return { name: row.operator, credentialId: parsed.credentialId };
}

/**
 * The first operator, on a store that has none (the first start, of the service or of the CLI): its credential,
 * or null when it exists already. Recorded as the service's own act.
 */
export async function createFirstOperator(
  commands: CommandBus,
  eventStore: EventStore,
): Promise<string | null> {
  if ((await eventStore.streamVersion(operatorStreamId(FIRST_OPERATOR_NAME))) !== null) return null;
  try {
    const added = await commands.execute(
      new AddOperator(FIRST_OPERATOR_NAME, commandEnvelope({ actor: 'system:first-start', payer: 'system' })),
    );
    return added.credential;
  } catch (error) {
    // Another process started first: its operator is the first.
    if (error instanceof ServiceError && error.code === 'already_exists') return null;
    throw error;
  }
}

/** The CLI's operator registry (src/cli-program.ts passes it to the runtime). */
export const cliOperators: CliOperators = {
  authenticate: authenticateOperator,
  createFirst: async (runtime) => {
    const context = await runtime.open();
    return createFirstOperator(await runtime.commands(), context.storage.eventStore);
  },
};
