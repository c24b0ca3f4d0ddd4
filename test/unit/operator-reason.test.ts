import { describe, expect, it } from '@jest/globals';
import {
  MAX_REASON_LENGTH,
  OperatorRefused,
  REASON_REQUIRED_EXIT,
  requiredReason,
} from '../../src/platform/cli/operator-access.js';
import { loadConfig } from '../../src/platform/config/app-config.js';
import { generateOperatorCredential } from '../../src/platform/auth/operator-credentials.js';

describe('operator reasons (ADR 68)', () => {
  it('keeps a one-line reason, trimmed', () => {
    expect(requiredReason('  invoice 17 paid ', 'accounts purchase')).toBe('invoice 17 paid');
    expect(requiredReason('x'.repeat(MAX_REASON_LENGTH), 'accounts purchase')).toHaveLength(
      MAX_REASON_LENGTH,
    );
  });

  it('refuses none, a blank one, several lines or more than 500 characters, as a usage error', () => {
    for (const reason of [undefined, '', '   ', 'two\nlines', 'x'.repeat(MAX_REASON_LENGTH + 1)]) {
      let refused: unknown;
      try {
        requiredReason(reason, 'keys revoke');
      } catch (error) {
        refused = error;
      }
      expect(refused).toBeInstanceOf(OperatorRefused);
      expect((refused as OperatorRefused).exitCode).toBe(REASON_REQUIRED_EXIT);
    }
  });
});

describe('operator credential configuration', () => {
  it('checks OPERATOR_CREDENTIAL once, never printing it, and defaults the file to DATA_DIR', () => {
    const { credential } = generateOperatorCredential();
    const config = loadConfig({ DATA_DIR: '/srv/data', OPERATOR_CREDENTIAL: credential });
    expect(config.operatorCredential).toBe(credential);
    expect(config.operatorCredentialFile).toBe('/srv/data/operator-credential');
    expect(loadConfig({ OPERATOR_CREDENTIAL_FILE: 'ops/cred' }, '/home/op').operatorCredentialFile).toBe(
      '/home/op/ops/cred',
    );
    expect(() => loadConfig({ OPERATOR_CREDENTIAL: 'opc_secret-but-wrong' })).toThrow(
      /OPERATOR_CREDENTIAL must be an operator credential/,
    );
    expect(() => loadConfig({ OPERATOR_CREDENTIAL: 'opc_secret-but-wrong' })).not.toThrow(/secret-but-wrong/);
  });
});
