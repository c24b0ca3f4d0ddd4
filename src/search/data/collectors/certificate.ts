import { X509Certificate } from 'node:crypto';
import { vhostRecordId } from '../../domain/records.js';
import type { CollectedRecord, FingerprintEvidence } from './collected.js';
import { compact, dnsName, ipAddress, keyword } from './collected-values.js';
import { certificateNames, goNameString, type DistinguishedName } from './der.js';

/**
 * One certificate → one vhosts record, shared by every format that sees certificates (x509 files, the TLS
 * handshakes of zgrab2, LeakIX events). The facts come from Node's X509Certificate (fingerprint, serial,
 * validity, public key, signature) and a DER walk of the names (der.ts), never from printed text.
 */
export interface CertificateFacts {
  /** SHA-256 of the DER, 64 lowercase hexadecimal digits. */
  readonly fingerprint: string;
  readonly subjectCn?: string;
  /** Subject alternative DNS names (lowercase; names that are not DNS names are left out). */
  readonly names: readonly string[];
  /** Subject alternative iPAddress entries, canonical. */
  readonly ipAddresses: readonly string[];
  readonly issuerCn?: string;
  readonly issuerOrganization?: string;
  readonly serial?: string;
  readonly notBefore?: string;
  readonly notAfter?: string;
  readonly selfSigned?: boolean;
  readonly keyType?: 'rsa' | 'ec' | 'ed25519' | 'ed448' | 'dsa';
  readonly keyBits?: number;
  /** Subject and issuer as Recog's x509 databases write them (Go's RFC 2253 form). */
  readonly subjectText?: string;
  readonly issuerText?: string;
}

const OID_COMMON_NAME = '2.5.4.3';
const OID_ORGANIZATION = '2.5.4.10';

const CURVE_BITS: Readonly<Record<string, number>> = {
  prime192v1: 192,
  secp224r1: 224,
  prime256v1: 256,
  secp256k1: 256,
  secp384r1: 384,
  secp521r1: 521,
  brainpoolP256r1: 256,
  brainpoolP384r1: 384,
  brainpoolP512r1: 512,
};

/** The facts of a DER certificate; throws when it is not one (the caller turns that into a refusal). */
export function describeCertificate(der: Buffer): CertificateFacts {
  const certificate = new X509Certificate(der);
  const names = certificateNames(der);
  const key = publicKeyOf(certificate);
  return {
    fingerprint: certificate.fingerprint256.replaceAll(':', '').toLowerCase(),
    subjectCn: lastValue(names.subject, OID_COMMON_NAME),
    names: unique(
      names.dnsNames.flatMap((name) => dnsName(name, { wildcard: true, singleLabel: true }) ?? []),
    ),
    ipAddresses: unique(names.ipAddresses.flatMap((bytes) => ipFromBytes(bytes) ?? [])),
    issuerCn: lastValue(names.issuer, OID_COMMON_NAME),
    issuerOrganization: lastValue(names.issuer, OID_ORGANIZATION),
    serial: serialOf(certificate),
    ...validityOf(certificate),
    selfSigned: names.subjectDer.equals(names.issuerDer) && signedByOwnKey(certificate),
    keyType: key?.type,
    keyBits: key?.bits,
    subjectText: keyword(goNameString(names.subject)),
    issuerText: keyword(goNameString(names.issuer)),
  };
}

/** Recog evidence of a certificate: its subject and issuer. */
export function certificateEvidence(facts: CertificateFacts): FingerprintEvidence[] {
  const evidence: FingerprintEvidence[] = [];
  if (facts.subjectText) evidence.push({ matches: 'x509.subject', text: facts.subjectText });
  if (facts.issuerText) evidence.push({ matches: 'x509.issuer', text: facts.issuerText });
  return evidence;
}

export interface CertificateObservation {
  readonly firstSeen: string;
  readonly lastSeen: string;
  /** The service that presented it; absent for a certificate on its own (a file, a CT log). */
  readonly ip?: string;
  readonly port?: number;
}

