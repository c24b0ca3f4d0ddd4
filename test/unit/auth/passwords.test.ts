import { randomBytes, scryptSync } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { hashPassword, passwordNeedsRehash, verifyPassword } from '../../../src/platform/auth/passwords.js';
import { ServiceError } from '../../../src/platform/errors/service-error.js';

/**
 * What does not depend on the cost (Unicode, lengths, malformed records) is hashed at the suites' lower cost
 * (global-setup.js): about 8x faster than OWASP's, which the first test keeps.
 */
const LOWER_COST = 2 ** 14;

describe('passwords', () => {
  it('hashes with scrypt parameters and a fresh salt, and verifies', async () => {
    const encoded = await hashPassword('correct horse battery');
    expect(encoded).toMatch(/^scrypt\$131072\$8\$1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{86}==$/);
    expect(await verifyPassword('correct horse battery', encoded)).toBe(true);
    expect(await verifyPassword('correct horse batterY', encoded)).toBe(false);
    expect(await hashPassword('correct horse battery')).not.toBe(encoded);
    expect(passwordNeedsRehash(encoded)).toBe(false);
  });

  it('normalizes Unicode so composed and decomposed forms verify', async () => {
    const encoded = await hashPassword('caf\u00e9 au lait, merci', LOWER_COST);
    expect(await verifyPassword('cafe\u0301 au lait, merci', encoded)).toBe(true);
  });

  it('refuses passwords shorter than 12 or longer than 1024 characters', async () => {
    await expect(hashPassword('short', LOWER_COST)).rejects.toBeInstanceOf(ServiceError);
    await expect(hashPassword('elevenchars', LOWER_COST)).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(hashPassword('x'.repeat(1025), LOWER_COST)).rejects.toMatchObject({ code: 'invalid_input' });
    // Characters are code points: 12 emoji are 24 UTF-16 units but 12 characters.
    await expect(hashPassword('\u{1F511}'.repeat(12), LOWER_COST)).resolves.toMatch(/^scrypt\$/);
    const longest = 'y'.repeat(1024);
    expect(await verifyPassword(longest, await hashPassword(longest, LOWER_COST))).toBe(true);
  });

  it('answers false, never throws, for malformed records and out-of-range input', async () => {
    const encoded = await hashPassword('a perfectly fine password', LOWER_COST);
    const [, , , , salt, hash] = encoded.split('$');
    expect(await verifyPassword('a perfectly fine password', null)).toBe(false);
    expect(await verifyPassword('a perfectly fine password', 'garbage')).toBe(false);
    expect(await verifyPassword('a perfectly fine password', `bcrypt$32768$8$1$${salt}$${hash}`)).toBe(false);
    expect(await verifyPassword('a perfectly fine password', `scrypt$30000$8$1$${salt}$${hash}`)).toBe(false);
    expect(await verifyPassword('a perfectly fine password', `scrypt$1073741824$8$1$${salt}$${hash}`)).toBe(
      false,
    );
    expect(await verifyPassword('a perfectly fine password', `scrypt$32768$8$1$${salt}$!!`)).toBe(false);
    expect(await verifyPassword('x'.repeat(5000), encoded)).toBe(false);
    expect(await verifyPassword(42 as unknown as string, encoded)).toBe(false);
    expect(passwordNeedsRehash('scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$' + 'A'.repeat(86) + '==')).toBe(
      true,
    );
  });

  it('still verifies a hash made with the former parameters (N=2^15) and asks for its replacement', async () => {
    const salt = randomBytes(16);
    const hash = scryptSync('a password from 2025', salt, 64, {
      N: 2 ** 15,
      r: 8,
      p: 1,
      maxmem: 64 * 1024 * 1024,
    });
    const former = `scrypt$32768$8$1$${salt.toString('base64')}$${hash.toString('base64')}`;
    expect(await verifyPassword('a password from 2025', former)).toBe(true);
    expect(await verifyPassword('another password', former)).toBe(false);
    expect(passwordNeedsRehash(former)).toBe(true);
  });
});
