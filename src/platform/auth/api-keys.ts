/**
 * Personal API keys: `exr_<keyId>_<secret>`, shown once at creation and stored only as a hash.
 *
 * - keyId: 12 random lowercase base32 characters (RFC 4648 alphabet a-z, 2-7; 60 bits). It is not secret:
 *   it finds the stored record and, with the `exr_` prefix, is what lists show (`prefix`).
 * - secret: 32 random bytes, base64url without padding (43 characters; may itself contain `_` and `-`).
 *
 * The whole key is 60 characters. Parsing is strict (exact length, alphabets, canonical base64url) and
 * answers null for anything else, without throwing.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const API_KEY_PREFIX = 'exr_';
const KEY_ID_LENGTH = 12;
const SECRET_BYTES = 32;
const SECRET_LENGTH = 43; // base64url of 32 bytes, unpadded
export const API_KEY_LENGTH = API_KEY_PREFIX.length + KEY_ID_LENGTH + 1 + SECRET_LENGTH;
const BASE32_ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const API_KEY_PATTERN = /^exr_([a-z2-7]{12})_([A-Za-z0-9_-]{43})$/;
const SHA256_HEX = /^[0-9a-f]{64}$/;

export interface GeneratedApiKey {
  readonly keyId: string;
  /** `exr_<keyId>`: safe to store and display. */
  readonly prefix: string;
  readonly secret: string;
  /** The full key, to show the caller exactly once. */
  readonly key: string;
  /** What to store: hashApiKeySecret(secret). */
  readonly secretHash: string;
}

export function generateApiKey(): GeneratedApiKey {
  // 256 is a multiple of 32, so taking the low five bits of each byte is unbiased.
  const keyId = Array.from(randomBytes(KEY_ID_LENGTH), (byte) => BASE32_ALPHABET[byte & 31]).join('');
  const secret = randomBytes(SECRET_BYTES).toString('base64url');
  const prefix = `${API_KEY_PREFIX}${keyId}`;
  return { keyId, prefix, secret, key: `${prefix}_${secret}`, secretHash: hashApiKeySecret(secret) };
}

/** Splits a presented key into its id and secret; null for anything that is not exactly a key. */
export function parseApiKey(text: unknown): { keyId: string; secret: string } | null {
  if (typeof text !== 'string' || text.length !== API_KEY_LENGTH) return null;
  const match = API_KEY_PATTERN.exec(text);
  if (!match) return null;
  const keyId = match[1] as string;
  const secret = match[2] as string;
  // Canonical encoding only: the last character carries 2 unused bits that must be zero.
  if (Buffer.from(secret, 'base64url').toString('base64url') !== secret) return null;
  return { keyId, secret };
}

/**
 * The stored form of a key secret: SHA-256, hex. A fast hash is appropriate here (unlike passwords): the
 * secret is 256 bits from a CSPRNG, so there is nothing to guess or brute-force, and a slow KDF would only
 * cost CPU on every API request.
 */
export function hashApiKeySecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Timing-safe comparison of a presented secret with a stored hash; false for a malformed stored hash. */
export function apiKeyMatches(secret: string, storedHash: string): boolean {
  if (typeof secret !== 'string' || typeof storedHash !== 'string' || !SHA256_HEX.test(storedHash)) {
    return false;
  }
  return timingSafeEqual(Buffer.from(hashApiKeySecret(secret), 'hex'), Buffer.from(storedHash, 'hex'));
}
