import { isDataset, type Dataset } from '../../domain/datasets.js';
import { CollectedRecordRefused, type CollectorContext, type CollectorFormat } from './collected.js';

/** Lines longer than this are refused without parsing (as `data import` always did). */
export const MAX_NDJSON_LINE_CHARS = 1024 * 1024;

/**
 * The service's own NDJSON: one record of a dataset per line, in the shape `validateRecord` checks. With a named
 * dataset every line is of it; with `auto` the line's fields tell (see datasetOfLine).
 */
export const NDJSON_FORMAT: CollectorFormat = {
  name: 'ndjson',
  unit: 'lines',
  sniff(head: Buffer): boolean {
    const first = firstLine(head);
    return first !== undefined && first.startsWith('{');
  },
  records(item: string | Buffer, context: CollectorContext) {
    const text = typeof item === 'string' ? item : item.toString('utf8');
    if (text.length > MAX_NDJSON_LINE_CHARS)
      throw new CollectedRecordRefused(`line is longer than ${MAX_NDJSON_LINE_CHARS} characters`);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new CollectedRecordRefused(
        `invalid JSON: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      throw new CollectedRecordRefused(`a record must be a JSON object, got ${JSON.stringify(value)}`);
    const record = value as Record<string, unknown>;
    const dataset = context.dataset ?? datasetOfLine(record);
    return [{ dataset, record, evidence: [] }];
  },
};

/**
 * The dataset of an NDJSON record under `auto`, from the field only its dataset requires: fingerprint (vhosts),
 * domain (whois), name with type (dns), ip with port (hosts).
 */
export function datasetOfLine(record: Readonly<Record<string, unknown>>): Dataset {
  const has = (field: string) => record[field] !== undefined;
  const candidates: Dataset[] = [];
  if (has('fingerprint')) candidates.push('vhosts');
  if (has('domain')) candidates.push('whois');
  if (has('name') && has('type')) candidates.push('dns');
  if (has('ip') && has('port') && !has('fingerprint')) candidates.push('hosts');
  const [only] = candidates;
  if (candidates.length === 1 && isDataset(only)) return only;
  throw new CollectedRecordRefused(
    candidates.length === 0
      ? 'with auto, a line must show its dataset (fingerprint: vhosts, domain: whois, name and type: dns, ' +
          'ip and port: hosts); name the dataset instead'
      : `with auto, the line could be ${candidates.join(' or ')}; name the dataset instead`,
  );
}

/** The first non-blank line of `head` (byte order mark and surrounding blanks removed). */
export function firstLine(head: Buffer): string | undefined {
  const text = head.toString('utf8').replace(/^\ufeff/, '');
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (trimmed !== '') return trimmed;
  }
  return undefined;
}
