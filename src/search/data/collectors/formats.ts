import type { CollectorFormat } from './collected.js';
import { MASSCAN_FORMAT } from './masscan.js';
import { NDJSON_FORMAT } from './ndjson-format.js';

/**
 * Every collector format `data import` knows, in the order content sniffing tries them (the most specific
 * first; plain NDJSON last, as the fallback).
 */
export const COLLECTOR_FORMATS: readonly CollectorFormat[] = [
  MASSCAN_FORMAT, // `#masscan` or `[` then a masscan object
  NDJSON_FORMAT, // last: any line starting with `{`
];
