import { ServiceError } from '../errors/service-error.js';

/**
 * Versioning 2: scope routes carry the quoted version in If-Match. Missing → 428 `precondition_required` (the
 * client must read before it writes); malformed → 422; a stale one becomes 409 `version_conflict` at the append.
 * A weak validator (`W/"3"`) is refused with 422 too: a write needs the strong version the client read
 * (RFC 9110 compares If-Match strongly, so a weak tag could never match).
 */
export function ifMatchVersion(header: string | undefined, what = 'the scope'): number {
  if (header === undefined || header.trim() === '') {
    throw new ServiceError('precondition_required', `send If-Match with the quoted version of ${what}`);
  }
  const value = header.trim();
  if (/^W\//i.test(value)) {
    throw new ServiceError(
      'invalid_input',
      `If-Match must hold the strong quoted version of ${what} (e.g. "3"); a weak validator (W/"3") cannot guard a write`,
      {
        fields: [{ field: 'If-Match', problems: ['must be a strong quoted version, not a weak validator'] }],
      },
    );
  }
  const match = /^"(\d+)"$/.exec(value);
  if (!match || !Number.isSafeInteger(Number(match[1]))) {
    throw new ServiceError('invalid_input', 'If-Match must hold the quoted version, e.g. "3"', {
      fields: [{ field: 'If-Match', problems: ['must be a quoted version'] }],
    });
  }
  return Number(match[1]);
}

/**
 * Where If-Match is optional: absent is no precondition; sent, it must be a usable version. A blank one is
 * malformed (422), never "precondition required" (428): the route requires none.
 */
export function optionalIfMatchVersion(header: string | undefined, what = 'the scope'): number | undefined {
  if (header === undefined) return undefined;
  if (header.trim() === '') {
    throw new ServiceError('invalid_input', `If-Match, when sent, must hold the quoted version of ${what}`, {
      fields: [{ field: 'If-Match', problems: ['must be a quoted version, not blank'] }],
    });
  }
  return ifMatchVersion(header, what);
}
