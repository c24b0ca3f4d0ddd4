import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { ERROR_STATUS } from '../../src/platform/errors/error-codes.js';

/** The README's status table is what API users read; it must list every registered code under its status. */
function readmeStatusTable(): Map<number, Set<string>> {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('## Errors'));
  const table = new Map<number, Set<string>>();
  for (const line of section.split('\n')) {
    const row = /^\|\s*(\d{3})\s*\|([^|]*)\|/.exec(line);
    if (!row) continue;
    table.set(Number(row[1]), new Set([...(row[2] ?? '').matchAll(/`([a-z_]+)`/g)].map((m) => m[1] ?? '')));
  }
  return table;
}

describe('README error table', () => {
  it('lists every registered error code under the status the service answers it with', () => {
    const table = readmeStatusTable();
    const missing = Object.entries(ERROR_STATUS)
      .filter(([code, status]) => !table.get(status)?.has(code))
      .map(([code, status]) => `${status} ${code}`);
    expect(missing).toEqual([]);
  });

  it('lists no code the service does not register', () => {
    const listed = [...readmeStatusTable().entries()].flatMap(([status, codes]) =>
      [...codes].map((code) => `${status} ${code}`),
    );
    const registered = new Set(Object.entries(ERROR_STATUS).map(([code, status]) => `${status} ${code}`));
    expect(listed.filter((entry) => !registered.has(entry))).toEqual([]);
  });
});
