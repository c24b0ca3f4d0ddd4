/** Hand-made stored host observations for the exposure suites, validated as the index would validate them. */
import { validateRecord, type ObservationRecord } from '../../src/search/domain/records.js';

/** An application CPE 2.3 name with every other attribute `*`. */
export const cpe = (vendor: string, product: string, version: string): string =>
  `cpe:2.3:a:${vendor}:${product}:${version}:*:*:*:*:*:*:*`;

/** A tcp service at ip:port, first seen in June, last seen `lastSeen`. */
export function host(
  ip: string,
  port: number,
  fields: Record<string, unknown>,
  lastSeen = '2026-11-18T08:00:00.000Z',
): ObservationRecord {
  const checked = validateRecord('hosts', {
    id: `${ip}:${port}/tcp`,
    ip,
    port,
    transport: 'tcp',
    first_seen: '2026-06-01T00:00:00.000Z',
    last_seen: lastSeen,
    ...fields,
  });
  if (!checked.ok) throw new Error(checked.problems.join('; '));
  return checked.record;
}
