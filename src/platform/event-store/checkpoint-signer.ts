/**
 * The Ed25519 key that signs chain checkpoints (ADR 0061). Given by KEY_FILE or EVENT_LOG_SIGNING_KEY (a PEM,
 * for production), or generated at first start in DATA_DIR (mode 0600). The public key is published at
 * `GET /.well-known/event-log-key` and in `events checkpoint --json`.
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign,
  verify,
} from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkpointSigningText, type ChainCheckpoint, type ChainHead } from './event-log-integrity.js';

export const GENERATED_KEY_FILE = 'event-log-signing-key.pem';

export interface SigningKeySource {
  readonly dataDir: string;
  /** A PEM file (KEY_FILE). */
  readonly keyFile?: string | undefined;
  /** The PEM itself (EVENT_LOG_SIGNING_KEY). */
  readonly keyPem?: string | undefined;
}

/** Parses an Ed25519 private key in PKCS#8 PEM; throws a message fit for a configuration error. */
export function parseSigningKey(pem: string): KeyObject {
  const key = createPrivateKey(pem);
  if (key.asymmetricKeyType !== 'ed25519')
    throw new Error(`an Ed25519 private key is needed, got ${key.asymmetricKeyType ?? 'a secret key'}`);
  return key;
}

/** First 16 hex digits of the SHA-256 of the public key (SPKI DER): how checkpoints and the key ring name a key. */
export function keyIdOf(publicKey: KeyObject): string {
  return createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('hex')
    .slice(0, 16);
}

/** True when `signature` (base64) is `publicKey`'s Ed25519 signature of `text`. */
export function verifyText(publicKey: KeyObject, text: string, signature: unknown): boolean {
  if (typeof signature !== 'string') return false;
  try {
    return verify(null, Buffer.from(text), publicKey, Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}

export class CheckpointSigner {
  readonly keyId: string;
  readonly publicKeyPem: string;
  readonly publicKey: KeyObject;

  private constructor(private readonly privateKey: KeyObject) {
    this.publicKey = createPublicKey(privateKey);
    this.publicKeyPem = this.publicKey.export({ type: 'spki', format: 'pem' }).toString();
    this.keyId = keyIdOf(this.publicKey);
  }

  static fromPem(pem: string): CheckpointSigner {
    return new CheckpointSigner(parseSigningKey(pem));
  }

  /** A new key (rotation): the signer and its private PEM, to be stored by whoever installs it. */
  static generate(): { readonly signer: CheckpointSigner; readonly pem: string } {
    const { privateKey } = generateKeyPairSync('ed25519');
    return {
      signer: new CheckpointSigner(privateKey),
      pem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    };
  }

  /** Replaces the key generated in DATA_DIR whole (a rotation's new key), mode 0600; answers the PEM it replaced. */
  static installGenerated(dataDir: string, pem: string): string | null {
    parseSigningKey(pem);
    mkdirSync(dataDir, { recursive: true });
    const path = join(dataDir, GENERATED_KEY_FILE);
    let replaced: string | null = null;
    try {
      replaced = readFileSync(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const temp = `${path}.${process.pid}.tmp`;
    writeFileSync(temp, pem, { mode: 0o600 });
    renameSync(temp, path);
    return replaced;
  }

  /** The configured key, or the one in DATA_DIR, generated (mode 0600) when there is none yet. */
  static load(source: SigningKeySource): CheckpointSigner {
    if (source.keyPem) return CheckpointSigner.fromPem(source.keyPem);
    if (source.keyFile) return CheckpointSigner.fromPem(readFileSync(source.keyFile, 'utf8'));
    const path = join(source.dataDir, GENERATED_KEY_FILE);
    try {
      return CheckpointSigner.fromPem(readFileSync(path, 'utf8'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    mkdirSync(source.dataDir, { recursive: true });
    const { privateKey } = generateKeyPairSync('ed25519');
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    try {
      // `wx`: a process that generated one at the same moment wins, and everyone reads its key.
      writeFileSync(path, pem, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      return CheckpointSigner.fromPem(readFileSync(path, 'utf8'));
    }
    return new CheckpointSigner(privateKey);
  }

  sign(head: ChainHead, at: Date): ChainCheckpoint {
    const unsigned = { ...head, at: at.toISOString(), keyId: this.keyId };
    const signature = sign(null, Buffer.from(checkpointSigningText(unsigned)), this.privateKey);
    return { ...unsigned, signature: signature.toString('base64') };
  }

  /** Base64 Ed25519 signature of `text` (a key rotation's hand-over). */
  signText(text: string): string {
    return sign(null, Buffer.from(text), this.privateKey).toString('base64');
  }

  /** True when this key signed exactly this checkpoint. */
  verify(checkpoint: ChainCheckpoint): boolean {
    if (checkpoint.keyId !== this.keyId) return false;
    return verifyText(this.publicKey, checkpointSigningText(checkpoint), checkpoint.signature);
  }
}
