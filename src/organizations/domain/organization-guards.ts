/** Checks every organization command starts with: who acts, in what role, on what input. */
import { ServiceError } from '../../platform/errors/service-error.js';
import { MAX_ORGANIZATION_NAME_LENGTH } from './organization-messages.js';
import {
  isRestricted,
  memberOf,
  restrictedError,
  type Member,
  type OrganizationContext,
  type OrganizationState,
} from './organization-state.js';
import { can, type Capability, type Role } from './roles.js';

export function actorRole(state: OrganizationState, context: OrganizationContext): Role | 'operator' | null {
  if (context.actorAccountId === null) return 'operator';
  return memberOf(state, context.actorAccountId)?.role ?? null;
}

/** A member lacking the capability gets 403; a non-member 404 (the organization is not theirs to see). */
export function requireCapability(
  state: OrganizationState,
  context: OrganizationContext,
  capability: Capability,
): void {
  const role = actorRole(state, context);
  if (role === 'operator') return;
  if (role === null) throw new ServiceError('not_found', 'no such organization');
  if (!can(role, capability)) {
    throw new ServiceError('forbidden', `the ${role.replace('_', ' ')} role cannot do this`, {
      role,
      needs: capability,
    });
  }
}

/** Rule 14: nothing moves in a restricted organization; the owner role does not bypass it. */
export function requireOpen(state: OrganizationState): void {
  if (isRestricted(state)) throw restrictedError(state);
}

export function requireOperator(context: OrganizationContext): void {
  if (context.actorAccountId !== null) {
    throw new ServiceError('forbidden', 'only the service operators do this');
  }
}

export function requireMember(state: OrganizationState, accountId: string): Member {
  const member = memberOf(state, accountId);
  if (!member) throw new ServiceError('not_found', 'no such member');
  return member;
}

export function checkedName(raw: unknown): string {
  const name = typeof raw === 'string' ? raw.trim() : '';
  if (name.length === 0 || [...name].length > MAX_ORGANIZATION_NAME_LENGTH) {
    throw invalidField('name', `must be 1 to ${MAX_ORGANIZATION_NAME_LENGTH} characters`);
  }
  return name;
}

export function checkedPortion(raw: unknown): number | null {
  if (raw === null || raw === undefined) return null;
  if (typeof raw !== 'number' || !Number.isSafeInteger(raw) || raw < 0 || raw > 1_000_000_000) {
    throw invalidField('portion', 'must be an integer from 0 or null');
  }
  return raw;
}

export function requireId(value: unknown, field: string): void {
  if (typeof value !== 'string' || value.length === 0)
    throw invalidField(field, 'must be a non-empty string');
}

export function invalidField(field: string, problem: string): ServiceError {
  return new ServiceError('invalid_input', `${field} ${problem}`, {
    fields: [{ field, problems: [problem] }],
  });
}
