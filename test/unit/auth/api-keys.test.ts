import { describe, expect, it } from '@jest/globals';
import {
  API_KEY_LENGTH,
  apiKeyMatches,
  generateApiKey,
  hashApiKeySecret,
  parseApiKey,
} from '../../../src/platform/auth/api-keys.js';

describe('API keys', () => {
  it('generates exr_<keyId>_<secret> keys with a visible prefix and a stored hash', () => {
    const generated = generateApiKey();
    expect(generated.keyId).toMatch(/^[a-z2-7]{12}$/);
    expect(generated.prefix).toBe(`exr_${generated.keyId}`);
    expect(generated.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(generated.secret, 'base64url')).toHaveLength(32);
    expect(generated.key).toBe(`exr_${generated.keyId}_${generated.secret}`);
    expect(generated.key).toHaveLength(API_KEY_LENGTH);
    expect(generated.secretHash).toBe(hashApiKeySecret(generated.secret));
    expect(generated.secretHash).toMatch(/^[0-9a-f]{64}$/);
    expect(generated.secretHash).not.toContain(generated.secret);
    const others = new Set(Array.from({ length: 50 }, () => generateApiKey().keyId));
    expect(others.size).toBe(50);
  });

  it('parses its own keys, including secrets that contain underscores', () => {
    for (let i = 0; i < 200; i += 1) {
      const { key, keyId, secret } = generateApiKey();
      expect(parseApiKey(key)).toEqual({ keyId, secret });
    }
    const secret = `_${'A'.repeat(41)}_`.slice(0, 42) + 'A';
    expect(parseApiKey(`exr_abcdefgh2345_${secret}`)).toEqual({ keyId: 'abcdefgh2345', secret });
  });

  it('answers null for garbage, wrong prefixes and wrong lengths', () => {
    const { key, keyId, secret } = generateApiKey();
    const cases: unknown[] = [
      undefined,
      null,
      42,
      '',
      'garbage',
      `exp_${keyId}_${secret}`,
      `EXR_${keyId}_${secret}`,
      `exr-${keyId}_${secret}`,
      `exr_${keyId.toUpperCase()}_${secret}`,
      `exr_${keyId}1_${secret}`,
      `exr_${keyId.slice(1)}_${secret}`,
      `exr_${keyId}_${secret}A`,
      `exr_${keyId}_${secret.slice(1)}`,
      `exr_${keyId}_${secret.slice(0, 42)}+`,
      `${key} `,
      ` ${key}`,
      `${key}\n`,
      key + 'x'.repeat(10_000),
      'exr_' + '_'.repeat(56),
    ];
    for (const text of cases) expect(parseApiKey(text)).toBeNull();
    // Non-canonical base64url: the last character's unused bits are set.
    const canonical = `exr_abcdefgh2345_${'A'.repeat(42)}A`;
    expect(parseApiKey(canonical)).not.toBeNull();
    expect(parseApiKey(`exr_abcdefgh2345_${'A'.repeat(42)}B`)).toBeNull();
  });

  it('matches secrets against stored hashes', () => {
    const { secret, secretHash } = generateApiKey();
    expect(apiKeyMatches(secret, secretHash)).toBe(true);
    expect(apiKeyMatches(generateApiKey().secret, secretHash)).toBe(false);
    expect(apiKeyMatches(secret, secretHash.toUpperCase())).toBe(false);
    expect(apiKeyMatches(secret, secretHash.slice(1))).toBe(false);
    expect(apiKeyMatches(secret, '')).toBe(false);
    expect(hashApiKeySecret('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
