/**
 * The service's own key material, kept in `${dataDir}/keys/` (directory 0700, files 0600):
 *
 * - `jwt-signing-key.json`: an Ed25519 private JWK (with `kid` = its RFC 7638 thumbprint and `alg` EdDSA)
 *   that signs OAuth access tokens;
 * - `csrf-secret.key`: 32 random bytes (base64url text) keying the CSRF token HMAC;
 * - `data-encryption.key`: 32 random bytes (base64url text), the AES-256-GCM key for secrets the service must
 *   keep but never store in clear (an organization's OpenID Connect client secret).
 *
 * Each file is created once and never rewritten. Creation writes a private temp file, fsyncs it, then
 * publishes it with link(2): unlike rename(2), link is atomic AND exclusive (EEXIST when the name exists),
 * so readers never see a partial file and two processes starting at once on an empty directory cannot both
 * win. The loser of that race discards its own material and re-reads the winner's. This needs a filesystem
 * with hard links (any local POSIX filesystem, Docker volumes).
 *
 * A file that exists but does not parse is an error, never silently replaced: replacing the signing key
 * would invalidate every issued token, and a damaged key file deserves an operator's attention.
 */
import { randomBytes } from 'node:crypto';
import { chmod, link, mkdir, open, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import {
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  importJWK,
  type CryptoKey,
  type JWK,
} from 'jose';

export const JWT_SIGNING_ALGORITHM = 'EdDSA';
const KEYS_DIRECTORY = 'keys';
const JWT_KEY_FILE = 'jwt-signing-key.json';
const CSRF_SECRET_FILE = 'csrf-secret.key';
const CSRF_SECRET_BYTES = 32;
const DATA_ENCRYPTION_KEY_FILE = 'data-encryption.key';
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** The public half of the signing key as a JWK (for a JWKS document). */
export interface PublicSigningJwk {
  readonly kty: 'OKP';
  readonly crv: 'Ed25519';
  readonly x: string;
  readonly kid: string;
  readonly alg: typeof JWT_SIGNING_ALGORITHM;
  readonly use: 'sig';
}

export class ServiceSecrets {
  private constructor(
    readonly jwtPrivateKey: CryptoKey,
    readonly jwtPublicKey: CryptoKey,
    /** Key id of the signing key (RFC 7638 thumbprint), carried in every token header. */
    readonly kid: string,
    readonly jwtPublicJwk: PublicSigningJwk,
    /** 32-byte HMAC key for CSRF tokens. */
    readonly csrfSecret: Buffer,
    /** The directory holding the files. */
    readonly keysDir: string,
    /** 32-byte AES-256-GCM key for secrets stored sealed in events (never in clear). */
    readonly dataEncryptionKey: Buffer,
    /** The signing key as a private JWK: the OAuth authorization server's keystore signs tokens with it. */
    readonly jwtPrivateJwk: Readonly<JWK>,
  ) {}

  /** Loads the key material from `${dataDir}/keys/`, creating whatever is missing. Safe to call concurrently. */
  static async load(dataDir: string): Promise<ServiceSecrets> {
    const keysDir = join(dataDir, KEYS_DIRECTORY);
    await mkdir(keysDir, { recursive: true, mode: 0o700 });
    // mkdir leaves an existing directory's mode alone, and the umask may have widened a new one.
    await chmod(keysDir, 0o700);

    const jwkText = await readOrCreate(join(keysDir, JWT_KEY_FILE), createSigningJwk);
    const csrfText = await readOrCreate(join(keysDir, CSRF_SECRET_FILE), async () =>
      randomBytes(CSRF_SECRET_BYTES).toString('base64url'),
    );

    const dataKeyText = await readOrCreate(join(keysDir, DATA_ENCRYPTION_KEY_FILE), async () =>
      randomBytes(CSRF_SECRET_BYTES).toString('base64url'),
    );

    const { privateJwk, publicJwk } = parseSigningJwk(jwkText, join(keysDir, JWT_KEY_FILE));
    const csrfSecret = parseCsrfSecret(csrfText, join(keysDir, CSRF_SECRET_FILE));
    const dataEncryptionKey = parseCsrfSecret(dataKeyText, join(keysDir, DATA_ENCRYPTION_KEY_FILE));
    const jwtPrivateKey = await importJWK(privateJwk, JWT_SIGNING_ALGORITHM);
    const jwtPublicKey = await importJWK(publicJwk, JWT_SIGNING_ALGORITHM);
    if (!isCryptoKey(jwtPrivateKey) || !isCryptoKey(jwtPublicKey)) {
      throw new Error('the JWT signing key did not import as a key pair');
    }
    return new ServiceSecrets(
      jwtPrivateKey,
      jwtPublicKey,
      publicJwk.kid,
      publicJwk,
      csrfSecret,
      keysDir,
      dataEncryptionKey,
      privateJwk,
    );
  }
}

async function createSigningJwk(): Promise<string> {
  const { privateKey } = await generateKeyPair(JWT_SIGNING_ALGORITHM, { crv: 'Ed25519', extractable: true });
  const jwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint({ kty: jwk.kty, crv: jwk.crv, x: jwk.x }, 'sha256');
  return `${JSON.stringify({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, d: jwk.d, kid, alg: JWT_SIGNING_ALGORITHM, use: 'sig' })}\n`;
}

function parseSigningJwk(text: string, path: string): { privateJwk: JWK; publicJwk: PublicSigningJwk } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`${path} is not valid JSON`);
  }
  const jwk = parsed as Partial<Record<string, unknown>> | null;
  if (
    typeof jwk !== 'object' ||
    jwk === null ||
    jwk.kty !== 'OKP' ||
    jwk.crv !== 'Ed25519' ||
    typeof jwk.x !== 'string' ||
    !BASE64URL.test(jwk.x) ||
    typeof jwk.d !== 'string' ||
    !BASE64URL.test(jwk.d) ||
    typeof jwk.kid !== 'string' ||
    jwk.kid.length === 0
  ) {
    throw new Error(`${path} does not hold an Ed25519 private JWK with a kid`);
  }
  const publicJwk: PublicSigningJwk = {
    kty: 'OKP',
    crv: 'Ed25519',
    x: jwk.x,
    kid: jwk.kid,
    alg: JWT_SIGNING_ALGORITHM,
    use: 'sig',
  };
  return { privateJwk: { ...publicJwk, d: jwk.d }, publicJwk };
}

