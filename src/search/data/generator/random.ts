/**
 * The generator's only source of randomness: stateless hashes and one seeded sfc32 stream per entity, so
 * entities stay independent of generation order.
 */

export function cyrb128(text: string): [number, number, number, number] {
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}

export function fmix32(input: number): number {
  let h = input;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Independent streams of randomness, one per kind of entity. */
export const enum Stream {
  Host = 1,
  Own = 2,
  Domain = 3,
  DomainDns = 4,
  Whois = 5,
  Cert = 6,
  Device = 7,
  V6 = 8,
  Ct = 9,
  Wheel = 10,
  Calibration = 11,
}

/** Stateless 32-bit hash of (seed, stream, index). */
export function hash(seed: readonly number[], stream: number, index: number, salt = 0): number {
  return fmix32(
    (seed[0]! ^ fmix32(Math.imul(stream, 0x9e3779b1) ^ salt)) +
      fmix32((index >>> 0) ^ seed[1]!) +
      Math.imul(Math.floor(index / 4294967296), 0x27d4eb2d),
  );
}

export function unit(seed: readonly number[], stream: number, index: number, salt = 0): number {
  return hash(seed, stream, index, salt) / 4294967296;
}

/** sfc32: small, fast, good statistical quality; one instance per entity keeps entities independent. */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d = 1;

  constructor(seed: readonly number[], stream: number, index: number, salt = 0) {
    this.a = seed[0]! ^ fmix32(Math.imul(stream, 0x632be5ab) ^ salt);
    this.b = seed[1]! ^ fmix32(index >>> 0);
    this.c =
      seed[2]! ^ fmix32(Math.imul(index >>> 0, 0x27d4eb2d) ^ seed[3]! ^ Math.floor(index / 4294967296));
    for (let i = 0; i < 12; i++) this.u32();
  }

  u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  next(): number {
    return this.u32() / 4294967296;
  }

  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  between(low: number, high: number): number {
    return low + this.int(high - low + 1);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  weighted<T>(table: Weighted<T>): T {
    const target = this.next() * table.total;
    const { cumulative, items } = table;
    let low = 0;
    let high = cumulative.length - 1;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (cumulative[mid]! > target) high = mid;
      else low = mid + 1;
    }
    return items[low]!;
  }

  hex(length: number): string {
    let out = '';
    while (out.length < length) out += this.u32().toString(16).padStart(8, '0');
    return out.slice(0, length);
  }

  digits(length: number): string {
    let out = '';
    for (let i = 0; i < length; i++) out += String(this.int(10));
    return out;
  }
}

export interface Weighted<T> {
  readonly items: readonly T[];
  readonly cumulative: readonly number[];
  readonly total: number;
}

export function weighted<T>(rows: ReadonlyArray<readonly [T, number]>): Weighted<T> {
  const items: T[] = [];
  const cumulative: number[] = [];
  let total = 0;
  for (const [item, weight] of rows) {
    if (weight <= 0) continue;
    total += weight;
    items.push(item);
    cumulative.push(total);
  }
  return { items, cumulative, total };
}

export function hexOf(
  seed: readonly number[],
  stream: number,
  index: number,
  salt: number,
  length: number,
): string {
  let out = '';
  for (let i = 0; out.length < length; i++)
    out += hash(seed, stream, index, salt + i * 7919)
      .toString(16)
      .padStart(8, '0');
  return out.slice(0, length);
}
