import type { components } from '../../api/schema';

export type ExportJob = components['schemas']['ExportJob'];
export type ExportEstimate = components['schemas']['ExportEstimate'];
export type ExportRequest = components['schemas']['ExportRequestBody'];
export type SearchType = ExportJob['search_type'];
export type ExportFormat = ExportJob['format'];
export type TimeFrame = ExportJob['time_frame'];

export const SEARCH_TYPES: ReadonlyArray<{ value: SearchType; label: string }> = [
  { value: 'hosts', label: 'Hosts' },
  { value: 'dns', label: 'DNS' },
  { value: 'vhosts', label: 'Certificates (vhosts)' },
  { value: 'whois', label: 'WHOIS' },
];

export const FORMATS: ReadonlyArray<{ value: ExportFormat; label: string }> = [
  { value: 'json', label: 'JSON (one document per line)' },
  { value: 'csv', label: 'CSV (header row)' },
  { value: 'txt', label: 'Text (one value per line)' },
];

export const TIME_FRAMES: ReadonlyArray<{ value: TimeFrame; label: string }> = [
  { value: 'all_time', label: 'All time' },
  { value: 'last_24h', label: 'Last 24 hours' },
  { value: 'last_7d', label: 'Last 7 days' },
  { value: 'last_30d', label: 'Last 30 days' },
  { value: 'this_year', label: 'This year' },
];

/** The states after which an export changes no more (contract, Export status). */
export function isFinished(job: Pick<ExportJob, 'status'>): boolean {
  return job.status === 'completed' || job.status === 'failed' || job.status === 'cancelled';
}

/** The session route of an export's file: a plain link, the browser sends the session cookie (GET needs no CSRF). */
export function downloadHref(job: Pick<ExportJob, 'id'>): string {
  return `/api/v2/data/exports/${encodeURIComponent(job.id)}/download`;
}

/** The list's query key; one export's is the list's plus its id. */
export const exportsKey = ['exports'] as const;

/** How often a running export is asked about; it stops once the export is completed, failed or cancelled. */
export const POLL_INTERVAL_MS = 1000;
