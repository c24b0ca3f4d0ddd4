/**
 * Operator credentials (ADR 68): `opc_<credentialId>_<secret>`, printed once by `operators add` (or written to
 * DATA_DIR at the first start) and stored only as a SHA-256 of the secret, beside the log, never in an event.
 *
 * - credentialId: 12 random lowercase base32 characters; not secret, events name it (`operator_credential:<id>`).
 * - secret: 32 random bytes, base64url without padding (43 characters).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const PREFIX = 'opc_';
const ID_LENGTH = 12;
const SECRET_BYTES = 32;
const BASE32_ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const PATTERN = /^opc_([a-z2-7]{12})_([A-Za-z0-9_-]{43})$/;
const SHA256_HEX = /^[0-9a-f]{64}$/;

export interface GeneratedOperatorCredential {
  readonly credentialId: string;
  /** The whole credential, shown once. */
  readonly credential: string;
  /** What is stored: SHA-256 (hex) of the secret. */
  readonly secretHash: string;
}

export function generateOperatorCredential(): GeneratedOperatorCredential {
  // 256 is a multiple of 32: the low five bits of each byte are unbiased.
  const credentialId = Array.from(randomBytes(ID_LENGTH), (byte) => BASE32_ALPHABET[byte & 31]).join('');
  const secret = randomBytes(SECRET_BYTES).toString('base64url');
  return {
    credentialId,
    credential: `${PREFIX}${credentialId}_${secret}`,
    secretHash: hashOperatorSecret(secret),
  };
}

/** The id and secret of a presented credential; null for anything that is not exactly one. */
export function parseOperatorCredential(text: unknown): { credentialId: string; secret: string } | null {
  if (typeof text !== 'string') return null;
  const match = PATTERN.exec(text.trim());
  if (!match) return null;
  const secret = match[2] as string;
  if (Buffer.from(secret, 'base64url').toString('base64url') !== secret) return null;
  return { credentialId: match[1] as string, secret };
}

/** A fast hash suffices: the secret is 256 random bits, nothing to guess (as for API keys). */
export function hashOperatorSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function operatorSecretMatches(secret: string, storedHash: string): boolean {
  if (!SHA256_HEX.test(storedHash)) return false;
  return timingSafeEqual(Buffer.from(hashOperatorSecret(secret), 'hex'), Buffer.from(storedHash, 'hex'));
}
