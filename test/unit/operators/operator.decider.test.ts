import { describe, expect, it } from '@jest/globals';
import {
  operatorDecider,
  operatorStreamId,
  type OperatorEvent,
} from '../../../src/operators/domain/operator.js';
import {
  generateOperatorCredential,
  operatorSecretMatches,
  parseOperatorCredential,
} from '../../../src/platform/auth/operator-credentials.js';
import { deciderSpec } from '../../support/decider-spec.js';

const { given } = deciderSpec(operatorDecider);
const now = new Date('2026-03-10T09:15:00.000Z');
const at = now.toISOString();

const added: OperatorEvent[] = [
  { type: 'OperatorAdded', data: { name: 'alice', addedAt: at } },
  { type: 'OperatorCredentialIssued', data: { name: 'alice', credentialId: 'c1', issuedAt: at } },
];

describe('operator decider', () => {
  it('names the stream after the operator', () => {
    expect(operatorStreamId('alice')).toBe('operator-alice');
  });

  it('adds an operator with its first credential, once', () => {
    const { state } = given([])
      .when({ type: 'AddOperator', name: 'alice', credentialId: 'c1' }, { now })
      .then(added);
    expect(state).toEqual({ name: 'alice', credentials: { c1: true } });
    given(added)
      .when({ type: 'AddOperator', name: 'alice', credentialId: 'c2' }, { now })
      .then('already_exists');
  });

  it('refuses a name that is no identity', () => {
    for (const name of ['', 'Alice', '1st', 'a b', 'a:b', 'x'.repeat(41)]) {
      given([]).when({ type: 'AddOperator', name, credentialId: 'c1' }, { now }).then('invalid_input');
    }
  });

  it('revokes a credential once; an unknown one is not found', () => {
    const revoked: OperatorEvent = {
      type: 'OperatorCredentialRevoked',
      data: { name: 'alice', credentialId: 'c1', revokedAt: at },
    };
    const { state } = given(added)
      .when({ type: 'RevokeOperatorCredential', credentialId: 'c1' }, { now })
      .then([revoked]);
    expect(state.credentials).toEqual({ c1: false });
    given([...added, revoked])
      .when({ type: 'RevokeOperatorCredential', credentialId: 'c1' }, { now })
      .then([]);
    given(added).when({ type: 'RevokeOperatorCredential', credentialId: 'c9' }, { now }).then('not_found');
    given([]).when({ type: 'RevokeOperatorCredential', credentialId: 'c1' }, { now }).then('not_found');
  });
});

describe('operator credentials', () => {
  it('parse back to their id and secret, match only their own hash, and refuse anything else', () => {
    const one = generateOperatorCredential();
    const other = generateOperatorCredential();
    const parsed = parseOperatorCredential(one.credential);
    expect(parsed?.credentialId).toBe(one.credentialId);
    expect(operatorSecretMatches(parsed!.secret, one.secretHash)).toBe(true);
    expect(operatorSecretMatches(parsed!.secret, other.secretHash)).toBe(false);
    expect(operatorSecretMatches(parsed!.secret, 'not-a-hash')).toBe(false);
    expect(one.secretHash).not.toContain(parsed!.secret);
    for (const text of ['', 'opc_', `exr_${one.credential.slice(4)}`, `${one.credential}x`, 42, null]) {
      expect(parseOperatorCredential(text)).toBeNull();
    }
  });
});
