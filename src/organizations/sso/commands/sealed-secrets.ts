/**
 * Sealing of the provider client secret with the service's data key (AES-256-GCM, a fresh 96-bit IV each time).
 * The organization id is the additional authenticated data: a sealed secret copied into another organization's
 * stream does not open. Events and read models only ever hold the sealed form.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { SealedSecret } from '../domain/sso.js';

const ALGORITHM = 'aes-256-gcm';

export function dataKeyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('base64url').slice(0, 16);
}

export function sealSecret(key: Buffer, organizationId: string, clear: string): SealedSecret {
  const iv = randomBytes(12);
  const cipher = createCipheriv(ALGORITHM, key, iv);
  cipher.setAAD(Buffer.from(`sso-client-secret:${organizationId}`, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(clear, 'utf8'), cipher.final()]);
  return {
    alg: 'A256GCM',
    kid: dataKeyId(key),
    iv: iv.toString('base64url'),
    ciphertext: ciphertext.toString('base64url'),
    tag: cipher.getAuthTag().toString('base64url'),
  };
}

export function openSecret(key: Buffer, organizationId: string, sealed: SealedSecret): string {
  if (sealed.alg !== 'A256GCM' || sealed.kid !== dataKeyId(key)) {
    throw new Error('the client secret was sealed with another data key');
  }
  const decipher = createDecipheriv(ALGORITHM, key, Buffer.from(sealed.iv, 'base64url'));
  decipher.setAAD(Buffer.from(`sso-client-secret:${organizationId}`, 'utf8'));
  decipher.setAuthTag(Buffer.from(sealed.tag, 'base64url'));
  return Buffer.concat([
    decipher.update(Buffer.from(sealed.ciphertext, 'base64url')),
    decipher.final(),
  ]).toString('utf8');
}
