import { describe, expect, it } from '@jest/globals';
import { goNameString, type NameAttribute } from '../../../../src/search/data/collectors/der.js';
import { leakixFormat } from '../../../../src/search/data/collectors/leakix.js';
import { x509Format } from '../../../../src/search/data/collectors/x509.js';
import { zgrab2Format } from '../../../../src/search/data/collectors/zgrab2.js';
import { CONTEXT, refusalOf, sharedFile, stored } from './collected-support.js';

const FACEBOOK = sharedFile('certs/facebookOnionV3Address.pem');
const FACEBOOK_FINGERPRINT = '1c075461cfddfa3bb28116a73bd1c915277c989d4ca87d211e2d22e643e7a674';

/** The DER certificates zgrab2 captured in TLS handshakes (base64 in the samples' `raw`). */
function handshakeCertificate(sample: string): Buffer {
  const text = sharedFile(`zgrab2/${sample}.json`).toString('utf8');
  const raw = /"raw":"(MII[A-Za-z0-9+/=]+)"/.exec(text)![1]!;
  return Buffer.from(raw, 'base64');
}

function pem(der: Buffer): string {
  const lines = der
    .toString('base64')
    .match(/.{1,64}/g)!
    .join('\n');
  return `-----BEGIN CERTIFICATE-----\n${lines}\n-----END CERTIFICATE-----\n`;
}

const ONION_NAMES = [
  '*.facebookwkhpilnemxj7asaniu7vnjjbiltxjqhye3mhbshg7kx5tfyd.onion',
  '*.facebookcooa4ldbat4g7iacswl3p2zrf5nuylvnhxn6kqolvojixwid.onion',
  '*.facebooksg4bc7ddneq44pf4miux7o7oqdn2agstg5v3d45odhyu4sqd.onion',
  '*.m.facebookwkhpilnemxj7asaniu7vnjjbiltxjqhye3mhbshg7kx5tfyd.onion',
  '*.xx.facebookcooa4ldbat4g7iacswl3p2zrf5nuylvnhxn6kqolvojixwid.onion',
  '*.xy.facebookcooa4ldbat4g7iacswl3p2zrf5nuylvnhxn6kqolvojixwid.onion',
  '*.xz.facebookcooa4ldbat4g7iacswl3p2zrf5nuylvnhxn6kqolvojixwid.onion',
  'facebookcooa4ldbat4g7iacswl3p2zrf5nuylvnhxn6kqolvojixwid.onion',
  'facebooksg4bc7ddneq44pf4miux7o7oqdn2agstg5v3d45odhyu4sqd.onion',
  'facebookwkhpilnemxj7asaniu7vnjjbiltxjqhye3mhbshg7kx5tfyd.onion',
];

