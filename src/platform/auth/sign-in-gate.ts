/**
 * A check password sign-in runs once the password is proven, before any session exists. The organizations
 * context provides it (rule 12: staff of an organization enforcing single sign-on must use its provider);
 * it throws a ServiceError to refuse.
 */
export interface PasswordSignInGate {
  check(accountId: string): Promise<void>;
}

export const PASSWORD_SIGN_IN_GATE = Symbol('PasswordSignInGate');