/** The vhosts record of a certificate, as observed on a service (`fingerprint@ip:port`) or on its own. */
export function certificateVhost(facts: CertificateFacts, seen: CertificateObservation): CollectedRecord {
  const onService = seen.ip !== undefined && seen.port !== undefined;
  const record = compact({
    id: vhostRecordId(facts.fingerprint, onService ? seen.ip : undefined, onService ? seen.port : undefined),
    first_seen: seen.firstSeen,
    last_seen: seen.lastSeen,
    fingerprint: facts.fingerprint,
    subject: { cn: keyword(facts.subjectCn) },
    names: [...facts.names],
    issuer: { cn: keyword(facts.issuerCn), organization: keyword(facts.issuerOrganization) },
    serial: facts.serial,
    not_before: facts.notBefore,
    not_after: facts.notAfter,
    self_signed: facts.selfSigned,
    key: { type: facts.keyType, bits: facts.keyBits },
    ip: onService ? seen.ip : undefined,
    port: onService ? seen.port : undefined,
  });
  return { dataset: 'vhosts', record, evidence: certificateEvidence(facts) };
}

/** The `tls` object of a hosts record for the certificate the service presented. */
export function hostTlsFields(facts: CertificateFacts): Record<string, unknown> {
  return compact({
    subject: { cn: keyword(facts.subjectCn) },
    san: [...facts.names, ...facts.ipAddresses],
    fingerprint: facts.fingerprint,
  });
}

// ---- helpers -----------------------------------------------------------------------------------------------

function lastValue(name: DistinguishedName, oid: string): string | undefined {
  const values = name.flat().filter((attribute) => attribute.oid === oid && attribute.text !== undefined);
  return keyword(values.at(-1)?.text);
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

function ipFromBytes(bytes: Buffer): string | undefined {
  if (bytes.length === 4) return ipAddress([...bytes].join('.'));
  if (bytes.length === 16) {
    const groups: string[] = [];
    for (let index = 0; index < 16; index += 2) groups.push(bytes.readUInt16BE(index).toString(16));
    return ipAddress(groups.join(':'));
  }
  return undefined;
}

/** The validity period; an inverted one (a broken certificate) is left out rather than costing the record. */
function validityOf(certificate: X509Certificate): { notBefore?: string; notAfter?: string } {
  const notBefore = certificate.validFromDate;
  const notAfter = certificate.validToDate;
  if (Number.isNaN(notBefore.getTime()) || Number.isNaN(notAfter.getTime()) || notBefore > notAfter)
    return {};
  return { notBefore: notBefore.toISOString(), notAfter: notAfter.toISOString() };
}

/** Hexadecimal by whole octets, as openssl prints it without colons (`05c8…`); at most 64 digits kept. */
function serialOf(certificate: X509Certificate): string | undefined {
  const serial = certificate.serialNumber.toLowerCase();
  return /^[0-9a-f]{1,64}$/.test(serial) ? serial : undefined;
}

/** Self-signed: issued to itself and signed by its own key (an algorithm Node cannot check counts on the names). */
function signedByOwnKey(certificate: X509Certificate): boolean {
  try {
    return certificate.verify(certificate.publicKey);
  } catch {
    return true;
  }
}

function publicKeyOf(
  certificate: X509Certificate,
): { type: CertificateFacts['keyType']; bits?: number } | undefined {
  let key;
  try {
    key = certificate.publicKey;
  } catch {
    return undefined; // a key algorithm Node does not know (GOST, …): the record goes without key fields
  }
  const details = key.asymmetricKeyDetails ?? {};
  switch (key.asymmetricKeyType) {
    case 'rsa':
    case 'rsa-pss':
      return { type: 'rsa', bits: details.modulusLength };
    case 'dsa':
      return { type: 'dsa', bits: details.modulusLength };
    case 'ec':
      return { type: 'ec', bits: details.namedCurve ? CURVE_BITS[details.namedCurve] : undefined };
    case 'ed25519':
      return { type: 'ed25519', bits: 256 };
    case 'ed448':
      return { type: 'ed448', bits: 456 };
    default:
      return undefined;
  }
}
