/** Key ring entries (ADR 0076): the PEM blocks a ring file holds, their headers, and what is refused. */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig } from '../../src/platform/config/app-config.js';
import { CheckpointSigner } from '../../src/platform/event-store/checkpoint-signer.js';
import {
  KeyRing,
  parseTrustedKeys,
  retiredKeyText,
} from '../../src/platform/event-store/signing-key-ring.js';

describe('key ring entries', () => {
  const first = CheckpointSigner.generate();
  const second = CheckpointSigner.generate();

  it('reads several blocks, their retirement headers, and a private key as its public half', () => {
    const entry = retiredKeyText({
      keyId: first.signer.keyId,
      publicKeyPem: first.signer.publicKeyPem,
      retiredAt: '2026-11-28T07:00:00.000Z',
      successorKeyId: second.signer.keyId,
    });
    const keys = parseTrustedKeys(`${entry}\n${second.pem}`, 'ring.pem');
    expect(keys.map((key) => [key.keyId, key.retiredAt, key.successorKeyId, key.publicKeyPem])).toEqual([
      [first.signer.keyId, '2026-11-28T07:00:00.000Z', second.signer.keyId, first.signer.publicKeyPem],
      [second.signer.keyId, null, null, second.signer.publicKeyPem],
    ]);
  });

  it('refuses a file with no key, a broken block and a key of another kind, naming the file', () => {
    expect(() => parseTrustedKeys('nothing here\n', 'empty.pem')).toThrow('empty.pem: no PEM key in it');
    expect(() =>
      parseTrustedKeys('-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n', 'broken.pem'),
    ).toThrow(/^broken\.pem: not a public key PEM/);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 })
      .publicKey.export({ type: 'spki', format: 'pem' })
      .toString();
    expect(() => parseTrustedKeys(rsa, 'rsa.pem')).toThrow('rsa.pem: an Ed25519 key is needed, got rsa');
  });

  it('keeps what says most about a key named twice: its retirement', () => {
    const retired = parseTrustedKeys(
      retiredKeyText({
        keyId: first.signer.keyId,
        publicKeyPem: first.signer.publicKeyPem,
        retiredAt: '2026-11-28T07:00:00.000Z',
        successorKeyId: second.signer.keyId,
      }),
      'retired.pem',
    );
    const ring = new KeyRing([...KeyRing.fromSigners([first.signer]).keys, ...retired]);
    expect(ring.keys).toHaveLength(1);
    expect(ring.get(first.signer.keyId)?.retiredAt).toBe('2026-11-28T07:00:00.000Z');
  });
});

describe('EVENT_LOG_TRUSTED_KEYS_FILE', () => {
  it('may start empty, and a file without keys in it stops the start naming the variable', () => {
    const dir = mkdtempSync(join(tmpdir(), 'trusted-keys-'));
    try {
      const file = join(dir, 'trusted.pem');
      writeFileSync(file, '\n');
      expect(
        loadConfig({ DATA_DIR: dir, EVENT_LOG_TRUSTED_KEYS_FILE: file }).eventLogSigningKey.trustedKeysFile,
      ).toBe(file);
      writeFileSync(file, 'not a key\n');
      let error: unknown;
      try {
        loadConfig({ DATA_DIR: dir, EVENT_LOG_TRUSTED_KEYS_FILE: file });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems.join('\n')).toContain(
        `EVENT_LOG_TRUSTED_KEYS_FILE (${file}) is not a file of Ed25519 public keys in PEM`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
