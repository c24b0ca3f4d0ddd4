import type { Command } from 'commander';
import { action, type CliRuntime } from '../../platform/cli/cli-runtime.js';
import { onBehalfOf, type CommandEnvelope } from '../../platform/event-sourcing/command-metadata.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import type { ServiceContext } from '../../platform/service-context.js';
import {
  ChangePlan,
  IssueApiKey,
  PurchaseCredits,
  RegisterAccount,
  RevokeApiKey,
} from '../commands/account.commands.js';
import { isPlanId, PLAN_IDS, type PlanId } from '../domain/plans.js';
import { AccountDirectory } from '../queries/account-directory.js';

/**
 * Account creation, checkout and key delivery are "not shown" in the contract: operators run them here.
 * Each acts as the operator its credential proves, on behalf of the account it touches; purchases, plan
 * changes and key issue or revocation move money or change access, so they need `--reason` (ADR 68).
 */
export function registerAccountCommands(program: Command, runtime: CliRuntime): void {
  const accounts = program
    .command('accounts')
    .description('personal accounts (sign-up and checkout are operator actions)');

  accounts
    .command('create')
    .description('create an account; prints its id')
    .requiredOption('--email <email>', 'sign-in email (unique)')
    .requiredOption('--plan <plan>', `one of ${PLAN_IDS.join(', ')}`)
    .option(
      '--password <password>',
      'password for browser sign-in (12+ characters); without it the account signs in by API key only',
    )
    .option('--reason <text>', 'why (recorded on the event)')
    .option('--json', 'machine-readable output')
    .action(
      action(runtime, async (options: CreateOptions) => {
        const plan = planOption(options.plan);
        const operator = await runtime.operatorEnvelope({
          command: 'accounts create',
          payer: 'system',
          reason: options.reason,
          reasonRequired: false,
        });
        const bus = await runtime.commands();
        const { accountId } = await bus.execute(
          new RegisterAccount(options.email, plan, options.password, operator),
        );
        runtime.print(
          Boolean(options.json),
          { account_id: accountId, email: options.email.trim().toLowerCase(), plan },
          () => accountId,
        );
      }),
    );

  accounts
    .command('purchase')
    .description('record a purchase of credits (they never expire)')
    .argument('<account>', 'account id or email')
    .argument('<credits>', 'whole number of credits')
    .option('--reason <text>', REASON)
    .option('--json', 'machine-readable output')
    .action(
      action(runtime, async (account: string, credits: string, options: ReasonOptions) => {
        const operator = await operatorFor(runtime, 'accounts purchase', options);
        const context = await runtime.open({ followProjections: true });
        const accountId = await resolveAccount(context, account);
        const amount = Number(credits);
        const bus = await runtime.commands();
        await bus.execute(
          new PurchaseCredits(accountId, amount, onBehalfOf(operator, `account:${accountId}`)),
        );
        runtime.print(
          Boolean(options.json),
          { account_id: accountId, purchased: amount },
          () => `purchased ${amount} credits for ${accountId}`,
        );
      }),
    );

  accounts
    .command('plan')
    .description("change an account's plan")
    .argument('<account>', 'account id or email')
    .argument('<plan>', `one of ${PLAN_IDS.join(', ')}`)
    .option('--reason <text>', REASON)
    .option('--json', 'machine-readable output')
    .action(
      action(runtime, async (account: string, planText: string, options: ReasonOptions) => {
        const plan = planOption(planText);
        const operator = await operatorFor(runtime, 'accounts plan', options);
        const context = await runtime.open({ followProjections: true });
        const accountId = await resolveAccount(context, account);
        const bus = await runtime.commands();
        const { changed } = await bus.execute(
          new ChangePlan(accountId, plan, onBehalfOf(operator, `account:${accountId}`)),
        );
        runtime.print(Boolean(options.json), { account_id: accountId, plan, changed }, () =>
          changed ? `${accountId} is now on ${plan}` : `${accountId} was already on ${plan}`,
        );
      }),
    );

  const keys = program.command('keys').description('personal API keys');

  keys
    .command('issue')
    .description('issue a personal API key; the key is printed once and never stored')
    .argument('<account>', 'account id or email')
    .option('--label <label>', 'what the key is for', '')
    .option('--reason <text>', REASON)
    .option('--json', 'machine-readable output')
    .action(
      action(runtime, async (account: string, options: ReasonOptions & { label: string }) => {
        const operator = await operatorFor(runtime, 'keys issue', options);
        const context = await runtime.open({ followProjections: true });
        const accountId = await resolveAccount(context, account);
        const bus = await runtime.commands();
        const issued = await bus.execute(
          new IssueApiKey(accountId, options.label, onBehalfOf(operator, `account:${accountId}`)),
        );
        runtime.print(
          Boolean(options.json),
          {
            account_id: accountId,
            key_id: issued.keyId,
            prefix: issued.prefix,
            key: issued.key,
            label: issued.label,
          },
          () => `${issued.key}\n(key id ${issued.keyId}; this is the only time the key is shown)`,
        );
      }),
    );

  keys
    .command('revoke')
    .description('revoke a personal API key by its id')
    .argument('<key-id>', 'the key id (the part after exr_ in the key)')
    .option('--reason <text>', REASON)
    .option('--json', 'machine-readable output')
    .action(
      action(runtime, async (keyId: string, options: ReasonOptions) => {
        // Recorded on behalf of the key's account: the handler names it once it found the key.
        const operator = await operatorFor(runtime, 'keys revoke', options);
        const bus = await runtime.commands();
        const { revoked } = await bus.execute(
          new RevokeApiKey(undefined, keyId.replace(/^exr_/, ''), operator),
        );
        runtime.print(Boolean(options.json), { key_id: keyId, revoked }, () =>
          revoked ? `revoked ${keyId}` : `${keyId} was already revoked`,
        );
      }),
    );
}

const REASON = 'why (required: it moves money or changes access; recorded on the event)';

interface ReasonOptions {
  readonly reason?: string;
  readonly json?: boolean;
}

interface CreateOptions extends ReasonOptions {
  readonly email: string;
  readonly plan: string;
  readonly password?: string;
}

/** The operator's envelope of a command that moves money or changes access: `--reason` required. */
function operatorFor(runtime: CliRuntime, command: string, options: ReasonOptions): Promise<CommandEnvelope> {
  return runtime.operatorEnvelope({ command, payer: 'system', reason: options.reason, reasonRequired: true });
}

function planOption(value: string): PlanId {
  const plan = value.trim().toLowerCase();
  if (!isPlanId(plan))
    throw new ServiceError('invalid_input', `unknown plan "${value}" (one of ${PLAN_IDS.join(', ')})`);
  return plan;
}

async function resolveAccount(context: ServiceContext, reference: string): Promise<string> {
  const directory = new AccountDirectory(context);
  const account = reference.includes('@')
    ? await directory.findByEmail(reference)
    : await directory.account(reference);
  if (!account) throw new ServiceError('not_found', `no account ${reference}`);
  return account.id;
}
