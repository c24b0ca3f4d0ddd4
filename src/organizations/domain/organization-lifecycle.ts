/** Creation, account transition, domain verification, trial, approval, billing, status and name. */
import { ServiceError } from '../../platform/errors/service-error.js';
import { registrableDomain, txtProves, verificationRecord } from './business-domain.js';
import {
  checkedName,
  invalidField,
  requireCapability,
  requireId,
  requireOpen,
  requireOperator,
} from './organization-guards.js';
import {
  TRIAL_CREDITS,
  TRIAL_DAYS,
  type CreateOrganization,
  type OrganizationCommand,
  type OrganizationEvent,
  type OrganizationStatus,
  type OrganizationStatusChanged,
  type TrialStarted,
  type VerifyDomain,
} from './organization-messages.js';
import { restrictedError, type OrganizationContext, type OrganizationState } from './organization-state.js';

export type LifecycleCommand = Extract<
  OrganizationCommand,
  {
    type:
      | 'CompleteAccountTransition'
      | 'VerifyDomain'
      | 'ApproveOrganization'
      | 'RequestPlan'
      | 'CompleteCheckout'
      | 'SetInactive'
      | 'EndTrial'
      | 'RenameOrganization';
  }
>;

/** Decides a lifecycle command on an existing organization. */
export function decideLifecycle(
  command: LifecycleCommand,
  state: OrganizationState,
  context: OrganizationContext,
): OrganizationEvent[] {
  const now = context.now.toISOString();
  switch (command.type) {
    case 'CompleteAccountTransition': {
      if (!state.transition || state.transition.transferId !== command.transferId) {
        throw new ServiceError('not_found', 'no such account transition');
      }
      if (state.transition.completed) return [];
      return [
        {
          type: 'AccountTransitionCompleted',
          data: { transferId: command.transferId, credits: state.transition.credits, completedAt: now },
        },
      ];
    }
    case 'VerifyDomain':
      return verifyDomain(command, state, context);
    case 'ApproveOrganization': {
      requireOperator(context);
      if (state.status !== 'pending_approval') return [];
      const events: OrganizationEvent[] = [{ type: 'ApprovalGranted', data: { grantedAt: now } }];
      if (state.start === 'trial' && state.verification?.verifiedAt && !state.trial) {
        events.push(trialStarted(state.verification.domain, context.now));
      }
      events.push(statusChange(state, state.start === 'trial' ? 'active' : 'awaiting_payment', now));
      return events;
    }
    case 'RequestPlan': {
      requireCapability(state, context, 'billing.manage');
      if (!(['teams', 'business'] as const).includes(command.plan)) {
        throw new ServiceError('invalid_input', 'plan must be teams or business', {
          fields: [{ field: 'plan', problems: ['must be teams or business'] }],
        });
      }
      if (state.status === 'pending_approval' || state.status === 'inactive') throw restrictedError(state);
      if (state.plan === command.plan) return [];
      return [{ type: 'PlanRequested', data: { plan: command.plan, requestedAt: now } }];
    }
    case 'CompleteCheckout': {
      // Checkout itself is "not shown": the billing system reports completion through the operator path.
      requireOperator(context);
      if (state.status === 'pending_approval' || state.status === 'inactive') throw restrictedError(state);
      const events: OrganizationEvent[] = [];
      if (state.plan !== command.plan) {
        events.push({ type: 'CheckoutCompleted', data: { plan: command.plan, completedAt: now } });
      }
      if (state.status !== 'active') events.push(statusChange(state, 'active', now));
      return events;
    }
    case 'SetInactive': {
      requireOperator(context);
      if (command.inactive) return state.status === 'inactive' ? [] : [statusChange(state, 'inactive', now)];
      if (state.status !== 'inactive') return [];
      const back: OrganizationStatus =
        state.plan === 'teams' || state.plan === 'business' || (state.trial && !state.trial.ended)
          ? 'active'
          : state.plan === null && state.start === 'trial' && !state.trial
            ? state.verification?.verifiedAt
              ? 'pending_approval'
              : 'pending_verification'
            : 'awaiting_payment';
      return [statusChange(state, back, now)];
    }
    case 'EndTrial': {
      requireOperator(context);
      if (!state.trial || state.trial.ended || state.plan !== 'trial') return [];
      if (!command.early && Date.parse(state.trial.endsAt) > context.now.getTime()) return [];
      const events: OrganizationEvent[] = [{ type: 'TrialEnded', data: { endedAt: now } }];
      if (state.status === 'active') events.push(statusChange(state, 'awaiting_payment', now));
      return events;
    }
    case 'RenameOrganization': {
      requireCapability(state, context, 'organization.settings');
      requireOpen(state);
      const name = checkedName(command.name);
      if (name === state.name) return [];
      // Renaming is only a name: it never touches the trial (rule 5).
      return [{ type: 'OrganizationRenamed', data: { from: state.name, to: name } }];
    }
  }
}

