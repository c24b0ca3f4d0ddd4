import type { FingerprintEvidence } from './collected.js';
import {
  isObject,
  keyword,
  objectAt,
  portNumber,
  stringAt,
  text,
  type JsonObject,
} from './collected-values.js';

/**
 * The HTTP module's result: the response the scanned service itself gave (the redirect chain may end on
 * another host), its status, title and headers, the port and scheme of the request, and the TLS handshake of
 * an HTTPS request. zgrab2 prints headers with underscored lowercase names (`x_powered_by`), less common ones
 * under `unknown` as `{key, value}`.
 */
export interface HttpReading {
  readonly scheme?: 'http' | 'https';
  readonly port?: number;
  readonly status?: number;
  readonly title?: string;
  readonly server?: string;
  readonly banner?: string;
  readonly handshakeLog?: JsonObject;
  readonly evidence: readonly FingerprintEvidence[];
}

export function readHttp(result: JsonObject | undefined): HttpReading {
  const chain = Array.isArray(result?.redirect_response_chain) ? result.redirect_response_chain : [];
  const responses = [...chain, result?.response].filter(isObject);
  const first = responses[0];
  if (!first) return { evidence: [] };
  const firstUrl = objectAt(first, 'request', 'url');
  const sameService = (response: JsonObject) => {
    const url = objectAt(response, 'request', 'url');
    return url?.scheme === firstUrl?.scheme && url?.host === firstUrl?.host;
  };
  const response = responses.filter(sameService).at(-1) ?? first;
  const scheme = firstUrl?.scheme === 'https' ? 'https' : firstUrl?.scheme === 'http' ? 'http' : undefined;

  const server = keyword(headerValues(response, 'server')[0]);
  const title = htmlTitle(stringAt(response, 'body'));
  const status = response.status_code;
  const statusLine = keyword(stringAt(response, 'status_line'));
  const version = keyword(stringAt(response, 'protocol', 'name')) ?? 'HTTP/1.1';

  const evidence: FingerprintEvidence[] = [];
  if (server) evidence.push({ matches: 'http_header.server', text: server });
  for (const value of headerValues(response, 'x-powered-by'))
    evidence.push({ matches: 'http_header.x-powered-by', text: value });
  for (const value of headerValues(response, 'www-authenticate'))
    evidence.push({ matches: 'http_header.wwwauth', text: value });
  if (title) evidence.push({ matches: 'html_title', text: title });

  return {
    scheme,
    port: portOfHost(stringAt(firstUrl, 'host'), scheme),
    status:
      typeof status === 'number' && Number.isInteger(status) && status >= 100 && status <= 599
        ? status
        : undefined,
    title,
    server,
    banner: statusLine ? text(`${version} ${statusLine}${server ? `\r\nServer: ${server}` : ''}`) : undefined,
    handshakeLog: objectAt(first, 'request', 'tls_log', 'handshake_log'),
    evidence,
  };
}

/** Every value of a response header, whichever of zgrab2's spellings holds it. */
function headerValues(response: JsonObject, name: string): string[] {
  const headers = objectAt(response, 'headers');
  if (!headers) return [];
  const wanted = name.toLowerCase().replaceAll('-', '_');
  const values: unknown[] = [];
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase().replaceAll('-', '_') === wanted)
      values.push(...(Array.isArray(value) ? value : [value]));
  }
  const unknown = Array.isArray(headers.unknown) ? headers.unknown : [];
  for (const entry of unknown) {
    if (!isObject(entry) || typeof entry.key !== 'string') continue;
    if (entry.key.toLowerCase().replaceAll('-', '_') !== wanted) continue;
    values.push(...(Array.isArray(entry.value) ? entry.value : [entry.value]));
  }
  return values.flatMap((value) => keyword(value) ?? []);
}

/** `target:8443` → 8443; no port → the scheme's (zgrab2 leaves the default port out of the URL). */
function portOfHost(host: string | undefined, scheme: 'http' | 'https' | undefined): number | undefined {
  const port = host ? /:(\d{1,5})$/.exec(host) : null;
  if (
    port &&
    !(host!.includes(':') && !host!.startsWith('[') && host!.indexOf(':') !== host!.lastIndexOf(':'))
  )
    return portNumber(port[1]);
  if (scheme === 'https') return 443;
  if (scheme === 'http') return 80;
  return undefined;
}

const TITLE = /<title\b[^>]*>([\s\S]*?)<\/title\s*>/i;
const ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
};

/** The text of the first `<title>` of an HTML body, entities decoded and white space collapsed. */
export function htmlTitle(body: string | undefined): string | undefined {
  const match = body ? TITLE.exec(body.slice(0, 262_144)) : null;
  if (!match) return undefined;
  const decoded = match[1]!.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (entity, name: string) => {
    if (name.startsWith('#')) {
      const code =
        name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
    }
    return ENTITIES[name.toLowerCase()] ?? entity;
  });
  return keyword(decoded.replace(/\s+/g, ' ').slice(0, 4096));
}
