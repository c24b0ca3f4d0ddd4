import { createHash } from 'node:crypto';

/** Namespace for name-based (v5) event ids of this service. */
const EVENT_ID_NAMESPACE = 'a7d1c4e2-5b0f-4e7a-9c3d-2f6b8e1a0c55';

/**
 * The id of the n-th event produced by a command: a UUID v5 of the command id and the index.
 * A retried command therefore produces the same event ids and the store keeps them once.
 */
export function eventIdFor(commandId: string, index: number): string {
  return uuidV5(`${commandId}#${index}`, EVENT_ID_NAMESPACE);
}

export function uuidV5(name: string, namespace: string): string {
  const ns = Buffer.from(namespace.replace(/-/g, ''), 'hex');
  const hash = createHash('sha1').update(ns).update(name, 'utf8').digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
