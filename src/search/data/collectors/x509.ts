import {
  CollectedRecordRefused,
  type CollectedRecord,
  type CollectorContext,
  type CollectorFormat,
} from './collected.js';
import { certificateVhost, describeCertificate } from './certificate.js';
import { readElement, splitDerCertificates } from './der.js';

/**
 * x509: a PEM file (one or many certificates; text around them, such as an `openssl x509 -text` dump, is
 * ignored) or a DER file (one or several certificates back to back) → one vhosts record per certificate, on
 * its own (id: the fingerprint). A certificate that does not parse is refused in its place; the others import.
 */

// RFC 7468 labels of a certificate; TRUSTED CERTIFICATE (OpenSSL) carries trust settings after the DER.
const PEM_BLOCK =
  /-----BEGIN (CERTIFICATE|X509 CERTIFICATE|TRUSTED CERTIFICATE)-----([\s\S]*?)-----END \1-----/g;
const PEM_ANY = /-----BEGIN ([A-Z0-9 ]+)-----/;
const BASE64 = /^[A-Za-z0-9+/=\s]*$/;

export const x509Format: CollectorFormat = {
  name: 'x509',
  unit: 'file',

  sniff(head: Buffer): boolean {
    if (isDerCertificateStart(head)) return true;
    const text = head.toString('latin1');
    // A JSON document that carries a PEM inside a string is a collector's record, not a certificate file.
    if (/^\s*[[{]/.test(text)) return false;
    return /-----BEGIN (?:X509 |TRUSTED )?CERTIFICATE-----/.test(text);
  },

  records(item: string | Buffer, context: CollectorContext): Array<CollectedRecord | CollectedRecordRefused> {
    const bytes = typeof item === 'string' ? Buffer.from(item, 'latin1') : item;
    const seen = { firstSeen: context.seenAt, lastSeen: context.seenAt };
    const certificates = certificatesIn(bytes, context.source);
    return certificates.map(({ der, where, problem }) => {
      if (problem) return new CollectedRecordRefused(`${where}: ${problem}`);
      try {
        return certificateVhost(describeCertificate(der!), seen);
      } catch (error) {
        return new CollectedRecordRefused(`${where}: not a valid X.509 certificate (${reason(error)})`);
      }
    });
  },
};

interface CertificatePart {
  readonly der?: Buffer;
  /** Where in the file, for messages: `certificate 2 of 3`. */
  readonly where: string;
  readonly problem?: string;
}

function certificatesIn(bytes: Buffer, source: string): CertificatePart[] {
  if (isDerCertificateStart(bytes)) {
    let ders: Buffer[];
    try {
      ders = splitDerCertificates(bytes);
    } catch (error) {
      throw new CollectedRecordRefused(`${source}: a DER file that does not decode (${reason(error)})`);
    }
    return ders.map((der, index) => ({ der, where: `certificate ${index + 1} of ${ders.length}` }));
  }
  const text = bytes.toString('latin1');
  const blocks = [...text.matchAll(PEM_BLOCK)];
  if (blocks.length === 0) {
    const other = PEM_ANY.exec(text);
    throw new CollectedRecordRefused(
      other
        ? `${source}: holds a PEM "${other[1]}" block but no certificate (x509 imports CERTIFICATE blocks)`
        : `${source}: neither a PEM file with a BEGIN CERTIFICATE block nor a DER certificate`,
    );
  }
  return blocks.map((block, index) => {
    const where = `certificate ${index + 1} of ${blocks.length}`;
    const body = block[2]!;
    if (!BASE64.test(body)) return { where, problem: 'the PEM block is not Base64' };
    const decoded = Buffer.from(body.replace(/\s+/g, ''), 'base64');
    try {
      // TRUSTED CERTIFICATE: the certificate is the first DER element; the trust settings after it are dropped.
      return { where, der: readElement(decoded, 0).encoded };
    } catch (error) {
      return { where, problem: `the PEM block does not hold DER (${reason(error)})` };
    }
  });
}

/** SEQUENCE (long length) holding a SEQUENCE (tbsCertificate): how every DER certificate starts. */
function isDerCertificateStart(head: Buffer): boolean {
  if (head.length < 8 || head[0] !== 0x30 || head[1]! < 0x81 || head[1]! > 0x84) return false;
  const inner = 2 + (head[1]! & 0x7f);
  return head[inner] === 0x30 && head[inner + 1]! >= 0x81 && head[inner + 1]! <= 0x84;
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
