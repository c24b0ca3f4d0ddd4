import { describe, expect, it } from '@jest/globals';
import {
  canCreateAccessToken,
  hasCpeEntitlement,
  hasPersonalDataEntitlement,
  personalDataDecision,
} from '../../../src/accounts/domain/entitlements.js';
import { planById, type PlanId } from '../../../src/accounts/domain/plans.js';

describe('personal entitlements', () => {
  it.each<[PlanId, number, boolean]>([
    ['free', 0, false],
    ['free', 1, true],
    ['free', 250, true],
    ['basic', 0, false],
    ['basic', 1, true],
    ['professional', 0, true],
    ['enterprise', 0, true],
    ['professional', 10, true],
  ])('personal data access on %s with %i purchased credits: %s', (plan, purchased, expected) => {
    expect(hasPersonalDataEntitlement(plan, purchased)).toBe(expected);
    expect(hasPersonalDataEntitlement(planById(plan), purchased)).toBe(expected);
  });

  it('a Free account holding only its monthly allocation cannot create a token', () => {
    expect(canCreateAccessToken('free', 0)).toBe(false);
    expect(canCreateAccessToken(planById('free'), 0)).toBe(false);
  });

  it('a Free or Basic account with purchased credits, or a current paid plan, can create a token', () => {
    expect(canCreateAccessToken('free', 5)).toBe(true);
    expect(canCreateAccessToken('basic', 0)).toBe(false);
    expect(canCreateAccessToken('basic', 5)).toBe(true);
    expect(canCreateAccessToken('professional', 0)).toBe(true);
    expect(canCreateAccessToken('enterprise', 0)).toBe(true);
  });

  it('a negative or zero purchased balance is not a balance above zero', () => {
    expect(hasPersonalDataEntitlement('free', -3)).toBe(false);
    expect(canCreateAccessToken('free', -3)).toBe(false);
  });

  it('Authentication 3: a refusal states the rule, the plan and the purchased balance', () => {
    expect(personalDataDecision('professional', 0)).toEqual({ allowed: true });
    const basic = personalDataDecision('basic', 0);
    expect(basic).toEqual({
      allowed: false,
      message:
        'Every personal data request needs a current paid subscription (Professional or Enterprise) or a purchased ' +
        'credit balance above zero; free operations such as enrichment are no exception. Refused: this account is ' +
        'on the Basic (legacy) plan, which is not a current paid subscription, and it holds 0 purchased credits.',
      details: { plan: 'basic', purchased_credits: 0, qualifying_plans: ['professional', 'enterprise'] },
    });
    expect(personalDataDecision('free', -2)).toMatchObject({
      allowed: false,
      details: { purchased_credits: 0 },
    });
  });

  it('raw CPE input is Enterprise only', () => {
    expect(hasCpeEntitlement('enterprise')).toBe(true);
    for (const plan of ['free', 'basic', 'professional'] as const)
      expect(hasCpeEntitlement(plan)).toBe(false);
  });
});
