import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { action, type CliRuntime } from '../../platform/cli/cli-runtime.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import {
  DisableExposition,
  EnableExposition,
  ImportControlRecords,
} from '../commands/scope-lifecycle.commands.js';
import { BILLING_MODES, type BillingMode } from '../domain/scope-declaration.js';
import { checkedControlRecords } from '../domain/control-records.js';

/** Runs a command; an unknown organization or scope is this message and exit code 1 (not an error trace). */
async function unlessMissing<T>(run: () => Promise<T>, missing: string): Promise<T | null> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof ServiceError && error.code === 'not_found')) throw error;
    process.stderr.write(`${missing}\n`);
    return null;
  }
}

/**
 * `exposure enable <orgId> [--billing capacity|credit]` / `exposure disable <orgId>`: the Exposition product
 * (Authentication 6). `exposure controls import <scopeId> <file.json>`: historical control records (there is no
 * launch endpoint; records are evidence of controls run elsewhere, earlier).
 */
const REASON = 'why (required: it moves money or changes access; recorded on the event)';

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
    .option('--reason <text>', REASON)
    .option('--json', 'machine-readable output')
    .action(
      action(
        runtime,
        async (organizationId: string, options: { billing: string; reason?: string; json?: boolean }) => {
          if (!(BILLING_MODES as readonly string[]).includes(options.billing)) {
            process.stderr.write('--billing must be capacity or credit\n');
            return 2;
          }
          const envelope = await runtime.operatorEnvelope({
            command: 'exposure enable',
            payer: `organization:${organizationId}`,
            reason: options.reason,
            reasonRequired: true,
          });
          const bus = await runtime.commands();
          const result = await unlessMissing(
            () => bus.execute(new EnableExposition(organizationId, options.billing as BillingMode, envelope)),
            `no organization ${organizationId}`,
          );
          if (!result) return 1;
          runtime.print(
            Boolean(options.json),
            {
              organization_id: organizationId,
              enabled: true,
              billing: options.billing,
              changed: result.changed,
            },
            () =>
              `${organizationId}: Exposition enabled (${options.billing} billing)${result.changed ? '' : ', unchanged'}`,
          );
        },
      ),
    );

  exposure
    .command('disable')
    .description('close the exposure routes of an organization (scopes and history are kept)')
    .argument('<organizationId>')
    .option('--reason <text>', REASON)
    .option('--json', 'machine-readable output')
    .action(
      action(runtime, async (organizationId: string, options: { reason?: string; json?: boolean }) => {
        const envelope = await runtime.operatorEnvelope({
          command: 'exposure disable',
          payer: `organization:${organizationId}`,
          reason: options.reason,
          reasonRequired: true,
        });
        const bus = await runtime.commands();
        await bus.execute(new DisableExposition(organizationId, envelope));
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
    .option('--reason <text>', 'why (recorded on the event)')
    .option('--json', 'machine-readable output')
    .action(
      action(runtime, async (scopeId: string, file: string, options: { reason?: string; json?: boolean }) => {
        // The file is read and validated before the database is opened: a bad file writes nothing.
        const text = await readFile(file, 'utf8');
        const records = checkedControlRecords(JSON.parse(text) as unknown);
        // Evidence, not money or access: a reason is welcome, not required.
        const envelope = await runtime.operatorEnvelope({
          command: 'exposure controls import',
          payer: 'system',
          reason: options.reason,
          reasonRequired: false,
        });
        const bus = await runtime.commands();
        const result = await unlessMissing(
          () => bus.execute(new ImportControlRecords(scopeId, records, envelope)),
          `no exposure scope ${scopeId}`,
        );
        if (!result) return 1;
        runtime.print(
          Boolean(options.json),
          { scope_id: scopeId, imported: records.length, position: result.position },
          () => `${scopeId}: ${records.length} historical control record(s) imported`,
        );
      }),
    );
}
