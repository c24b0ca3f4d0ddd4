/**
 * The few parts of an X.509 certificate Node's X509Certificate does not hand out as data: the subject and
 * issuer names as attribute lists (Node gives them only as display text) and the subject alternative names.
 * A minimal DER reader (ITU-T X.690), enough to walk tbsCertificate; it throws on malformed input.
 */

interface DerElement {
  readonly tag: number;
  /** The element's whole encoding (header and contents). */
  readonly encoded: Buffer;
  readonly contents: Buffer;
}

/** One attribute of a distinguished name: its OID and its value (decoded text, or undefined when not a string). */
export interface NameAttribute {
  readonly oid: string;
  readonly text: string | undefined;
  /** The value's original DER (tag, length, contents). */
  readonly valueDer: Buffer;
}

/** A distinguished name as encoded: relative distinguished names in order, each a set of attributes. */
export type DistinguishedName = readonly (readonly NameAttribute[])[];

export interface CertificateNames {
  readonly subject: DistinguishedName;
  readonly issuer: DistinguishedName;
  /** The DER of both names, to compare them byte for byte (self-issued). */
  readonly subjectDer: Buffer;
  readonly issuerDer: Buffer;
  readonly dnsNames: readonly string[];
  /** iPAddress entries of the subject alternative names, as bytes (4 or 16). */
  readonly ipAddresses: readonly Buffer[];
}

export function readElement(buffer: Buffer, offset: number): DerElement {
  if (offset + 2 > buffer.length) throw new Error('truncated DER element');
  const tag = buffer[offset]!;
  if ((tag & 0x1f) === 0x1f) throw new Error('multi-byte DER tags are not used in certificates');
  let length = buffer[offset + 1]!;
  let header = 2;
  if (length & 0x80) {
    const octets = length & 0x7f;
    if (octets === 0 || octets > 4) throw new Error('unsupported DER length');
    if (offset + 2 + octets > buffer.length) throw new Error('truncated DER length');
    length = 0;
    for (let index = 0; index < octets; index += 1) length = length * 256 + buffer[offset + 2 + index]!;
    header += octets;
  }
  const end = offset + header + length;
  if (end > buffer.length) throw new Error('truncated DER contents');
  return { tag, encoded: buffer.subarray(offset, end), contents: buffer.subarray(offset + header, end) };
}

export function childrenOf(element: DerElement): DerElement[] {
  const children: DerElement[] = [];
  let offset = 0;
  while (offset < element.contents.length) {
    const child = readElement(element.contents, offset);
    children.push(child);
    offset += child.encoded.length;
  }
  return children;
}

function decodeOid(contents: Buffer): string {
  if (contents.length === 0) throw new Error('empty OID');
  const parts: number[] = [];
  let value = 0;
  for (const byte of contents) {
    value = value * 128 + (byte & 0x7f);
    if (!(byte & 0x80)) {
      if (parts.length === 0) {
        const first = value < 80 ? Math.floor(value / 40) : 2;
        parts.push(first, value - first * 40);
      } else parts.push(value);
      value = 0;
    }
  }
  return parts.join('.');
}

const STRING_DECODERS: Readonly<Record<number, (bytes: Buffer) => string>> = {
  0x0c: (bytes) => bytes.toString('utf8'), // UTF8String
  0x12: (bytes) => bytes.toString('latin1'), // NumericString
  0x13: (bytes) => bytes.toString('latin1'), // PrintableString
  0x14: (bytes) => bytes.toString('latin1'), // T61String (read as Latin-1, as most decoders do)
  0x16: (bytes) => bytes.toString('latin1'), // IA5String
  0x1a: (bytes) => bytes.toString('latin1'), // VisibleString
  0x1e: (bytes) => Buffer.from(bytes).swap16().toString('utf16le'), // BMPString (UTF-16BE)
};

function decodeName(element: DerElement): DistinguishedName {
  return childrenOf(element).map((set) =>
    childrenOf(set).map((pair) => {
      const [type, value] = childrenOf(pair);
      if (!type || !value || type.tag !== 0x06) throw new Error('malformed name attribute');
      const decoder = STRING_DECODERS[value.tag];
      const usable = decoder && !(value.tag === 0x1e && value.contents.length % 2 === 1);
      return {
        oid: decodeOid(type.contents),
        text: usable ? decoder(value.contents) : undefined,
        valueDer: value.encoded,
      };
    }),
  );
}

const SUBJECT_ALT_NAME = '2.5.29.17';