describe('x509 files → vhosts records', () => {
  it('the CT-logged DigiCert EV certificate (PEM after an openssl text dump, which is ignored)', () => {
    expect(stored(x509Format.records(FACEBOOK, CONTEXT))).toEqual([
      {
        dataset: 'vhosts',
        record: {
          id: FACEBOOK_FINGERPRINT,
          fingerprint: FACEBOOK_FINGERPRINT,
          subject: { cn: '*.facebookwkhpilnemxj7asaniu7vnjjbiltxjqhye3mhbshg7kx5tfyd.onion' },
          names: ONION_NAMES,
          issuer: { cn: 'digicert ecc extended validation server ca', organization: 'digicert inc' },
          // Serial Number: 05:c8:f6:08:3e:f0:0e:ee:97:f9:dc:0d:14:ca:fe:25
          serial: '05c8f6083ef00eee97f9dc0d14cafe25',
          not_before: '2022-03-10T00:00:00.000Z',
          not_after: '2022-05-21T23:59:59.000Z',
          self_signed: false,
          key: { type: 'ec', bits: 256 },
          first_seen: CONTEXT.seenAt,
          last_seen: CONTEXT.seenAt,
        },
        evidence: [
          {
            matches: 'x509.subject',
            text:
              'SERIALNUMBER=3835815,CN=*.facebookwkhpilnemxj7asaniu7vnjjbiltxjqhye3mhbshg7kx5tfyd.onion,' +
              'O=Facebook\\, Inc.,L=Menlo Park,ST=California,C=US,' +
              '2.5.4.15=#131450726976617465204f7267616e697a6174696f6e,' +
              '1.3.6.1.4.1.311.60.2.1.2=#130844656c6177617265,1.3.6.1.4.1.311.60.2.1.3=#13025553',
          },
          {
            matches: 'x509.issuer',
            text: 'CN=DigiCert ECC Extended Validation Server CA,OU=www.digicert.com,O=DigiCert Inc,C=US',
          },
        ],
      },
    ]);
  });

  it('a DER file of two certificates back to back: one record each, on their own', () => {
    const der = Buffer.concat([
      handshakeCertificate('http-https'),
      handshakeCertificate('postgres-10.1-ssl'),
    ]);
    expect(x509Format.sniff(der)).toBe(true);
    const records = stored(x509Format.records(der, CONTEXT));
    expect(records.map((item) => ('record' in item ? item.record.id : item))).toEqual([
      'fe01d8aaa47e75e281f404ab5e60c3e73da4747b02e558c238cc77cf023586fd',
      'c9edabed51588ccb7c9482dfee7db4533a4dea515420a0bf7e8ddaaeb06a62be',
    ]);
    expect(records[0]).toMatchObject({ record: { subject: { cn: 'target' }, self_signed: true } });
  });

  it('one bad certificate among several is refused in its place; the others import', () => {
    const good = pem(handshakeCertificate('mysql-8.0'));
    const damaged = pem(Buffer.concat([Buffer.from([0x30, 0x82, 0x01, 0x00]), Buffer.alloc(256, 1)]));
    const file = Buffer.from(`bundle\n${pem(handshakeCertificate('http-https'))}${damaged}${good}`);
    const records = stored(x509Format.records(file, CONTEXT));
    expect(records).toHaveLength(3);
    expect(records[0]).toMatchObject({ dataset: 'vhosts', record: { subject: { cn: 'target' } } });
    expect(records[1]).toEqual({
      refused: expect.stringMatching(/^certificate 2 of 3: not a valid X\.509 certificate \(/),
    });
    expect(records[2]).toMatchObject({
      dataset: 'vhosts',
      record: { id: '1956f3e8a68bfdda8ec648e7c6ed14063d6b7ad1cd4afe9f3251b8c98150a066', serial: '02' },
    });
  });

  it('a file without a certificate is refused with what it holds', () => {
    const key = Buffer.from('-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n');
    expect(refusalOf(() => x509Format.records(key, CONTEXT))).toBe(
      'sample: holds a PEM "PRIVATE KEY" block but no certificate (x509 imports CERTIFICATE blocks)',
    );
    expect(refusalOf(() => x509Format.records(Buffer.from('hello'), CONTEXT))).toBe(
      'sample: neither a PEM file with a BEGIN CERTIFICATE block nor a DER certificate',
    );
    const truncated = handshakeCertificate('http-https').subarray(0, 300);
    expect(refusalOf(() => x509Format.records(truncated, CONTEXT))).toBe(
      'sample: a DER file that does not decode (truncated DER contents)',
    );
  });
});

describe('x509 sniffing', () => {
  it('recognizes the PEM sample and does not claim zgrab2 lines (which carry certificates) or LeakIX events', () => {
    expect(x509Format.sniff(FACEBOOK)).toBe(true);
    expect(zgrab2Format.sniff(FACEBOOK)).toBe(false);
    expect(leakixFormat.sniff(FACEBOOK)).toBe(false);
    expect(x509Format.sniff(sharedFile('zgrab2/mysql-8.0.json'))).toBe(false);
    expect(x509Format.sniff(sharedFile('leakix/l9event.json'))).toBe(false);
  });
});

describe("names in Go's pkix.Name.String() form, as Recog's x509 databases write them", () => {
  const attribute = (oid: string, text: string, tag = 0x0c): NameAttribute => ({
    oid,
    text,
    valueDer: Buffer.concat([Buffer.from([tag, Buffer.byteLength(text)]), Buffer.from(text)]),
  });

  it("reproduces a Recog x509_subjects.xml example: RFC 2253 order, escaped comma, e-mail as #DER (Go's UTF8String)", () => {
    // As encoded in the certificate: C, ST, L, O, CN, emailAddress (IA5String).
    const name = [
      [attribute('2.5.4.6', 'CN', 0x13)],
      [attribute('2.5.4.8', 'Guangdong')],
      [attribute('2.5.4.7', 'Shenzhen')],
      [attribute('2.5.4.10', 'TP-LINK Technologies CO., LTD.')],
      [attribute('2.5.4.3', 'TP-LINK CA')],
      [attribute('1.2.840.113549.1.9.1', 'service@tp-link.com.cn', 0x16)],
    ];
    expect(goNameString(name)).toBe(
      'CN=TP-LINK CA,O=TP-LINK Technologies CO.\\, LTD.,L=Shenzhen,ST=Guangdong,C=CN,' +
        '1.2.840.113549.1.9.1=#0c16736572766963654074702d6c696e6b2e636f6d2e636e',
    );
  });

  it('puts SERIALNUMBER first and groups repeated attributes of one type', () => {
    const name = [
      [attribute('2.5.4.10', 'Cisco Systems Inc.')],
      [attribute('2.5.4.11', 'CTG')],
      [attribute('2.5.4.11', 'Phones')],
      [attribute('2.5.4.3', 'CP-8851-SEPB07D47D33A1C')],
      [attribute('2.5.4.5', 'PID:CP-8851 SN:FCH1924AHCA')],
    ];
    expect(goNameString(name)).toBe(
      'SERIALNUMBER=PID:CP-8851 SN:FCH1924AHCA,CN=CP-8851-SEPB07D47D33A1C,OU=CTG+OU=Phones,O=Cisco Systems Inc.',
    );
  });
});
