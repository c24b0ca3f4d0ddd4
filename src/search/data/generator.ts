import { createHash } from 'node:crypto';
import type { Dataset } from '../domain/datasets.js';
import type { ObservationRecord } from '../domain/records.js';
import { dnsRecords } from './generator/dns.js';
import { TLD_SET } from './generator/domain-tables.js';
import { hostRecords } from './generator/hosts.js';
import { vhostRecords } from './generator/vhosts.js';
import { whoisRecords } from './generator/whois.js';
import { createWorld, type GenerateOptions } from './generator/world.js';

/**
 * Deterministic generator of realistic observation records for the four datasets (demo corpus, benchmarks,
 * tests). Same seed + count + now → the same records in the same order; nothing else is read (no clock, no
 * Math.random, no files): the software, network and registrar tables in generator/ are small curated excerpts of
 * public knowledge (recog fingerprints, NVD/KEV product names, registrar and CA names).
 *
 * One "world" per (seed, count) ties the datasets together, so generate them with the same seed and count:
 * - a deterministic, infinite sequence of domains; the first `domainPool` ones are hosted on the generated
 *   host addresses (hostnames, TLS names), resolved in dns, certified in vhosts and registered in whois;
 * - host address j (j = 0, 1, …) belongs to domain `j mod domainPool` for ~55% of addresses; dns A/AAAA
 *   records of that domain point at exactly those addresses, and the hosts list the names back;
 * - every `edgeStride`-th address is shared edge/CDN infrastructure (~3% of host records) that serves many
 *   domains: `shared_edge: true`, CDN ASN and organization, a dozen hostnames or more;
 * - a certificate is a function of (domain, issuance), so the same fingerprint appears on every address of a
 *   domain, in hosts `tls.fingerprint` and in vhosts.
 * Every record is in the normalized form `validateRecord` returns (lowercased case-insensitive fields,
 * canonical addresses, ISO dates), so it can be written as is.
 */
export { GENERATOR_VERSION, type GenerateOptions } from './generator/world.js';

/** Streams `count` records of `dataset`; nothing is held beyond the current address or domain. */
export function generateRecords(dataset: Dataset, options: GenerateOptions): Iterable<ObservationRecord> {
  if (!Number.isSafeInteger(options.count) || options.count < 0)
    throw new RangeError('count must be a non-negative integer');
  if (Number.isNaN(options.now.getTime())) throw new RangeError('now must be a valid date');
  const world = createWorld(options);
  switch (dataset) {
    case 'hosts':
      return take(hostRecords(world), options.count);
    case 'dns':
      return take(dnsRecords(world), options.count);
    case 'vhosts':
      return take(vhostRecords(world), options.count);
    case 'whois':
      return take(whoisRecords(world), options.count);
  }
}

/** Shape of the world for a seed and count (exposed for tests and the CLI summary). */
export function describeWorld(options: GenerateOptions): {
  addresses: number;
  domainPool: number;
  edgeAddresses: number;
  edgeStride: number;
} {
  const world = createWorld(options);
  return {
    addresses: world.ipCount,
    domainPool: world.domainPool,
    edgeAddresses: world.edgeCount,
    edgeStride: world.edgeStride,
  };
}

/** The registered domain of a generated name (`www.acme.co.uk` → `acme.co.uk`), knowing the generator's TLDs. */
export function registeredDomainOf(name: string): string | undefined {
  const labels = name.replace(/^\*\./, '').split('.');
  for (const size of [3, 2]) {
    if (labels.length < size) continue;
    const suffix = labels.slice(-(size - 1)).join('.');
    if (TLD_SET.has(suffix) && (size === 3 || !TLD_SET.has(labels.slice(-2).join('.'))))
      return labels.slice(-size).join('.');
  }
  return undefined;
}

function* take<T>(source: Iterable<T>, count: number): Generator<T> {
  if (count <= 0) return;
  let produced = 0;
  for (const item of source) {
    yield item;
    if (++produced >= count) return;
  }
}

/** A stable digest of generated output, for determinism checks and the CLI summary. */
export function digestRecords(records: Iterable<ObservationRecord>): string {
  const digest = createHash('sha256');
  for (const record of records) digest.update(JSON.stringify(record)).update('\n');
  return digest.digest('hex');
}
