import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { action, type CliRuntime } from '../../platform/cli/cli-runtime.js';
import { commandEnvelope, operatorActor } from '../../platform/event-sourcing/command-metadata.js';
import { eventIdFor } from '../../platform/event-store/event-id.js';
import { spaceDecider, spaceStreamId } from '../../organizations/domain/space.js';
import { organizationDecider, organizationStreamId } from '../../organizations/domain/organization.js';
import { expositionDecider, expositionStreamId } from '../domain/exposition.js';
import { BILLING_MODES, type BillingMode } from '../domain/scope-declaration.js';
import { controlsStreamId } from '../scope-erasure-sweeper.js';
import { checkedControlRecords } from '../domain/control-records.js';

/**
 * `exposure enable <orgId> [--billing capacity|credit]` / `exposure disable <orgId>`: the Exposition product
 * (Authentication 6). `exposure controls import <scopeId> <file.json>`: historical control records (there is no
 * launch endpoint; records are evidence of controls run elsewhere, earlier).
 */
export function registerExposureCommands(program: Command, runtime: CliRuntime): void {
  const exposure = program
    .command('exposure')
    .description('exposure scopes: the Exposition product, control records');

  exposure
    .command('enable')
    .description('make an organization an Exposition organization, with the billing its scopes use')
    .argument('<organizationId>')
    .option(
      '--billing <mode>',
      'capacity (refreshes included, quota and cadence) or credit (legacy, paid per refresh)',
      'capacity',
    )
    .option('--json', 'machine-readable output')
    .action(
      action(runtime, async (organizationId: string, options: { billing: string; json?: boolean }) => {
        if (!(BILLING_MODES as readonly string[]).includes(options.billing)) {
          process.stderr.write('--billing must be capacity or credit\n');
          return 2;
        }
        const context = await runtime.open();
        const organization = await context.repository.load(
          organizationStreamId(organizationId),
          organizationDecider,
        );
        if (!organization.state.exists) {
          process.stderr.write(`no organization ${organizationId}\n`);
          return 1;
        }
        const result = await context.repository.handle(
          expositionStreamId(organizationId),
          expositionDecider,
          { type: 'EnableExposition', organizationId, billing: options.billing as BillingMode },
          { now: context.clock.now() },
          commandEnvelope({ actor: operatorActor(), payer: `organization:${organizationId}` }),
        );
        runtime.print(
          Boolean(options.json),
          {
            organization_id: organizationId,
            enabled: true,
            billing: options.billing,
            changed: result.events.length > 0,
          },
          () =>
            `${organizationId}: Exposition enabled (${options.billing} billing)${result.events.length ? '' : ', unchanged'}`,
        );
      }),
    );

  exposure
    .command('disable')
    .description('close the exposure routes of an organization (scopes and history are kept)')
    .argument('<organizationId>')
    .option('--json', 'machine-readable output')
    .action(
      action(runtime, async (organizationId: string, options: { json?: boolean }) => {
        const context = await runtime.open();
        await context.repository.handle(
          expositionStreamId(organizationId),
          expositionDecider,
          { type: 'DisableExposition' },
          { now: context.clock.now() },
          commandEnvelope({ actor: operatorActor(), payer: `organization:${organizationId}` }),
        );
        runtime.print(
          Boolean(options.json),
          { organization_id: organizationId, enabled: false },
          () => `${organizationId}: Exposition disabled`,
        );
      }),
    );

  exposure
    .command('controls')
    .description('historical control records of a scope')
    .command('import')
    .description(
      'import historical control records (a JSON array) into a scope; re-importing the same file changes nothing',
    )
    .argument('<scopeId>')
    .argument('<file>')
    .option('--json', 'machine-readable output')
    .action(
      action(runtime, async (scopeId: string, file: string, options: { json?: boolean }) => {
        // The file is read and validated before the database is opened: a bad file writes nothing.
        const text = await readFile(file, 'utf8');
        const records = checkedControlRecords(JSON.parse(text) as unknown);
        const context = await runtime.open();
        const space = await context.repository.load(spaceStreamId(scopeId), spaceDecider);
        if (!space.state.exists || !space.state.exposure || space.state.deleted) {
          process.stderr.write(`no exposure scope ${scopeId}\n`);
          return 1;
        }
        const envelope = commandEnvelope({
          actor: operatorActor(),
          payer: `organization:${space.state.organizationId!}`,
          scope: scopeId,
        });
        const result = await context.storage.eventStore.append(
          controlsStreamId(scopeId),
          [
            {
              // Same file, same event id: an idempotent re-import.
              id: eventIdFor(`controls:${scopeId}:${JSON.stringify(records)}`, 0),
              type: 'ControlRecordsImported',
              schemaVersion: 1,
              data: { scopeId, records, importedAt: context.clock.now().toISOString() },
              metadata: envelope.metadata,
            },
          ],
          { expectedVersion: 'any' },
        );
        runtime.print(
          Boolean(options.json),
          { scope_id: scopeId, imported: records.length, position: result.position },
          () => `${scopeId}: ${records.length} historical control record(s) imported`,
        );
      }),
    );
}
