import type { Command } from 'commander';
import { ORGANIZATIONS } from '../../../projections/organizations.projection.js';
import { AccountDirectory } from '../../accounts/queries/account-directory.js';
import { action, type CliRuntime } from '../../platform/cli/cli-runtime.js';
import { onBehalfOf } from '../../platform/event-sourcing/command-metadata.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import { includesStreamPrefix, parseLogPoint, recordedBy } from '../../platform/projections/as-of-replay.js';
import type { ReadDocument } from '../../platform/read-store/read-store.port.js';
import type { ServiceContext } from '../../platform/service-context.js';
import { isId } from '../commands/organization-access.js';
import { ApplyOperatorCommand, RequireTrialApproval } from '../commands/organization-settings.commands.js';
import {
  isRestricted,
  organizationDecider,
  organizationStreamId,
  restrictionAction,
  type OrganizationCommand,
  type OrganizationState,
  type PaidOrganizationPlan,
} from '../domain/organization.js';

const STATUSES = ['pending_verification', 'pending_approval', 'awaiting_payment', 'active', 'inactive'];
const PAID_PLANS: readonly PaidOrganizationPlan[] = ['teams', 'business'];

/**
 * What the organization routes do not offer, because the contract leaves it to the service's operators and its
 * billing system (rule 14's "until its status changes"): approval, checkout completion, deactivation and
 * reactivation, ending a trial, and the trial approval flag. Each acts as `operator:<user>`, through the same
 * decider as every route; it works with and without a running service.
 */
const REASON = 'why (required: it moves money or changes access; recorded on the event)';

export function registerOrganizationCommands(program: Command, runtime: CliRuntime): void {
  const organizations = program
    .command('organizations')
    .description('organization workspaces: status, approval, checkout, deactivation, trials');

  organizations
    .command('list')
    .description('organizations with their status and plan (from the read model)')
    .option('--status <status>', `only this status (${STATUSES.join(', ')})`)
    .option('--json', 'machine-readable output')
    .action(
      action(runtime, async (options: { status?: string; json?: boolean }) => {
        if (options.status !== undefined && !STATUSES.includes(options.status)) {
          throw new ServiceError(
            'invalid_input',
            `unknown status "${options.status}" (one of ${STATUSES.join(', ')})`,
          );
        }
        const context = await runtime.open({ followProjections: true });
        const rows = await context.projections
          .collection<ListedOrganization>('organizations', ORGANIZATIONS)
          .find(options.status ? { status: options.status } : {}, { sort: [['createdAt', 1]] });
        const listed = rows.map((row) => ({
          organization_id: row.id,
          name: row.name,
          status: row.status,
          restricted: row.status !== 'active',
          plan: row.plan,
          requested_plan: row.requestedPlan,
          trial_ends_at: row.trial?.endsAt ?? null,
          owner_account_id: row.ownerAccountId,
          created_at: row.createdAt,
        }));
        runtime.print(Boolean(options.json), { organizations: listed }, () =>
          listed.length === 0
            ? 'no organizations'
            : listed
                .map(
                  (o) =>
                    `${o.organization_id}  ${o.status.padEnd(20)} ${String(o.plan ?? '-').padEnd(9)} ${o.name}`,
                )
                .join('\n'),
        );
      }),
    );

  /** A read of one organization's stream, now or folded to a moment of the log (--as-of). */
  const readCommand = (
    name: string,
    description: string,
    show: (organizationId: string, state: OrganizationState, json: boolean) => void,
  ) =>
    organizations
      .command(name)
      .description(description)
      .argument('<orgId>', 'organization id')
      .option('--as-of <time|position>', 'as it was then: replayed from the log (ISO-8601 time or position)')
      .option('--json', 'machine-readable output')
      .action(
        action(runtime, async (organizationId: string, options: { json?: boolean; asOf?: string }) => {
          const state = await load(await runtime.open(), organizationId, options.asOf);
          show(organizationId, state, Boolean(options.json));
        }),
      );

  readCommand(
    'status',
    "an organization's status, restriction and the action that lifts it",
    (organizationId, state, json) =>
      runtime.print(json, statusView(organizationId, state), () => describeStatus(organizationId, state)),
  );

  readCommand(
    'members',
    "an organization's members and roles, now or as it was then (--as-of)",
    (organizationId, state, json) => {
      const members = Object.entries(state.members)
        .map(([accountId, member]) => ({
          account_id: accountId,
          role: member.role,
          added_at: member.addedAt,
        }))
        .sort((a, b) => (a.added_at < b.added_at ? -1 : a.added_at > b.added_at ? 1 : 0));
      runtime.print(json, { organization_id: organizationId, members }, () =>
        members.map((member) => `${member.account_id}  ${member.role}  since ${member.added_at}`).join('\n'),
      );
    },
  );

  const operatorCommand = (
    name: string,
    description: string,
    command: (state: OrganizationState, options: Record<string, unknown>) => OrganizationCommand,
    configure: (sub: Command) => Command = (sub) => sub,
  ) =>
    configure(
      organizations
        .command(name)
        .description(description)
        .argument('<orgId>', 'organization id')
        .option('--reason <text>', REASON)
        .option('--json', 'machine-readable output'),
    ).action(
      action(runtime, async (organizationId: string, options: Record<string, unknown>) => {
        // Every one of them moves money or changes access: refused without a reason (ADR 68).
        const envelope = await runtime.operatorEnvelope({
          command: `organizations ${name}`,
          payer: `organization:${organizationId}`,
          reason: options.reason as string | undefined,
          reasonRequired: true,
        });
        // Refuse a malformed or unknown id before the application starts.
        const before = await load(await runtime.open(), organizationId);
        const commands = await runtime.commands();
        const { changed, state } = await commands.execute(
          new ApplyOperatorCommand(organizationId, command(before, options), envelope),
        );
        const after = changed ? await load(await runtime.open(), organizationId) : state;
        runtime.print(Boolean(options.json), { ...statusView(organizationId, after), changed }, () =>
          changed
            ? describeStatus(organizationId, after)
            : `nothing to do: ${describeStatus(organizationId, after)}`,
        );
      }),
    );

  operatorCommand(
    'approve',
    'approve an organization pending approval (a trial then starts with its 1,000 credits)',
    () => ({ type: 'ApproveOrganization' }),
  );
  operatorCommand(
    'checkout-complete',
    'record that checkout completed: the organization becomes active on the paid plan',
    (state, options) => {
      const plan = (options.plan as string | undefined)?.trim().toLowerCase() ?? state.requestedPlan;
      if (!plan) {
        throw new ServiceError(
          'invalid_input',
          'the owner chose no plan in billing: pass --plan teams|business',
        );
      }
      if (!PAID_PLANS.includes(plan as PaidOrganizationPlan)) {
        throw new ServiceError('invalid_input', `unknown plan "${plan}" (one of ${PAID_PLANS.join(', ')})`);
      }
      return { type: 'CompleteCheckout', plan: plan as PaidOrganizationPlan };
    },
    (sub) => sub.option('--plan <plan>', 'teams or business (default: the plan the owner chose in billing)'),
  );
  operatorCommand('deactivate', 'make the organization inactive (restricted, the owner included)', () => ({
    type: 'SetInactive',
    inactive: true,
  }));
  operatorCommand(
    'activate',
    'reactivate an inactive organization (back to the status its billing allows)',
    () => ({
      type: 'SetInactive',
      inactive: false,
    }),
  );
  operatorCommand(
    'end-trial',
    'end a trial that is over now (the service also does this on its own); --early ends it before its term',
    (_state, options) => ({ type: 'EndTrial', ...(options.early ? { early: true } : {}) }),
    (sub) => sub.option('--early', 'end the trial before its 14 days are over'),
  );

  organizations
    .command('require-approval')
    .description("flag an account: its organization's trial waits for an operator's approval (anti-abuse)")
    .argument('<account>', 'account id or email')
    .option('--reason <text>', REASON)
    .option('--json', 'machine-readable output')
    .action(
      action(runtime, async (account: string, options: { reason?: string; json?: boolean }) => {
        const envelope = await runtime.operatorEnvelope({
          command: 'organizations require-approval',
          payer: 'system',
          reason: options.reason,
          reasonRequired: true,
        });
        const context = await runtime.open({ followProjections: true });
        const directory = new AccountDirectory(context);
        const found = account.includes('@')
          ? await directory.findByEmail(account)
          : await directory.account(account);
        if (!found) throw new ServiceError('not_found', `no account ${account}`);
        const commands = await runtime.commands();
        const { flagged } = await commands.execute(
          new RequireTrialApproval(found.id, onBehalfOf(envelope, `account:${found.id}`)),
        );
        runtime.print(Boolean(options.json), { account_id: found.id, changed: flagged }, () =>
          flagged
            ? `${found.id}: a trial of its organization now waits for approval`
            : `${found.id} was already flagged`,
        );
      }),
    );
}