function parseCsrfSecret(text: string, path: string): Buffer {
  const trimmed = text.trim();
  const secret = BASE64URL.test(trimmed) ? Buffer.from(trimmed, 'base64url') : Buffer.alloc(0);
  if (secret.length !== CSRF_SECRET_BYTES) {
    throw new Error(`${path} does not hold a ${CSRF_SECRET_BYTES}-byte base64url secret`);
  }
  return secret;
}

/** Reads `path`; when it does not exist, publishes freshly created content exclusively and re-reads. */
async function readOrCreate(path: string, create: () => Promise<string>): Promise<string> {
  const existing = await readIfExists(path);
  if (existing !== null) return existing;

  const content = await create();
  const temp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(temp, 'wx', 0o600);
  try {
    await handle.writeFile(content, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await link(temp, path);
    await syncDirectory(join(path, '..'));
  } catch (error) {
    if (!hasCode(error, 'EEXIST')) throw error;
    // Another process published first: its material wins, ours was never used.
  } finally {
    await unlink(temp).catch(() => undefined);
  }
  const published = await readIfExists(path);
  if (published === null) throw new Error(`${path} vanished while it was being created`);
  return published;
}

async function readIfExists(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if (hasCode(error, 'ENOENT')) return null;
    throw error;
  }
}

/** Makes the new directory entry durable; best effort where directories cannot be fsynced. */
async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Not supported on this platform or filesystem.
  }
}

function hasCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}

function isCryptoKey(key: unknown): key is CryptoKey {
  return typeof key === 'object' && key !== null && !(key instanceof Uint8Array) && 'type' in key;
}
