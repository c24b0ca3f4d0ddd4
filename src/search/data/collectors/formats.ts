import type { CollectorFormat } from './collected.js';
import { leakixFormat } from './leakix.js';
import { MASSCAN_FORMAT } from './masscan.js';
import { NDJSON_FORMAT } from './ndjson-format.js';
import { whoisRawFormat } from './whois-raw.js';
import { x509Format } from './x509.js';
import { zgrab2Format } from './zgrab2.js';

/**
 * Every collector format `data import` knows, in the order content sniffing tries them (the most specific
 * first; plain NDJSON last, as the fallback). One format a line, so formats added side by side merge cleanly.
 */
// prettier-ignore
export const COLLECTOR_FORMATS: readonly CollectorFormat[] = [
  x509Format,
  zgrab2Format,
  leakixFormat,
  MASSCAN_FORMAT, // `#masscan` or `[` then a masscan object
  whoisRawFormat, // port-43 WHOIS text: never claims JSON, PEM or masscan content, so it goes before NDJSON
  NDJSON_FORMAT, // last: any line starting with `{`
];
