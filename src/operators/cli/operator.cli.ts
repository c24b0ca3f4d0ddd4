import type { Command } from 'commander';
import { action, type CliRuntime } from '../../platform/cli/cli-runtime.js';
import { AddOperator, RevokeOperatorCredential } from '../commands/operator.commands.js';

/**
 * Operators and their credentials (ADR 68). Adding an operator or revoking a credential changes who may act, so
 * both need an operator's credential and a reason.
 */
export function registerOperatorCommands(program: Command, runtime: CliRuntime): void {
  const operators = program
    .command('operators')
    .description('who may run operator commands, and with which credential');

  operators
    .command('add')
    .description('add an operator; prints its credential once (keep it: it is never shown again)')
    .argument('<name>', 'lowercase name, e.g. alice (events name it operator:<name>)')
    .option('--reason <text>', 'why (required; recorded on the event)')
    .option('--json', 'machine-readable output')
    .action(
      action(runtime, async (name: string, options: { reason?: string; json?: boolean }) => {
        const envelope = await runtime.operatorEnvelope({
          command: 'operators add',
          payer: 'system',
          reason: options.reason,
          reasonRequired: true,
        });
        const bus = await runtime.commands();
        const added = await bus.execute(new AddOperator(name, envelope));
        runtime.print(
          Boolean(options.json),
          { operator: added.name, credential_id: added.credentialId, credential: added.credential },
          () =>
            `${added.credential}\n(operator ${added.name}, credential id ${added.credentialId}; ` +
            'this is the only time the credential is shown: pass it as OPERATOR_CREDENTIAL or in a file)',
        );
      }),
    );

  operators
    .command('revoke')
    .description('revoke an operator credential: the CLI refuses it from then on')
    .argument('<credential-id>', 'the credential id (the part after opc_ in the credential)')
    .option('--reason <text>', 'why (required; recorded on the event)')
    .option('--json', 'machine-readable output')
    .action(
      action(runtime, async (credentialId: string, options: { reason?: string; json?: boolean }) => {
        const envelope = await runtime.operatorEnvelope({
          command: 'operators revoke',
          payer: 'system',
          reason: options.reason,
          reasonRequired: true,
        });
        const bus = await runtime.commands();
        const id = credentialId.replace(/^opc_/, '').split('_')[0] ?? credentialId;
        const { operator, revoked } = await bus.execute(new RevokeOperatorCredential(id, envelope));
        runtime.print(Boolean(options.json), { operator, credential_id: id, revoked }, () =>
          revoked ? `revoked ${id} of operator ${operator}` : `${id} was already revoked`,
        );
      }),
    );

  operators
    .command('whoami')
    .description('the operator the credential in use proves')
    .option('--json', 'machine-readable output')
    .action(
      action(runtime, async (options: { json?: boolean }) => {
        const operator = await runtime.authenticate();
        runtime.print(
          Boolean(options.json),
          { operator: operator.name, credential_id: operator.credentialId },
          () => `operator:${operator.name} (credential ${operator.credentialId})`,
        );
      }),
    );
}