/** Subject, issuer and subject alternative names of a DER certificate. */
export function certificateNames(der: Buffer): CertificateNames {
  const certificate = readElement(der, 0);
  const [tbs] = childrenOf(certificate);
  if (!tbs || tbs.tag !== 0x30) throw new Error('not a certificate');
  const fields = childrenOf(tbs);
  // version [0] is optional; then serial, signature, issuer, validity, subject, subjectPublicKeyInfo, …
  const start = fields[0]?.tag === 0xa0 ? 1 : 0;
  const issuer = fields[start + 2];
  const subject = fields[start + 4];
  if (!issuer || !subject || issuer.tag !== 0x30 || subject.tag !== 0x30)
    throw new Error('not a certificate');
  const dnsNames: string[] = [];
  const ipAddresses: Buffer[] = [];
  const extensions = fields.find((field) => field.tag === 0xa3);
  if (extensions) {
    const [list] = childrenOf(extensions);
    for (const extension of list ? childrenOf(list) : []) {
      const parts = childrenOf(extension);
      if (parts[0]?.tag !== 0x06 || decodeOid(parts[0].contents) !== SUBJECT_ALT_NAME) continue;
      const octets = parts[parts.length - 1]!;
      const [generalNames] = childrenOf(octets);
      for (const name of generalNames ? childrenOf(generalNames) : []) {
        if (name.tag === 0x82) dnsNames.push(name.contents.toString('latin1'));
        if (name.tag === 0x87) ipAddresses.push(Buffer.from(name.contents));
      }
    }
  }
  return {
    subject: decodeName(subject),
    issuer: decodeName(issuer),
    subjectDer: subject.encoded,
    issuerDer: issuer.encoded,
    dnsNames,
    ipAddresses,
  };
}

/** The DER certificates concatenated in a buffer (a .der/.cer file may hold more than one). */
export function splitDerCertificates(buffer: Buffer): Buffer[] {
  const certificates: Buffer[] = [];
  let offset = 0;
  while (offset < buffer.length) {
    const element = readElement(buffer, offset);
    if (element.tag !== 0x30) throw new Error('not a DER SEQUENCE');
    certificates.push(element.encoded);
    offset += element.encoded.length;
  }
  return certificates;
}

// ---- Go's pkix.Name.String(), the form Recog's x509 databases are written in --------------------------------

const GO_ATTRIBUTE_NAMES: Readonly<Record<string, string>> = {
  '2.5.4.6': 'C',
  '2.5.4.10': 'O',
  '2.5.4.11': 'OU',
  '2.5.4.3': 'CN',
  '2.5.4.5': 'SERIALNUMBER',
  '2.5.4.7': 'L',
  '2.5.4.8': 'ST',
  '2.5.4.9': 'STREET',
  '2.5.4.17': 'POSTALCODE',
};

/** The order Go's Name.ToRDNSequence() rebuilds the parsed attributes in (the string then reverses it). */
const GO_PARSED_ORDER = ['2.5.4.6', '2.5.4.8', '2.5.4.7', '2.5.4.9', '2.5.4.17', '2.5.4.10', '2.5.4.11'];
const GO_SINGLE_VALUED = ['2.5.4.3', '2.5.4.5'];

/**
 * A name as Go's `pkix.Name.String()` prints it (RFC 2253 order, most specific first): the form of Recog's
 * `x509.subject` / `x509.issuer` examples (`CN=R3,O=Let's Encrypt,C=US`, other attributes last as
 * `1.2.840.113549.1.9.1=#0c…`). Go keeps only the last CN and serial number, and groups repeated
 * attributes of one type (`OU=a+OU=b`).
 */
export function goNameString(name: DistinguishedName): string {
  const attributes = name.flat();
  const others = attributes.filter((attribute) => !(attribute.oid in GO_ATTRIBUTE_NAMES));
  const sequence: NameAttribute[][] = others.map((attribute) => [attribute]);
  for (const oid of GO_PARSED_ORDER) {
    const values = attributes.filter((attribute) => attribute.oid === oid && attribute.text !== undefined);
    if (values.length > 0) sequence.push(values);
  }
  for (const oid of GO_SINGLE_VALUED) {
    const last = attributes.filter((attribute) => attribute.oid === oid && attribute.text).at(-1);
    if (last) sequence.push([last]);
  }
  return sequence
    .reverse()
    .map((rdn) => rdn.map(goAttributeString).join('+'))
    .join(',');
}

function goAttributeString(attribute: NameAttribute): string {
  const name = GO_ATTRIBUTE_NAMES[attribute.oid];
  if (!name) return `${attribute.oid}=#${goMarshalledValue(attribute).toString('hex')}`;
  const value = attribute.text ?? '';
  let escaped = '';
  [...value].forEach((character, index, characters) => {
    const escape =
      ',+"\\<>;'.includes(character) ||
      (character === ' ' && (index === 0 || index === characters.length - 1)) ||
      (character === '#' && index === 0);
    escaped += escape ? `\\${character}` : character;
  });
  return `${name}=${escaped}`;
}

const GO_PRINTABLE = /^[A-Za-z0-9 '()+,\-./:=?]*$/;

/** Go re-marshals a parsed string value: PrintableString when its characters allow, else UTF8String. */
function goMarshalledValue(attribute: NameAttribute): Buffer {
  if (attribute.text === undefined) return attribute.valueDer;
  const contents = Buffer.from(attribute.text, 'utf8');
  const tag = GO_PRINTABLE.test(attribute.text) ? 0x13 : 0x0c;
  return Buffer.concat([Buffer.from([tag]), derLength(contents.length), contents]);
}

function derLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const octets: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) octets.unshift(rest % 256);
  return Buffer.from([0x80 | octets.length, ...octets]);
}
