/**
 * The capability → roles policy (Authentication 6 and 7), the one place that says who may do what; the access
 * layer, the route inventory and the role × route matrix all ask it.
 */
import { describe, expect, it } from '@jest/globals';
import {
  CAPABILITIES,
  can,
  productOf,
  ROLES,
  type Capability,
} from '../../../src/organizations/domain/roles.js';

const holders = (capability: Capability) => ROLES.filter((role) => can(role, capability));
const EXPOSURE = CAPABILITIES.filter((capability) => capability.startsWith('exposure.'));

describe('the capability policy', () => {
  it('Roles: the owner holds every capability', () => {
    expect(CAPABILITIES.filter((capability) => !can('owner', capability))).toEqual([]);
  });

  it('Authentication 6: exposure is staff work in an Exposition organization; external clients hold none of it', () => {
    expect(EXPOSURE.length).toBeGreaterThan(0);
    for (const capability of EXPOSURE) {
      expect(productOf(capability)).toBe('exposition');
      expect(can('external_client', capability)).toBe(false);
    }
    // Creation and settings (timezone, monitoring, notifications) are the managers'.
    expect(holders('exposure.scopes.manage')).toEqual(['owner', 'administrator']);
    // The work in a scope: every staff role (the scope assignment limits analysts).
    for (const capability of EXPOSURE.filter((c) => c !== 'exposure.scopes.manage')) {
      expect(holders(capability)).toEqual(['owner', 'administrator', 'analyst']);
    }
  });

  it('only exposure capabilities need a product', () => {
    expect(CAPABILITIES.filter((capability) => productOf(capability) !== null)).toEqual(EXPOSURE);
  });

  it('rule 12: single sign-on is the owner’s alone', () => {
    expect(holders('sso.manage')).toEqual(['owner']);
  });
});
