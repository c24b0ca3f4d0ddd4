import type { CollectorFormat } from './collected.js';

/**
 * Every collector format `data import` knows, in the order content sniffing tries them (the most specific
 * first; plain NDJSON last, as the fallback).
 */
export const COLLECTOR_FORMATS: readonly CollectorFormat[] = [];
