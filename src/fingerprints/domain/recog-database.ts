import { XMLParser } from 'fast-xml-parser';

/**
 * A Rapid7 Recog fingerprint database (one XML file, `<fingerprints matches= protocol= preference=>`) as Recog's
 * own loader reads it: every `<fingerprint pattern= flags=>` in file order with its description, its `<example>`
 * elements (text, `_encoding`, expected params as attributes) and its `<param pos= name= value=>`. Pure: no I/O.
 */
export interface RecogDatabase {
  /** The file's base name (`http_servers.xml`): what an import replaces. */
  readonly name: string;
  /** What the database identifies (`http_header.server`, `ssh.banner`, …): evidence with this name goes through it. */
  readonly matches: string;
  readonly protocol: string | null;
  readonly databaseType: string | null;
  readonly preference: number | null;
  readonly fingerprints: readonly RecogFingerprint[];
}

export interface RecogFingerprint {
  /** 1-based position in the file (Recog tries them in this order). */
  readonly index: number;
  readonly pattern: string;
  readonly flags: readonly string[];
  readonly description: string;
  readonly examples: readonly RecogExample[];
  readonly params: readonly RecogParam[];
}

export interface RecogExample {
  /** The text to match, decoded (`_encoding="base64"` examples are decoded to one character per byte). */
  readonly text: string;
  /** The params the fingerprint must yield for this text (the example's attributes, `_`-prefixed ones aside). */
  readonly expected: Readonly<Record<string, string>>;
  /** Set when the example's content lives in a separate file (`_filename`): verification cannot read it. */
  readonly filename?: string;
}

export interface RecogParam {
  /** 0: a fixed `value` (possibly with `{param}` interpolation); n > 0: the n-th capture group. */
  readonly pos: number;
  readonly name: string;
  readonly value: string;
}

/** A file that is not a Recog database; the message says why, in words an operator can act on. */
export class MalformedRecogDatabase extends Error {
  override readonly name = 'MalformedRecogDatabase';
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  attributesGroupName: '$attributes',
  textNodeName: '$text',
  // Banners keep their spaces and line ends exactly: an example is matched as written.
  trimValues: false,
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: true,
  htmlEntities: true,
  isArray: (name) => name === 'fingerprint' || name === 'example' || name === 'param',
});

type XmlNode = { $attributes?: Record<string, string>; $text?: string } & Record<string, unknown>;

export function parseRecogDatabase(name: string, xml: string): RecogDatabase {
  let document: Record<string, unknown>;
  try {
    document = parser.parse(xml, true) as Record<string, unknown>;
  } catch (error) {
    throw new MalformedRecogDatabase(`${name}: not well-formed XML (${(error as Error).message})`);
  }
  const root = document.fingerprints as XmlNode | undefined;
  if (!root || typeof root !== 'object')
    throw new MalformedRecogDatabase(`${name}: no <fingerprints> root element (not a Recog database)`);
  const attributes = root.$attributes ?? {};
  const matches = attributes.matches?.trim();
  if (!matches) throw new MalformedRecogDatabase(`${name}: <fingerprints> has no matches= attribute`);
  const nodes = (root.fingerprint as XmlNode[] | undefined) ?? [];
  const fingerprints = nodes.map((node, position) => fingerprintOf(name, node, position + 1));
  const preference = attributes.preference === undefined ? null : Number(attributes.preference);
  return {
    name,
    matches,
    protocol: attributes.protocol?.trim().toLowerCase() || null,
    databaseType: attributes.database_type ?? null,
    preference: preference !== null && Number.isFinite(preference) ? preference : null,
    fingerprints,
  };
}

function fingerprintOf(file: string, node: XmlNode, index: number): RecogFingerprint {
  const attributes = node.$attributes ?? {};
  const pattern = attributes.pattern;
  if (pattern === undefined)
    throw new MalformedRecogDatabase(`${file}: fingerprint #${index} has no pattern= attribute`);
  const flags = (attributes.flags ?? '')
    .split(',')
    .map((flag) => flag.trim())
    .filter((flag) => flag !== '');
  const params = ((node.param as XmlNode[] | undefined) ?? []).map((param) => {
    const { pos, name, value } = param.$attributes ?? {};
    if (!name) throw new MalformedRecogDatabase(`${file}: fingerprint #${index} has a <param> without name=`);
    const position = Number(pos ?? '0');
    if (!Number.isInteger(position) || position < 0)
      throw new MalformedRecogDatabase(`${file}: fingerprint #${index} param ${name} has pos="${pos}"`);
    return { pos: position, name, value: value ?? '' };
  });
  const examples = ((node.example as XmlNode[] | undefined) ?? []).map((example) =>
    exampleOf(file, index, example),
  );
  return {
    index,
    pattern,
    flags,
    description: textOf(node.description).replace(/\s+/g, ' ').trim(),
    examples,
    params,
  };
}

function exampleOf(file: string, index: number, node: XmlNode | string): RecogExample {
  // An example without attributes is parsed as its bare text.
  const attributes = typeof node === 'string' ? {} : (node.$attributes ?? {});
  const raw = typeof node === 'string' ? node : textOf(node);
  const expected: Record<string, string> = {};
  for (const [key, value] of Object.entries(attributes)) if (!key.startsWith('_')) expected[key] = value;
  const encoding = attributes._encoding;
  let text = raw;
  if (encoding === 'base64') text = Buffer.from(raw.replace(/\s+/g, ''), 'base64').toString('latin1');
  else if (encoding !== undefined)
    throw new MalformedRecogDatabase(
      `${file}: fingerprint #${index} has an example with _encoding="${encoding}"`,
    );
  return { text, expected, ...(attributes._filename ? { filename: attributes._filename } : {}) };
}

function textOf(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(textOf).join('');
  if (typeof value === 'object') return String((value as XmlNode).$text ?? '');
  return String(value as number);
}
