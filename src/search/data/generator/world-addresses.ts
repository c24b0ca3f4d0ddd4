import { addressAt, v6Address } from './address-space.js';
import { type Cdn, CDN_BY_SLOT, CDNS } from './cdns.js';
import { CITIES } from './cities.js';
import { type DomainProfile, domainProfile } from './domains.js';
import { type Network, type NetworkKind, NETWORKS } from './networks.js';
import { fmix32, hash, Rng, Stream, unit, type Weighted } from './random.js';
import { OWNED_SHARE, WHEEL, type World } from './world.js';

/** Where address j of the world is and which names it carries: pure functions of (world, j). */

export function isEdge(world: World, j: number): boolean {
  return j % world.edgeStride === world.edgeStride >> 1 && Math.floor(j / world.edgeStride) < world.edgeCount;
}

/** The pool domain that address j belongs to, or -1. */
export function ownerOf(world: World, j: number): number {
  if (j >= world.ipCount || isEdge(world, j)) return -1;
  return unit(world.seed, Stream.Own, j) < OWNED_SHARE ? j % world.domainPool : -1;
}

const MAX_OWNED = 12;

/** Addresses of pool domain d, in address order (at most 12). */
export function ownedAddresses(world: World, d: number): number[] {
  const out: number[] = [];
  if (d >= world.domainPool) return out;
  for (let j = d; j < world.ipCount && out.length < MAX_OWNED; j += world.domainPool) {
    if (ownerOf(world, j) === d) out.push(j);
  }
  return out;
}

/** The edge address serving CDN domain d. */
export function edgeAddressOf(world: World, d: number): number {
  const e = d % world.edgeCount;
  return e * world.edgeStride + (world.edgeStride >> 1);
}

interface Address {
  readonly j: number;
  readonly ip: string;
  readonly family: 4 | 6;
  readonly asn: number;
  readonly organization: string;
  readonly country: string;
  readonly city: string | undefined;
  readonly kind: NetworkKind;
  readonly network: Network | undefined;
  readonly cdn: Cdn | undefined;
}

const addressCache = new WeakMap<World, Map<number, Address>>();

/** Where address j is: network, address, location. A pure function of (world, j). */
export function addressOf(world: World, j: number): Address {
  let cache = addressCache.get(world);
  if (!cache) {
    cache = new Map();
    addressCache.set(world, cache);
  }
  const hit = cache.get(j);
  if (hit) return hit;
  const address = computeAddress(world, j);
  if (cache.size > 4096) cache.clear();
  cache.set(j, address);
  return address;
}

function computeAddress(world: World, j: number): Address {
  const rng = new Rng(world.seed, Stream.V6, j);
  if (isEdge(world, j)) {
    const e = Math.floor(j / world.edgeStride);
    const cdn = CDNS[CDN_BY_SLOT[e % CDN_BY_SLOT.length]!];
    const perCdn = CDN_BY_SLOT.filter((id) => id === cdn.id).length;
    const rank = CDN_BY_SLOT.slice(0, e % CDN_BY_SLOT.length).filter((id) => id === cdn.id).length;
    const local = Math.floor(e / CDN_BY_SLOT.length) * perCdn + rank;
    const v6 = cdn.v6 && rng.chance(0.1);
    const ip = v6 ? v6Address(cdn.v6!, local, 1) : addressAt(world.cdnSpaces[cdn.id], local).join('.');
    const [country, city] = cdn.locations[local % cdn.locations.length]!;
    return {
      j,
      ip,
      family: v6 ? 6 : 4,
      asn: cdn.asn,
      organization: cdn.organization,
      country,
      city,
      kind: 'cloud',
      network: undefined,
      cdn,
    };
  }
  const slot = j % WHEEL;
  const index = world.wheel[slot]!;
  const network = NETWORKS[index]!;
  const local = Math.floor(j / WHEEL) * world.wheelShare[index]! + world.wheelRank[slot]!;
  const v6 = network.v6 !== undefined && rng.chance(network.kind === 'isp' ? 0.06 : 0.05);
  const bytes = addressAt(world.spaces[index]!, local);
  const block = hash(world.seed, Stream.Host, (bytes[0]! << 16) | (bytes[1]! << 8) | bytes[2]!, 5);
  const country = pickBy(network.countries, block);
  const cities = CITIES[country];
  return {
    j,
    ip: v6 ? v6Address(network.v6!, local, 1 + (block & 0xff)) : bytes.join('.'),
    family: v6 ? 6 : 4,
    asn: network.asn,
    organization: network.organization,
    country,
    city: cities ? pickBy(cities, fmix32(block)) : undefined,
    kind: network.kind,
    network,
    cdn: undefined,
  };
}

function pickBy<T>(table: Weighted<T>, value32: number): T {
  const target = (value32 / 4294967296) * table.total;
  const index = table.cumulative.findIndex((c) => c > target);
  return table.items[index === -1 ? table.items.length - 1 : index]!;
}

/** Names that resolve to address j (its domain's names spread over the domain's addresses), or its PTR name. */
export function hostnamesOf(world: World, address: Address, rng: Rng): string[] {
  const j = address.j;
  if (address.cdn) {
    const names: string[] = [];
    const e = Math.floor(j / world.edgeStride);
    for (let d = e; d < world.domainPool && names.length < 400; d += world.edgeCount) {
      const domain = domainProfile(world, d);
      if (domain.cdn !== address.cdn.id) continue;
      names.push(domain.name);
      if (domain.names.includes(`www.${domain.name}`)) names.push(`www.${domain.name}`);
    }
    return names;
  }
  const owner = ownerOf(world, j);
  if (owner >= 0) {
    const domain = domainProfile(world, owner);
    const addresses = ownedAddresses(world, owner);
    const position = addresses.indexOf(j);
    return routedNames(domain).filter((_, k) => k % addresses.length === position);
  }
  if (address.network?.rdns && address.family === 4 && rng.chance(0.7)) {
    const bytes = address.ip.split('.').map(Number);
    const name = address.network.rdns(bytes, address.country, rng);
    return name ? [name.toLowerCase()] : [];
  }
  return [];
}

/** The names of a domain served by its own addresses (CDN domains send apex and www to the edge). */
export function routedNames(domain: DomainProfile): string[] {
  if (!domain.cdn) return domain.names.slice();
  return domain.names.filter((name) => name !== domain.name && name !== `www.${domain.name}`);
}
