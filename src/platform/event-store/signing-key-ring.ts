/**
 * Key rotation of the checkpoint signing key (ADR 0076): the key ring a verifier trusts, the rotation record
 * the log keeps, and the judgement of a checkpoint against both. Trust never comes from the log: the ring is
 * the active key plus retired public keys kept outside the database (DATA_DIR/event-log-keys/<key id>.pem,
 * EVENT_LOG_TRUSTED_KEYS_FILE, or the auditor's `--trusted-key` files). The log only says when a key was
 * retired, in a record both the retiring and the succeeding key signed.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { keyIdOf, verifyText, type CheckpointSigner } from './checkpoint-signer.js';
import {
  checkpointSigningText,
  type ChainCheckpoint,
  type ChainHead,
  type TamperFinding,
} from './event-log-integrity.js';
import { comparePositions, type GlobalPosition } from './global-position.js';

/** DATA_DIR's folder of retired public keys, one `<key id>.pem` each. */
export const RETIRED_KEYS_DIR = 'event-log-keys';
export const KEY_ROTATION_STREAM = '$event-log-keys';
export const KEY_ROTATION_EVENT_TYPE = 'SigningKeyRotated';

/** A public key the verifier trusts, and what the ring says of its retirement. */
export interface TrustedKey {
  readonly keyId: string;
  readonly publicKeyPem: string;
  readonly publicKey: KeyObject;
  /** ISO-8601 time of retirement, when the ring holds it as retired (a `Retired-At:` header). */
  readonly retiredAt: string | null;
  readonly successorKeyId: string | null;
  /** Where the ring found it (a file, the configuration). */
  readonly source: string;
}

/**
 * Parses one or more PEM blocks (public or private Ed25519 keys; a private key stands for its public half),
 * each optionally preceded by `Name: value` header lines (`Retired-At`, `Successor-Key-Id`).
 */
export function parseTrustedKeys(
  text: string,
  source: string,
  options: { readonly allowEmpty?: boolean } = {},
): TrustedKey[] {
  const keys: TrustedKey[] = [];
  const block = /((?:^[A-Za-z-]+:[^\n]*\n)*)(-----BEGIN ([A-Z ]+)-----[\s\S]*?-----END \3-----)/gm;
  for (const match of text.matchAll(block)) {
    const headers = new Map<string, string>();
    for (const line of match[1]!.split('\n')) {
      const at = line.indexOf(':');
      if (at > 0) headers.set(line.slice(0, at).trim().toLowerCase(), line.slice(at + 1).trim());
    }
    let publicKey: KeyObject;
    try {
      publicKey = createPublicKey(match[2]!);
    } catch (error) {
      throw new Error(
        `${source}: not a public key PEM (${error instanceof Error ? error.message : 'unreadable'})`,
        {
          cause: error,
        },
      );
    }
    if (publicKey.asymmetricKeyType !== 'ed25519')
      throw new Error(
        `${source}: an Ed25519 key is needed, got ${publicKey.asymmetricKeyType ?? 'another kind'}`,
      );
    keys.push({
      keyId: keyIdOf(publicKey),
      publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      publicKey,
      retiredAt: headers.get('retired-at') ?? null,
      successorKeyId: headers.get('successor-key-id') ?? null,
      source,
    });
  }
  // A configured file may be set up empty, ahead of the first rotation.
  if (keys.length === 0 && !(options.allowEmpty && text.trim() === ''))
    throw new Error(`${source}: no PEM key in it`);
  return keys;
}

/** A retired key's file in the ring: its headers, then its public key. */
export function retiredKeyText(key: {
  readonly keyId: string;
  readonly publicKeyPem: string;
  readonly retiredAt: string;
  readonly successorKeyId: string;
}): string {
  return (
    `Key-Id: ${key.keyId}\nRetired-At: ${key.retiredAt}\nSuccessor-Key-Id: ${key.successorKeyId}\n` +
    key.publicKeyPem.trimEnd() +
    '\n'
  );
}

/** The keys a verification trusts, by key id. */
export class KeyRing {
  private readonly byId = new Map<string, TrustedKey>();

  constructor(keys: readonly TrustedKey[]) {
    // A key named twice keeps what says most about it (a retirement beats none).
    for (const key of keys) {
      const known = this.byId.get(key.keyId);
      if (!known || (known.retiredAt === null && key.retiredAt !== null)) this.byId.set(key.keyId, key);
    }
  }

