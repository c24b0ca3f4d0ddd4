import { formatIp } from '../../query-language/validation.js';
import { hash, Stream } from './random.js';

/** Permutations of a network's prefixes: local index → a distinct IPv4 or IPv6 address. */

interface Block {
  readonly base: number;
  readonly size: number;
}

export interface AddressSpace {
  readonly blocks: readonly Block[];
  readonly size: number;
  readonly multiplier: number;
  readonly offset: number;
}

function parsePrefix(cidr: string): Block {
  const [address, length] = cidr.split('/') as [string, string];
  const parts = address.split('.').map(Number);
  const base = ((parts[0]! << 24) | (parts[1]! << 16) | (parts[2]! << 8) | parts[3]!) >>> 0;
  return { base, size: 2 ** (32 - Number(length)) };
}

export function gcd(a: number, b: number): number {
  let x = a;
  let y = b;
  while (y) [x, y] = [y, x % y];
  return x;
}

/** An affine permutation of a network's addresses: local index i → a distinct address while i < size. */
export function addressSpace(
  prefixes: readonly string[],
  seed: readonly number[],
  salt: number,
): AddressSpace {
  const blocks = prefixes.map(parsePrefix);
  const size = blocks.reduce((sum, block) => sum + block.size, 0);
  let multiplier = (hash(seed, Stream.Wheel, salt, 1) % Math.max(1, size - 1)) | 1;
  while (gcd(multiplier, size) !== 1) multiplier += 2;
  return { blocks, size, multiplier, offset: hash(seed, Stream.Wheel, salt, 2) % size };
}

export function addressAt(space: AddressSpace, local: number): number[] {
  let position = (space.multiplier * (local % space.size) + space.offset) % space.size;
  for (const block of space.blocks) {
    if (position < block.size) {
      const value = block.base + position;
      return [value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff];
    }
    position -= block.size;
  }
  throw new Error('address outside its network');
}

export function v6Address(prefix: readonly [number, number], local: number, interfaceId: number): string {
  const groups = [
    prefix[0],
    prefix[1],
    (local >>> 16) & 0xffff,
    local & 0xffff,
    0,
    0,
    0,
    interfaceId & 0xffff,
  ];
  return formatIp({ family: 6, bytes: groups.flatMap((group) => [group >> 8, group & 0xff]) });
}