export function createOrganization(
  command: CreateOrganization,
  state: OrganizationState,
  context: OrganizationContext,
): OrganizationEvent[] {
  if (state.exists) throw new ServiceError('already_exists', 'the organization exists');
  requireId(command.organizationId, 'organizationId');
  requireId(command.ownerAccountId, 'ownerAccountId');
  requireId(command.generalSpaceId, 'generalSpaceId');
  const name = checkedName(command.name);
  if (command.start !== 'trial' && command.start !== 'subscription') {
    throw invalidField('start', 'must be trial or subscription');
  }
  if (!Number.isSafeInteger(command.transfer.credits) || command.transfer.credits < 0) {
    throw invalidField('expected_transfer', 'must be a non-negative integer');
  }
  const now = context.now.toISOString();
  const status: OrganizationStatus = command.start === 'trial' ? 'pending_verification' : 'awaiting_payment';
  const events: OrganizationEvent[] = [
    {
      type: 'OrganizationCreated',
      data: {
        organizationId: command.organizationId,
        name,
        ownerAccountId: command.ownerAccountId,
        start: command.start,
        status,
        generalSpaceId: command.generalSpaceId,
        transfer: { ...command.transfer },
        createdAt: now,
      },
    },
  ];
  if (command.start === 'trial') {
    if (!command.domain) throw invalidField('domain', 'a trial needs the business domain to verify');
    requireId(command.verificationToken, 'verificationToken');
    events.push({
      type: 'DomainVerificationRequested',
      data: {
        domain: command.domain,
        record: verificationRecord(command.domain, command.verificationToken),
        requestedAt: now,
      },
    });
  }
  events.push({
    type: 'MemberAdded',
    data: {
      accountId: command.ownerAccountId,
      role: 'owner',
      spaces: [],
      portion: null,
      invitationId: null,
      addedAt: now,
    },
  });
  return events;
}

function verifyDomain(
  command: VerifyDomain,
  state: OrganizationState,
  context: OrganizationContext,
): OrganizationEvent[] {
  requireCapability(state, context, 'billing.manage');
  if (state.start !== 'trial' || !state.verification) {
    throw new ServiceError('invalid_input', 'this organization did not ask for a trial');
  }
  if (state.verification.verifiedAt) return [];
  if (state.status === 'inactive') throw restrictedError(state);
  if (!txtProves(command.txt, state.verification.record)) {
    throw new ServiceError(
      'domain_not_verified',
      `no TXT record ${state.verification.record.name} with the value ${state.verification.record.value} was found; publish it and retry`,
      { record: state.verification.record },
    );
  }
  if (command.domainAlreadyUsedForTrial) {
    // A trial is granted once per registrable domain (a subdomain shares its domain's trial).
    const registrable = registrableDomain(state.verification.domain) ?? state.verification.domain;
    throw new ServiceError(
      'trial_ineligible',
      `${registrable} already admitted a trial (once per registrable domain); subscribe instead`,
      { reason: 'domain_already_used', registrable_domain: registrable },
    );
  }
  if (command.accountAlreadyHadTrial) {
    throw new ServiceError('trial_ineligible', 'this account already had a trial; subscribe instead', {
      reason: 'account_already_used',
    });
  }
  const now = context.now.toISOString();
  const domain = state.verification.domain;
  const events: OrganizationEvent[] = [{ type: 'DomainVerified', data: { domain, verifiedAt: now } }];
  if (command.approvalRequired) {
    events.push({ type: 'ApprovalRequested', data: { requestedAt: now } });
    events.push(statusChange(state, 'pending_approval', now));
    return events;
  }
  events.push(trialStarted(domain, context.now));
  events.push(statusChange(state, 'active', now));
  return events;
}

function trialStarted(domain: string, now: Date): TrialStarted {
  return {
    type: 'TrialStarted',
    data: {
      domain,
      credits: TRIAL_CREDITS,
      startedAt: now.toISOString(),
      endsAt: new Date(now.getTime() + TRIAL_DAYS * 24 * 60 * 60 * 1000).toISOString(),
    },
  };
}

function statusChange(
  state: OrganizationState,
  to: OrganizationStatus,
  at: string,
): OrganizationStatusChanged {
  return { type: 'OrganizationStatusChanged', data: { from: state.status, to, changedAt: at } };
}