  /** A ring of these signers' public keys (none retired). */
  static fromSigners(signers: readonly CheckpointSigner[]): KeyRing {
    return new KeyRing(signers.map((signer) => activeKey(signer)));
  }

  /** The ring of the service: its active key, DATA_DIR's retired keys and the configured file's. */
  static load(options: {
    readonly active: CheckpointSigner;
    readonly dataDir: string;
    readonly trustedKeysFile?: string | undefined;
  }): KeyRing {
    const keys: TrustedKey[] = [activeKey(options.active)];
    const dir = join(options.dataDir, RETIRED_KEYS_DIR);
    let names: string[] = [];
    try {
      names = readdirSync(dir).filter((name) => name.endsWith('.pem'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    for (const name of names.sort()) {
      const path = join(dir, name);
      keys.push(...parseTrustedKeys(readFileSync(path, 'utf8'), path));
    }
    if (options.trustedKeysFile) {
      const path = options.trustedKeysFile;
      keys.push(
        ...parseTrustedKeys(readFileSync(path, 'utf8'), `EVENT_LOG_TRUSTED_KEYS_FILE (${path})`, {
          allowEmpty: true,
        }),
      );
    }
    return new KeyRing(keys);
  }

  /** An auditor's ring: only the keys in these files (`events verify --trusted-key`). */
  static fromFiles(paths: readonly string[]): KeyRing {
    return new KeyRing(
      paths.flatMap((path) => {
        let text: string;
        try {
          text = readFileSync(path, 'utf8');
        } catch (error) {
          throw new Error(
            `--trusted-key ${path}: ${error instanceof Error ? error.message : String(error)}`,
            {
              cause: error,
            },
          );
        }
        return parseTrustedKeys(text, `--trusted-key ${path}`);
      }),
    );
  }

  get(keyId: string): TrustedKey | undefined {
    return this.byId.get(keyId);
  }

  get keys(): readonly TrustedKey[] {
    return [...this.byId.values()];
  }
}

function activeKey(signer: CheckpointSigner): TrustedKey {
  return {
    keyId: signer.keyId,
    publicKeyPem: signer.publicKeyPem,
    publicKey: signer.publicKey,
    retiredAt: null,
    successorKeyId: null,
    source: 'the active signing key',
  };
}

/** Writes a retired public key into DATA_DIR's ring, whole (temp file, then rename). */
export function writeRetiredKey(dataDir: string, text: string, keyId: string): string {
  const dir = join(dataDir, RETIRED_KEYS_DIR);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${keyId}.pem`);
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, text, { mode: 0o644 });
  renameSync(temp, path);
  return path;
}

/** Takes a retired key's entry back out of DATA_DIR's ring (a rotation that was not recorded). */
export function removeRetiredKey(dataDir: string, keyId: string): void {
  rmSync(join(dataDir, RETIRED_KEYS_DIR, `${keyId}.pem`), { force: true });
}

/** The rotation record (the `SigningKeyRotated` event's data): public keys and key ids only, never a secret. */
export interface KeyRotation {
  readonly retiredKeyId: string;
  readonly retiredPublicKey: string;
  readonly successorKeyId: string;
  readonly successorPublicKey: string;
  /** ISO-8601 time of the rotation. */
  readonly retiredAt: string;
  /** The sealed head when the rotation was decided (null for an empty log). */
  readonly sealedThrough: ChainHead | null;
  readonly reason: string;
  /** `operator:<name>`, as the event's actor. */
  readonly operator: string;
  /** Base64 Ed25519 signatures of keyRotationSigningText by the retiring key and by its successor. */
  readonly signatures: { readonly retired: string; readonly successor: string };
}

/** What both keys sign: the record without its signatures, keys sorted. */
export function keyRotationSigningText(rotation: Omit<KeyRotation, 'signatures'>): string {
  return JSON.stringify({
    operator: rotation.operator,
    reason: rotation.reason,
    retiredAt: rotation.retiredAt,
    retiredKeyId: rotation.retiredKeyId,
    retiredPublicKey: rotation.retiredPublicKey,
    sealedThrough: rotation.sealedThrough && {
      chainHead: rotation.sealedThrough.chainHead,
      chainIndex: rotation.sealedThrough.chainIndex,
      position: rotation.sealedThrough.position,
    },
    successorKeyId: rotation.successorKeyId,
    successorPublicKey: rotation.successorPublicKey,
  });
}

/** A rotation record as the log holds it. */
export interface RecordedRotation {
  readonly rotation: KeyRotation;
  readonly position: GlobalPosition;
  readonly eventId: string;
}

/** A key's retirement as the log attests it: checkpoints it signs from this position on are refused. */
export interface Retirement {
  readonly position: GlobalPosition;
  readonly rotation: KeyRotation;
}

/**
 * The keys' history as the log and the ring attest it together: which rotations hold (both signatures valid,
 * both keys trusted), the first that does not, and a key the ring holds as retired that no rotation retires.
 */
export class KeyHistory {
  private constructor(
    readonly ring: KeyRing,
    private readonly retirements: ReadonlyMap<string, Retirement>,
    readonly rotations: readonly RecordedRotation[],
    /** The first rotation record (or ring entry) that does not hold; verification reports it. */
    readonly finding: TamperFinding | null,
  ) {}

  static check(ring: KeyRing, rotations: readonly RecordedRotation[]): KeyHistory {
    const retirements = new Map<string, Retirement>();
    let finding: TamperFinding | null = null;
    const refuse = (recorded: RecordedRotation, detail: string): void => {
      finding ??= {
        kind: 'checkpoint_mismatch',
        position: recorded.position,
        eventId: recorded.eventId,
        streamId: KEY_ROTATION_STREAM,
        detail,
      };
    };
    for (const recorded of rotations) {
      const { rotation } = recorded;
      // Read from the log: a forged record may lack any field.
      const signatures = (rotation.signatures as Partial<KeyRotation['signatures']> | undefined) ?? {};
      const retired = ring.get(rotation.retiredKeyId);
      const successor = ring.get(rotation.successorKeyId);
      const text = keyRotationSigningText(rotation);
      const what = `the key rotation at position ${recorded.position} (${rotation.retiredKeyId} → ${rotation.successorKeyId})`;
      if (!retired)
        refuse(recorded, `${what} retires key ${rotation.retiredKeyId}, which no trusted key ring holds`);
      else if (!successor)
        refuse(
          recorded,
          `${what} hands over to key ${rotation.successorKeyId}, which no trusted key ring holds`,
        );
      else if (!verifyText(retired.publicKey, text, signatures.retired))
        refuse(recorded, `${what} is not signed by the retiring key ${rotation.retiredKeyId}`);
      else if (!verifyText(successor.publicKey, text, signatures.successor))
        refuse(recorded, `${what} is not signed by the succeeding key ${rotation.successorKeyId}`);
      else if (retirements.has(rotation.retiredKeyId))
        refuse(recorded, `${what} retires key ${rotation.retiredKeyId} a second time`);
      else retirements.set(rotation.retiredKeyId, { position: recorded.position, rotation });
    }
    if (!finding) {
      const unattested = ring.keys.find((key) => key.retiredAt !== null && !retirements.has(key.keyId));
      if (unattested)
        finding = {
          kind: 'checkpoint_mismatch',
          position: null,
          eventId: null,
          streamId: KEY_ROTATION_STREAM,
          detail:
            `key ${unattested.keyId} is retired in the key ring (${unattested.source}, since ${unattested.retiredAt}) ` +
            'but the log holds no rotation record retiring it: the record was removed',
        };
    }
    return new KeyHistory(ring, retirements, rotations, finding);
  }

  retirement(keyId: string): Retirement | undefined {
    return this.retirements.get(keyId);
  }

  /** Null when the checkpoint's signature holds under the key its keyId names, at its position; else why not. */
  refusal(checkpoint: ChainCheckpoint): string | null {
    const key = this.ring.get(checkpoint.keyId);
    if (!key)
      return `signed by key ${checkpoint.keyId}, which is unknown: neither the active key nor a retired key held outside the log`;
    const { signature, ...unsigned } = checkpoint;
    if (!verifyText(key.publicKey, checkpointSigningText(unsigned), signature))
      return `its signature does not verify under key ${checkpoint.keyId}`;
    const retirement = this.retirements.get(checkpoint.keyId);
    if (retirement && comparePositions(checkpoint.position, retirement.position) >= 0)
      return (
        `signed by key ${checkpoint.keyId} after its retirement (rotated to ${retirement.rotation.successorKeyId} ` +
        `at position ${retirement.position}, ${retirement.rotation.retiredAt})`
      );
    return null;
  }
}
