/**
 * How records become export rows. Pure.
 * - json: one JSON document per line (NDJSON), the stored record as is;
 * - csv: RFC 4180 (CRLF line ends, fields quoted when they hold a comma, quote, CR or LF, quotes doubled), a
 *   header row of the dataset's vocabulary as dotted paths (`http.title`), lists joined with `;`;
 * - txt: one primary value per line (hosts: ip, dns: name, vhosts: fingerprint, whois: domain).
 */
import { fieldsOf } from '../../search/domain/datasets.js';
import type { ObservationRecord } from '../../search/observation-index/observation-index.port.js';
import type { ExportFormat, ExportSearchType } from './export-job.js';

export const PRIMARY_FIELD: Readonly<Record<ExportSearchType, string>> = {
  hosts: 'ip',
  dns: 'name',
  vhosts: 'fingerprint',
  whois: 'domain',
};

export const CONTENT_TYPE: Readonly<Record<ExportFormat, string>> = {
  json: 'application/x-ndjson; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
};

export const FILE_EXTENSION: Readonly<Record<ExportFormat, string>> = {
  json: 'ndjson',
  csv: 'csv',
  txt: 'txt',
};

/** CSV columns of a dataset: id, the searchable vocabulary, then the observation window. */
export function csvColumns(searchType: ExportSearchType): string[] {
  const names = ['id', ...fieldsOf(searchType).map((field) => field.name), 'first_seen', 'last_seen'];
  return [...new Set(names)];
}

export function valueAtPath(record: Readonly<Record<string, unknown>>, path: string): unknown {
  return valueAtParts(record, path.split('.'));
}

function valueAtParts(record: Readonly<Record<string, unknown>>, parts: readonly string[]): unknown {
  let node: unknown = record;
  for (let i = 0; i < parts.length; i++) {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[parts[i]!];
  }
  return node;
}

const NEEDS_QUOTES = /[",\r\n]/;

export function csvField(value: unknown): string {
  if (value === undefined || value === null) return '';
  // Numbers and booleans never hold a quote, comma or line break.
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  let text: string;
  if (typeof value === 'string') text = value;
  else if (Array.isArray(value))
    text = value.map((item) => (typeof item === 'object' ? JSON.stringify(item) : String(item))).join(';');
  else if (typeof value === 'object') text = JSON.stringify(value);
  else text = String(value);
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export interface RowFormatter {
  /** Written once before the first row (the CSV header), or empty. */
  readonly header: string;
  row(record: ObservationRecord): string;
}

export function rowFormatter(searchType: ExportSearchType, format: ExportFormat): RowFormatter {
  switch (format) {
    case 'json':
      return { header: '', row: (record) => `${JSON.stringify(record)}\n` };
    case 'csv': {
      const columns = csvColumns(searchType);
      const paths = columns.map((column) => column.split('.'));
      return {
        header: `${columns.map(csvField).join(',')}\r\n`,
        // Paths split once; the line is built straight from the record (an export formats millions of rows).
        row: (record) => {
          let line = csvField(valueAtParts(record, paths[0]!));
          for (let i = 1; i < paths.length; i++) line += ',' + csvField(valueAtParts(record, paths[i]!));
          return line + '\r\n';
        },
      };
    }
    case 'txt': {
      const parts = PRIMARY_FIELD[searchType].split('.');
      return {
        header: '',
        row: (record) => {
          const value = valueAtParts(record, parts);
          // Line breaks inside a value would split one row into two.
          return `${String(value ?? '').replace(/[\r\n]+/g, ' ')}\n`;
        },
      };
    }
  }
}

/** Average gzip bytes per row, measured on generated records (bench/exports.bench.ts prints the figures). */
const COMPRESSED_BYTES_PER_ROW: Readonly<Record<ExportFormat, number>> = { json: 110, csv: 75, txt: 8 };

export function estimatedFileSize(format: ExportFormat, rows: number): number {
  return rows === 0 ? 20 : Math.round(rows * COMPRESSED_BYTES_PER_ROW[format]) + 20;
}
