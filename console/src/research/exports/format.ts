const NUMBER = new Intl.NumberFormat('en-US');
const DATE_TIME = new Intl.DateTimeFormat('en-GB', {
  dateStyle: 'medium',
  timeStyle: 'short',
  timeZone: 'UTC',
});
const DATE = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeZone: 'UTC' });

/** A count as people read it (1,234). */
export function count(value: number): string {
  return NUMBER.format(value);
}

/** "1 credit", "3 credits". */
export function credits(value: number): string {
  return `${NUMBER.format(value)} ${value === 1 ? 'credit' : 'credits'}`;
}

/** A size in bytes, in the largest unit that keeps it readable. */
export function bytes(value: number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  if (value < 1024) return `${value} B`;
  const units = ['KB', 'MB', 'GB'];
  let size = value / 1024;
  let unit = 0;
  while (size >= 1024 && unit < units.length - 1) {
    size /= 1024;
    unit++;
  }
  return `${size.toFixed(size < 10 ? 1 : 0)} ${units[unit]}`;
}

/** A moment in UTC, said so (the service's times are UTC). */
export function dateTime(value: string | null | undefined): string {
  return value ? `${DATE_TIME.format(new Date(value))} UTC` : '—';
}

export function date(value: string): string {
  return DATE.format(new Date(value));
}
