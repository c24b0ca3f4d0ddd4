import { Command } from 'commander';
import { registerAccountCommands } from './accounts/cli/account.cli.js';
import { registerAuditCommands } from './audit/cli/audit.cli.js';
import { registerDataCommands } from './search/data/data.cli.js';
import { registerCatalogueCommands } from './catalogue/cli/catalogue.cli.js';
import { registerFingerprintCommands } from './fingerprints/cli/fingerprints.cli.js';
import { registerOrganizationCommands } from './organizations/cli/organization.cli.js';
import { registerExposureCommands } from './exposure/cli/exposure.cli.js';
import { registerOperatorCommands } from './operators/cli/operator.cli.js';
import { cliOperators } from './operators/operator-access.js';
import { AppModule } from './app.module.js';
import { serviceComposition } from './composition/service-composition.js';
import { CliRuntime } from './platform/cli/cli-runtime.js';
import { registerEventCommands } from './platform/cli/event.commands.js';
import { registerProjectionCommands } from './platform/cli/projection.commands.js';
import { registerWorkerCommands } from './platform/cli/worker.commands.js';

/**
 * The operator CLI's commands on one runtime. Apart from src/cli.ts, the tests build it to run most CLI scenarios
 * inside their own process (no Node start-up per command) with the same commands, output and exit codes.
 */
export function createCliProgram(runtime: CliRuntime): Command {
  const program = new Command()
    .name('exposure-cli')
    .description('Operator commands for the exposure research service. Every command accepts --json.')
    .showHelpAfterError()
    .option(
      '--operator-credential-file <path>',
      'read the operator credential here (instead of OPERATOR_CREDENTIAL or DATA_DIR/operator-credential)',
    )
    .hook('preAction', (command) => {
      runtime.useCredentialFile(command.opts<{ operatorCredentialFile?: string }>().operatorCredentialFile);
    });
  registerAccountCommands(program, runtime);
  registerOperatorCommands(program, runtime);
  registerDataCommands(program, runtime);
  registerCatalogueCommands(program, runtime);
  registerFingerprintCommands(program, runtime);
  registerOrganizationCommands(program, runtime);
  registerExposureCommands(program, runtime);
  registerProjectionCommands(program, runtime);
  registerEventCommands(program, runtime);
  registerAuditCommands(program, runtime);
  registerWorkerCommands(program, runtime);
  return program;
}

/** The CLI's runtime on the service's composition: what the process is made of, and its root module. */
export function createCliRuntime(): CliRuntime {
  return new CliRuntime(serviceComposition, (context) => AppModule.forContext(context), cliOperators);
}
