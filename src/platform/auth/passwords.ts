/**
 * Password hashing with scrypt (node:crypto, off the event loop) at OWASP's parameters: N=2^17, r=8, p=1
 * (128 MiB, about 0.3 s per hash), a 16-byte salt and a 64-byte key, encoded as `scrypt$N$r$p$saltB64$hashB64`
 * (standard base64). The parameters travel with each hash, so older ones (N=2^15 until 2026) still verify, and
 * `passwordNeedsRehash` tells sign-in to replace them.
 *
 * Passwords are NFKC-normalized before hashing (NIST SP 800-63B), so the same password typed on different
 * keyboards verifies. Lengths count Unicode code points of the normalized text: 12 to 1024.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { ServiceError } from '../errors/service-error.js';

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 1024;

/** OWASP's scrypt cost; PASSWORD_HASH_COST may lower it for test suites only (app-config.ts). */
export const DEFAULT_PASSWORD_COST = 2 ** 17;
const BLOCK_SIZE = 8;
const PARALLELISM = 1;
const SALT_BYTES = 16;
const KEY_BYTES = 64;
/** Bounds for parameters read back from stored hashes, so a damaged record cannot ask for gigabytes. */
const MAX_COST = 2 ** 20;
const MAX_BLOCK_SIZE = 32;
const MAX_PARALLELISM = 16;
const MAX_MEMORY_BYTES = 256 * 1024 * 1024;
const MIN_KEY_BYTES = 16;
const MAX_KEY_BYTES = 128;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** Hashes a password for storage; throws ServiceError('invalid_input') when it is too short or too long. */
export async function hashPassword(plain: string, cost = DEFAULT_PASSWORD_COST): Promise<string> {
  const normalized = acceptablePassword(plain);
  if (normalized === null) {
    throw new ServiceError(
      'invalid_input',
      `a password must be between ${PASSWORD_MIN_LENGTH} and ${PASSWORD_MAX_LENGTH} characters long`,
      { field: 'password', minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH },
    );
  }
  const salt = randomBytes(SALT_BYTES);
  const hash = await derive(normalized, salt, KEY_BYTES, cost, BLOCK_SIZE, PARALLELISM);
  return ['scrypt', cost, BLOCK_SIZE, PARALLELISM, salt.toString('base64'), hash.toString('base64')].join(
    '$',
  );
}

/**
 * True when `plain` is the password `encoded` was made from. Never throws on bad input: a malformed record,
 * a non-string or an out-of-range password all answer false.
 *
 * Pass `null` when the account does not exist: a dummy hash is checked so that the answer takes as long as
 * for a real account and does not reveal which accounts exist.
 */
export async function verifyPassword(
  plain: string,
  encoded: string | null | undefined,
  dummyCost = DEFAULT_PASSWORD_COST,
): Promise<boolean> {
  const normalized = acceptablePassword(plain);
  const parsed = typeof encoded === 'string' ? parseEncoded(encoded) : null;
  if (parsed === null || normalized === null) {
    await derive(
      normalized ?? 'not a real password',
      DUMMY_SALT,
      KEY_BYTES,
      dummyCost,
      BLOCK_SIZE,
      PARALLELISM,
    ).catch(() => undefined);
    return false;
  }
  const { cost, blockSize, parallelism, salt, hash } = parsed;
  let candidate: Buffer;
  try {
    candidate = await derive(normalized, salt, hash.length, cost, blockSize, parallelism);
  } catch {
    return false;
  }
  return candidate.length === hash.length && timingSafeEqual(candidate, hash);
}

/** True when a stored hash uses weaker parameters than today's and should be replaced after a login. */
export function passwordNeedsRehash(encoded: string, cost = DEFAULT_PASSWORD_COST): boolean {
  const parsed = parseEncoded(encoded);
  return (
    parsed === null ||
    parsed.cost < cost ||
    parsed.blockSize < BLOCK_SIZE ||
    parsed.parallelism < PARALLELISM ||
    parsed.hash.length < KEY_BYTES ||
    parsed.salt.length < SALT_BYTES
  );
}

/** The normalized password when its length is acceptable, else null. */
function acceptablePassword(plain: unknown): string | null {
  // The UTF-16 length bounds the code point count from above (x1) and below (x1/2): reject huge input early.
  if (typeof plain !== 'string' || plain.length > PASSWORD_MAX_LENGTH * 4) return null;
  const normalized = plain.normalize('NFKC');
  let codePoints = 0;
  for (const _ of normalized) {
    codePoints += 1;
    if (codePoints > PASSWORD_MAX_LENGTH) return null;
  }
  return codePoints < PASSWORD_MIN_LENGTH ? null : normalized;
}

interface ParsedHash {
  readonly cost: number;
  readonly blockSize: number;
  readonly parallelism: number;
  readonly salt: Buffer;
  readonly hash: Buffer;
}

function parseEncoded(encoded: string): ParsedHash | null {
  if (encoded.length > 512) return null;
  const parts = encoded.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return null;
  const [, costText, blockText, parallelText, saltText, hashText] = parts as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  const cost = positiveInteger(costText);
  const blockSize = positiveInteger(blockText);
  const parallelism = positiveInteger(parallelText);
  if (cost === null || blockSize === null || parallelism === null) return null;
  if (cost < 2 || cost > MAX_COST || (cost & (cost - 1)) !== 0) return null;
  if (blockSize > MAX_BLOCK_SIZE || parallelism > MAX_PARALLELISM) return null;
  if (memoryFor(cost, blockSize, parallelism) > MAX_MEMORY_BYTES) return null;
  if (!BASE64.test(saltText) || !BASE64.test(hashText)) return null;
  const salt = Buffer.from(saltText, 'base64');
  const hash = Buffer.from(hashText, 'base64');
  if (salt.length < 8 || hash.length < MIN_KEY_BYTES || hash.length > MAX_KEY_BYTES) return null;
  return { cost, blockSize, parallelism, salt, hash };
}

function positiveInteger(text: string): number | null {
  if (!/^[1-9][0-9]{0,9}$/.test(text)) return null;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : null;
}

function derive(
  password: string,
  salt: Buffer,
  keyLength: number,
  cost: number,
  blockSize: number,
  parallelism: number,
): Promise<Buffer> {
  const options: ScryptOptions = {
    N: cost,
    r: blockSize,
    p: parallelism,
    // Node's default maxmem (32 MiB) is below what N=2^17, r=8 needs (128 MiB): allow this hash's need plus slack.
    maxmem: memoryFor(cost, blockSize, parallelism) + 16 * 1024 * 1024,
  };
  return new Promise((resolve, reject) => {
    scrypt(password, salt, keyLength, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** Bytes scrypt allocates: 128 * N * r for the V array plus 128 * r * p for the B blocks. */
function memoryFor(cost: number, blockSize: number, parallelism: number): number {
  return 128 * cost * blockSize + 128 * blockSize * parallelism;
}

const DUMMY_SALT = randomBytes(SALT_BYTES);
