import { type AddressSpace, addressSpace, gcd } from './address-space.js';
import { CDN_BY_SLOT, type CdnId, CDNS } from './cdns.js';
import { WORDS_A, WORDS_B } from './domain-tables.js';
import { planServices } from './host-profiles.js';
import { NETWORKS } from './networks.js';
import { cyrb128, hash, Rng, Stream, weighted } from './random.js';

/** The world shared by the four datasets for one seed and count: addresses, domain pool, edge addresses. */

export interface GenerateOptions {
  /** Records to produce for the dataset. */
  readonly count: number;
  readonly seed: string | number;
  /** Reference time: observations fall within the two years before it, recent ones more often. */
  readonly now: Date;
}

export const GENERATOR_VERSION = 1;

export interface World {
  readonly seed: readonly number[];
  readonly count: number;
  readonly now: number;
  /** Addresses that can be named by domains (about the number hosts visits for `count` records). */
  readonly ipCount: number;
  readonly domainPool: number;
  readonly edgeStride: number;
  readonly edgeCount: number;
  readonly wheel: readonly number[];
  readonly wheelRank: readonly number[];
  readonly wheelShare: readonly number[];
  readonly spaces: readonly AddressSpace[];
  readonly cdnSpaces: Readonly<Record<CdnId, AddressSpace>>;
  readonly domainMultiplier: number;
  readonly domainOffset: number;
}

const EDGE_SHARE = 0.03;
export const CDN_CUSTOMER_SHARE = 0.35;
export const OWNED_SHARE = 0.55;
export const WHEEL = 1000;

/** Services per ordinary address and per edge address, measured once on a fixed sample. */
const calibration = (() => {
  let cached: { normal: number; edge: number } | undefined;
  return () => {
    if (cached) return cached;
    const seed = cyrb128('calibration');
    const kinds = weighted(NETWORKS.map((n) => [n.kind, n.weight] as const));
    let total = 0;
    const samples = 20_000;
    for (let i = 0; i < samples; i++) {
      const rng = new Rng(seed, Stream.Calibration, i);
      total += planServices(rng, rng.weighted(kinds)).length;
    }
    let edge = 0;
    for (let slot = 0; slot < CDN_BY_SLOT.length; slot++) edge += CDNS[CDN_BY_SLOT[slot]!].ports.length;
    cached = { normal: total / samples, edge: edge / CDN_BY_SLOT.length };
    return cached;
  };
})();

export function createWorld(options: GenerateOptions): World {
  const seed = cyrb128(`exposure-generator/${GENERATOR_VERSION}/${String(options.seed)}`);
  const { normal, edge } = calibration();
  const edgeStride = Math.max(2, Math.round(1 + (edge * (1 - EDGE_SHARE)) / (EDGE_SHARE * normal)));
  const perAddress = (normal * (edgeStride - 1) + edge) / edgeStride;
  const ipCount = Math.max(1, Math.floor((options.count * 0.97) / perAddress));
  const domainPool = Math.max(1, Math.floor(ipCount / 4));
  const edgeCount = Math.floor(ipCount / edgeStride);

  // Networks by weight on a wheel of 1000 slots, shuffled by the seed.
  const totalWeight = NETWORKS.reduce((sum, n) => sum + n.weight, 0);
  const slots = NETWORKS.map((n) => Math.max(1, Math.round((n.weight / totalWeight) * WHEEL)));
  let excess = slots.reduce((a, b) => a + b, 0) - WHEEL;
  for (let i = 0; excess !== 0; i = (i + 1) % slots.length) {
    if (excess > 0 && slots[i]! > 1) {
      slots[i]!--;
      excess--;
    } else if (excess < 0) {
      slots[i]!++;
      excess++;
    }
  }
  const wheel: number[] = slots.flatMap((n, network) => new Array<number>(n).fill(network));
  const shuffle = new Rng(seed, Stream.Wheel, 0);
  for (let i = wheel.length - 1; i > 0; i--) {
    const k = shuffle.int(i + 1);
    [wheel[i], wheel[k]] = [wheel[k]!, wheel[i]!];
  }
  const seen = new Array<number>(NETWORKS.length).fill(0);
  const wheelRank = wheel.map((network) => seen[network]!++);

  const combos = WORDS_A.length * WORDS_B.length;
  let domainMultiplier = (hash(seed, Stream.Domain, 0, 17) % (combos - 1)) + 1;
  while (gcd(domainMultiplier, combos) !== 1) domainMultiplier++;

  return {
    seed,
    count: options.count,
    now: options.now.getTime(),
    ipCount,
    domainPool,
    edgeStride,
    edgeCount,
    wheel,
    wheelRank,
    wheelShare: slots,
    spaces: NETWORKS.map((n, i) => addressSpace(n.prefixes, seed, 100 + i)),
    cdnSpaces: Object.fromEntries(
      (Object.keys(CDNS) as CdnId[]).map((id, i) => [id, addressSpace(CDNS[id].prefixes, seed, 900 + i)]),
    ) as Record<CdnId, AddressSpace>,
    domainMultiplier,
    domainOffset: hash(seed, Stream.Domain, 0, 18) % combos,
  };
}