interface ListedOrganization extends ReadDocument {
  readonly id: string;
  readonly name: string;
  readonly status: string;
  readonly plan: string | null;
  readonly requestedPlan: string | null;
  readonly trial: { readonly endsAt?: string } | null;
  readonly ownerAccountId: string;
  readonly createdAt: string;
}

/**
 * The authoritative state: the organization stream folded, never a lagging read model; with `asOf`, folded only
 * up to that position or time (ADR 73).
 */
async function load(
  context: ServiceContext,
  organizationId: string,
  asOf?: string,
): Promise<OrganizationState> {
  if (!isId(organizationId)) throw new ServiceError('not_found', `no organization ${organizationId}`);
  const stream = organizationStreamId(organizationId);
  const point = asOf === undefined ? null : parseLogPoint(asOf, '--as-of');
  const { state } = point
    ? await context.reader.loadUpTo(stream, organizationDecider, (event) => recordedBy(event, point), {
        prefix: includesStreamPrefix(point),
      })
    : await context.reader.load(stream, organizationDecider);
  if (!state.exists) throw new ServiceError('not_found', `no organization ${organizationId}`);
  return state;
}

function statusView(organizationId: string, state: OrganizationState) {
  return {
    organization_id: organizationId,
    name: state.name,
    status: state.status,
    restricted: isRestricted(state),
    action: restrictionAction(state),
    plan: state.plan,
    requested_plan: state.requestedPlan,
    start: state.start,
    trial: state.trial
      ? {
          domain: state.trial.domain,
          started_at: state.trial.startedAt,
          ends_at: state.trial.endsAt,
          ended: state.trial.ended,
        }
      : null,
    owner_account_id: state.ownerAccountId,
  };
}

function describeStatus(organizationId: string, state: OrganizationState): string {
  const trial = state.trial ? `; trial ${state.trial.ended ? 'ended' : `ends ${state.trial.endsAt}`}` : '';
  const restriction = isRestricted(state) ? ` (restricted: ${restrictionAction(state)})` : '';
  return `${organizationId} ${state.name}: ${state.status}${restriction}; plan ${state.plan ?? 'none'}${trial}`;
}
