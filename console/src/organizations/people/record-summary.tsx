/** A short, readable line for a source record (dataset, id and its first plain fields); the record is the service's. */
export function recordSummary(record: Record<string, unknown>): { title: string; detail: string } {
  const source = (record.source && typeof record.source === 'object' ? record.source : record) as Record<
    string,
    unknown
  >;
  const dataset = typeof record.dataset === 'string' ? record.dataset : '';
  const id = typeof record.id === 'string' ? record.id : '';
  const detail = Object.entries(source)
    .filter(([key, value]) => key !== 'id' && (typeof value === 'string' || typeof value === 'number'))
    .slice(0, 4)
    .map(([key, value]) => `${key}: ${String(value)}`)
    .join(' · ');
  return { title: [dataset, id].filter(Boolean).join(' ') || 'record', detail };
}

/** A field value as text for a comparison cell (objects as compact JSON). */
export function fieldText(value: unknown): string {
  if (value === undefined || value === null) return '—';
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    return String(value);
  return JSON.stringify(value);
}
