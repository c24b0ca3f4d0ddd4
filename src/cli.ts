#!/usr/bin/env node
import 'reflect-metadata';
import { Command } from 'commander';
import { registerAccountCommands } from './accounts/cli/account.cli.js';
import { registerDataCommands } from './search/data/data.cli.js';
import { registerCatalogueCommands } from './catalogue/cli/catalogue.cli.js';
import { registerOrganizationCommands } from './organizations/cli/organization.cli.js';
import { registerExposureCommands } from './exposure/cli/exposure.cli.js';
import { AppModule } from './app.module.js';
import { serviceComposition } from './composition/service-composition.js';
import { CliRuntime } from './platform/cli/cli-runtime.js';
import { registerEventCommands } from './platform/cli/event.commands.js';
import { registerProjectionCommands } from './platform/cli/projection.commands.js';
import { registerWorkerCommands } from './platform/cli/worker.commands.js';

/**
 * Operator CLI (`npm run cli -- …`, or the `exposure-cli` bin). With the embedded database it works while the
 * service runs: it reaches the service's database through the socket in DATA_DIR instead of opening it again.
 */
const program = new Command()
  .name('exposure-cli')
  .description('Operator commands for the exposure research service. Every command accepts --json.')
  .showHelpAfterError();

const runtime = new CliRuntime(serviceComposition, (context) => AppModule.forContext(context));
runtime.endQuietlyWhenOutputCloses();
registerAccountCommands(program, runtime);
registerDataCommands(program, runtime);
registerCatalogueCommands(program, runtime);
registerOrganizationCommands(program, runtime);
registerExposureCommands(program, runtime);
registerProjectionCommands(program, runtime);
registerEventCommands(program, runtime);
registerWorkerCommands(program, runtime);

await program.parseAsync(process.argv);
