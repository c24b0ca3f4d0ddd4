import { cpeProblem } from '../../search/domain/records.js';

/**
 * Recog writes CPE 2.2 URIs (`cpe:/a:vendor:product:version`, percent-encoded); hosts records hold CPE 2.3
 * formatted strings (`cpe:2.3:a:vendor:product:version:*:*:*:*:*:*:*`). The URI is unbound and bound again as
 * NISTIR 7695 describes: percent escapes decoded (`%01`/`%02` are the `?`/`*` wildcards), a packed edition
 * (`~edition~sw_edition~target_sw~target_hw~other`) unpacked, every character other than a letter, a digit,
 * `_`, `.` or `-` quoted with `\`, an empty component ANY (`*`).
 *
 * A version Recog did not see is never claimed: a version that is empty, ANY or NA (`-`, which Recog puts in when
 * the banner had none) becomes ANY, so enrichment answers `version_unknown` (an association, never a match).
 * Returns null for anything that is not a usable CPE (no vendor or product, not a CPE at all).
 */
export function cpe23FromRecog(value: string): string | null {
  const trimmed = value.trim();
  let components: string[];
  if (trimmed.toLowerCase().startsWith('cpe:/')) components = fromUri(trimmed.slice(5));
  else if (trimmed.toLowerCase().startsWith('cpe:2.3:')) components = trimmed.slice(8).split(/(?<!\\):/);
  else return null;
  while (components.length < 11) components.push('*');
  if (components.length > 11) return null;
  const [part] = components;
  if (part !== 'a' && part !== 'o' && part !== 'h') return null;
  const version = components[3]!;
  if (version === '' || version === '-' || version === '*') components[3] = '*';
  const formatted = `cpe:2.3:${components.map((component) => (component === '' ? '*' : component)).join(':')}`;
  return cpeProblem(formatted) === undefined ? formatted : null;
}

/** part, vendor, product, version, update, edition, language, sw_edition, target_sw, target_hw, other (bound). */
function fromUri(body: string): string[] {
  const raw = body.toLowerCase().split(':');
  if (raw.length > 7) return ['invalid'];
  const [part = '', vendor = '', product = '', version = '', update = '', edition = '', language = ''] = raw;
  let editions = [edition, '', '', '', ''];
  if (edition.startsWith('~')) {
    const packed = edition.slice(1).split('~');
    if (packed.length !== 5) return ['invalid'];
    editions = packed;
  }
  return [
    part,
    ...[vendor, product, version, update, editions[0]!, language, ...editions.slice(1)].map(bindComponent),
  ];
}

/** One URI component as a formatted-string component: '' → '*', '-' → '-', else decoded and quoted. */
function bindComponent(component: string): string {
  if (component === '') return '*';
  if (component === '-') return '-';
  let out = '';
  for (let i = 0; i < component.length; i += 1) {
    const c = component[i]!;
    if (c === '%' && /^[0-9a-f]{2}$/.test(component.slice(i + 1, i + 3))) {
      const code = component.slice(i + 1, i + 3);
      i += 2;
      if (code === '01') out += '?';
      else if (code === '02') out += '*';
      else out += quote(String.fromCharCode(parseInt(code, 16)));
      continue;
    }
    out += quote(c);
  }
  return out;
}

function quote(c: string): string {
  const code = c.charCodeAt(0);
  const plain =
    (code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39) || c === '_' || c === '.' || c === '-';
  if (plain) return c;
  // CPE values have no spaces: a space is an underscore, as NVD writes product names.
  if (c === ' ') return '_';
  return `\\${c}`;
}
