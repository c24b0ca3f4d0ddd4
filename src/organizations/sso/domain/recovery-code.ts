/**
 * The recovery code's shape: 25 characters of Crockford base32 (125 bits) shown in five groups,
 * `XXXXX-XXXXX-XXXXX-XXXXX-XXXXX`. Typing is forgiving (case, spaces and dashes do not matter, and the
 * look-alikes O/I/L read as 0/1/1). Only the SHA-256 of the normalized code is stored: with 125 random bits a
 * fast hash is as strong as a slow one.
 */
import { createHash } from 'node:crypto';

export const RECOVERY_CODE_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
export const RECOVERY_CODE_LENGTH = 25;

/** Formats 25 alphabet characters (from random bytes) into the displayed groups. */
export function formatRecoveryCode(randomBytes: Uint8Array): string {
  if (randomBytes.length < RECOVERY_CODE_LENGTH) throw new Error('a recovery code needs 25 random bytes');
  let text = '';
  for (let i = 0; i < RECOVERY_CODE_LENGTH; i++) text += RECOVERY_CODE_ALPHABET[randomBytes[i]! & 31];
  return text.match(/.{5}/g)!.join('-');
}

/** The canonical form, or null when the input cannot be a recovery code. */
export function normalizeRecoveryCode(input: unknown): string | null {
  if (typeof input !== 'string' || input.length > 100) return null;
  const text = input.toUpperCase().replace(/[\s-]/g, '').replace(/O/g, '0').replace(/[IL]/g, '1');
  if (text.length !== RECOVERY_CODE_LENGTH) return null;
  for (const char of text) if (!RECOVERY_CODE_ALPHABET.includes(char)) return null;
  return text;
}

/** SHA-256 (hex) of the normalized code; an unusable input hashes to a value no issued code has. */
export function hashRecoveryCode(input: unknown): string {
  const normalized = normalizeRecoveryCode(input) ?? `invalid:${String(input).slice(0, 100)}`;
  return createHash('sha256').update(`sso-recovery:${normalized}`, 'utf8').digest('hex');
}
