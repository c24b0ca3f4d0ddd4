const PREFERRED = [
  'ip',
  'port',
  'hostname',
  'domain',
  'name',
  'host',
  'product',
  'registrar',
  'type',
  'value',
];

/** A short, readable line for a stored observation: a few of its well-known fields, as the service sent them. */
export function recordSummary(raw: Record<string, unknown>): string {
  const shown: string[] = [];
  const take = (key: string) => {
    const value = raw[key];
    if (
      shown.length < 4 &&
      (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    )
      shown.push(`${key}: ${String(value)}`);
  };
  PREFERRED.forEach(take);
  if (shown.length === 0) Object.keys(raw).forEach(take);
  return shown.join(' · ') || '(no plain fields)';
}
