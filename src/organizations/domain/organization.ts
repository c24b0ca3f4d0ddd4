/**
 * The organization stream (`organization-<id>`): creation and account transition, trial admission, status,
 * members, roles, space assignments, external portions, ownership transfer. Pure decider: time and the actor
 * come in the context, DNS answers and anti-abuse facts come in the commands; refusals are ServiceErrors.
 */
import type { Decider } from '../../platform/event-sourcing/decider.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import { createOrganization, decideLifecycle } from './organization-lifecycle.js';
import { decideMembership } from './organization-membership.js';
import type { OrganizationCommand, OrganizationEvent } from './organization-messages.js';
import {
  evolve,
  initialOrganizationState,
  type OrganizationContext,
  type OrganizationState,
} from './organization-state.js';

export * from './organization-messages.js';
export {
  initialOrganizationState,
  isRestricted,
  memberOf,
  reachesSpace,
  restrictedError,
  restrictionAction,
  type Invitation,
  type Member,
  type OrganizationContext,
  type OrganizationState,
} from './organization-state.js';
export { invalidField, requireCapability, requireOpen } from './organization-guards.js';

export const organizationDecider: Decider<
  OrganizationCommand,
  OrganizationEvent,
  OrganizationState,
  OrganizationContext
> = {
  initialState: initialOrganizationState,
  decide(command, state, context) {
    if (command.type === 'CreateOrganization') return createOrganization(command, state, context);
    if (!state.exists) throw new ServiceError('not_found', 'no such organization');
    switch (command.type) {
      case 'CompleteAccountTransition':
      case 'VerifyDomain':
      case 'ApproveOrganization':
      case 'RequestPlan':
      case 'CompleteCheckout':
      case 'SetInactive':
      case 'EndTrial':
      case 'RenameOrganization':
        return decideLifecycle(command, state, context);
      case 'InviteMember':
      case 'AcceptInvitation':
      case 'RevokeInvitation':
      case 'RemoveMember':
      case 'ChangeRole':
      case 'AssignSpace':
      case 'UnassignSpace':
      case 'SetPortion':
      case 'OfferOwnership':
      case 'AcceptOwnership':
      case 'DeclineOwnership':
        return decideMembership(command, state, context);
    }
  },
  evolve,
};
