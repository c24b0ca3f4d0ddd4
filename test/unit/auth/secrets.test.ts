import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK } from 'jose';
import { ServiceSecrets } from '../../../src/platform/auth/secrets.js';

describe('ServiceSecrets', () => {
  let dataDir: string;

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'secrets-'));
  });
  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('creates private key files once and loads the same material again', async () => {
    const first = await ServiceSecrets.load(dataDir);
    const second = await ServiceSecrets.load(dataDir);

    expect(first.kid).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(second.kid).toBe(first.kid);
    expect(second.csrfSecret.equals(first.csrfSecret)).toBe(true);
    expect(first.csrfSecret).toHaveLength(32);
    expect(await exportJWK(second.jwtPublicKey)).toEqual(await exportJWK(first.jwtPublicKey));
    expect(first.jwtPrivateKey.type).toBe('private');
    expect(first.jwtPublicKey.type).toBe('public');
    expect(first.jwtPublicJwk).toEqual(
      expect.objectContaining({ kty: 'OKP', crv: 'Ed25519', kid: first.kid }),
    );
    expect(first.jwtPublicJwk).not.toHaveProperty('d');

    const keysDir = join(dataDir, 'keys');
    expect((await stat(keysDir)).mode & 0o777).toBe(0o700);
    const files = (await readdir(keysDir)).sort();
    expect(files).toEqual(['csrf-secret.key', 'data-encryption.key', 'jwt-signing-key.json']);
    expect(first.dataEncryptionKey).toHaveLength(32);
    expect(first.dataEncryptionKey.equals(first.csrfSecret)).toBe(false);
    for (const file of files) expect((await stat(join(keysDir, file))).mode & 0o777).toBe(0o600);
    const jwk = JSON.parse(await readFile(join(keysDir, 'jwt-signing-key.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(jwk).toEqual(
      expect.objectContaining({ kty: 'OKP', crv: 'Ed25519', kid: first.kid, alg: 'EdDSA' }),
    );
    expect(typeof jwk.d).toBe('string');
  });

  it('concurrent first loads agree on one key and leave no temp files', async () => {
    const loaded = await Promise.all(Array.from({ length: 12 }, () => ServiceSecrets.load(dataDir)));
    const kids = new Set(loaded.map((s) => s.kid));
    const csrf = new Set(loaded.map((s) => s.csrfSecret.toString('hex')));
    expect(kids.size).toBe(1);
    expect(csrf.size).toBe(1);
    const reloaded = await ServiceSecrets.load(dataDir);
    expect(reloaded.kid).toBe(loaded[0]?.kid);
    expect((await readdir(join(dataDir, 'keys'))).sort()).toEqual([
      'csrf-secret.key',
      'data-encryption.key',
      'jwt-signing-key.json',
    ]);
  });

  it('different data directories get different keys', async () => {
    const other = await mkdtemp(join(tmpdir(), 'secrets-'));
    try {
      const a = await ServiceSecrets.load(dataDir);
      const b = await ServiceSecrets.load(other);
      expect(a.kid).not.toBe(b.kid);
      expect(a.csrfSecret.equals(b.csrfSecret)).toBe(false);
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });

  it('refuses a damaged key file instead of replacing it', async () => {
    await ServiceSecrets.load(dataDir);
    const path = join(dataDir, 'keys', 'jwt-signing-key.json');
    await writeFile(path, '{"kty":"OKP"', { mode: 0o600 });
    await expect(ServiceSecrets.load(dataDir)).rejects.toThrow(/jwt-signing-key\.json/);
    expect(await readFile(path, 'utf8')).toBe('{"kty":"OKP"');

    await rm(path);
    await writeFile(join(dataDir, 'keys', 'csrf-secret.key'), 'dG9vIHNob3J0', { mode: 0o600 });
    await expect(ServiceSecrets.load(dataDir)).rejects.toThrow(/csrf-secret\.key/);
  });
});
