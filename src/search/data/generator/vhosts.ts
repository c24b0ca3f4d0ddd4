import { type ObservationRecord, type VhostRecord, vhostRecordId } from '../../domain/records.js';
import { type Certificate, certificateIssuance, issuerOf } from './certificates.js';
import { type DomainProfile, domainProfile } from './domains.js';
import { servicesOf } from './hosts.js';
import { Rng, Stream, unit } from './random.js';
import { DAY, iso, WINDOW } from './time.js';
import type { World } from './world.js';

/** The vhosts dataset: certificates on the generated services, then certificate-transparency entries. */

function certificateRecord(
  cert: Certificate,
  first: number,
  last: number,
  ip?: string,
  port?: number,
): VhostRecord {
  const record: Record<string, unknown> = { id: vhostRecordId(cert.fingerprint, ip, port) };
  if (ip !== undefined && port !== undefined) {
    record.ip = ip;
    record.port = port;
  }
  Object.assign(record, {
    fingerprint: cert.fingerprint,
    subject: { cn: cert.cn.toLowerCase() },
  });
  if (cert.names.length > 0) record.names = cert.names.map((n) => n.toLowerCase());
  record.issuer = { cn: cert.issuerCn.toLowerCase(), organization: cert.issuerOrganization.toLowerCase() };
  record.serial = cert.serial.toLowerCase();
  record.not_before = iso(cert.notBefore);
  record.not_after = iso(cert.notAfter);
  record.self_signed = cert.selfSigned;
  record.key = { type: cert.keyType, bits: cert.keyBits };
  record.first_seen = iso(first);
  record.last_seen = iso(last);
  return record as VhostRecord;
}

/** Certificates on the generated services first, then certificate-transparency entries of the pool domains. */
export function* vhostRecords(world: World): Generator<ObservationRecord> {
  for (let j = 0; j < world.ipCount; j++) {
    for (const { record, cert } of servicesOf(world, j)) {
      if (!cert) continue;
      const first = Math.max(
        Date.parse(record.first_seen),
        Math.min(cert.notBefore, Date.parse(record.last_seen)),
      );
      yield certificateRecord(cert, first, Date.parse(record.last_seen), record.ip, record.port);
    }
  }
  // Each round visits every registered domain once; a fifth of the entries are earlier, expired issuances.
  const domains = Math.max(1, world.count);
  for (let k = 0; ; k++) {
    const d = k % domains;
    const rng = new Rng(world.seed, Stream.Ct, k);
    const back = Math.floor(k / domains) * 4 + (rng.chance(0.8) ? 0 : rng.between(1, 3));
    const domain = domainProfile(world, d);
    const cert = certificateIssuance(world, domain, issuanceOf(world, domain, world.now) - back);
    const seen = Math.min(world.now, cert.notBefore + rng.next() * 2 * DAY);
    const last = Math.max(seen, Math.min(world.now, cert.notAfter) - rng.next() * 10 * DAY);
    yield certificateRecord(cert, Math.max(world.now - WINDOW, seen), Math.max(world.now - WINDOW, last));
  }
}

function issuanceOf(world: World, domain: DomainProfile, at: number): number {
  const probe = new Rng(world.seed, Stream.Cert, domain.index, 1);
  const interval = issuerOf(domain.ca, at, probe).renew * DAY;
  const anchor = world.now - unit(world.seed, Stream.Cert, domain.index, 2) * interval;
  return Math.floor((at - anchor) / interval);
}
