import type { CollectorFormat } from './collected.js';
import { whoisRawFormat } from './whois-raw.js';

/**
 * Every collector format `data import` knows, in the order content sniffing tries them (the most specific
 * first; plain NDJSON last, as the fallback).
 */
export const COLLECTOR_FORMATS: readonly CollectorFormat[] = [
  whoisRawFormat, // port-43 WHOIS text: never claims JSON, PEM or masscan content, so it goes before NDJSON
];
