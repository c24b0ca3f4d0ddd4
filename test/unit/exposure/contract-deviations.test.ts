/**
 * Issue 13, exposure and versioning rules the black-box review found broken, on the pure domain: each test
 * names the contract rule it proves.
 */
import { describe, expect, it } from '@jest/globals';
import {
  checkedRunKey,
  INITIAL_REFRESH_KEY,
  RESERVED_RUN_KEY_PREFIX,
} from '../../../src/exposure/domain/refresh-run.js';
import { checkedTimezone } from '../../../src/exposure/domain/scope-declaration.js';
import { watchRunKey } from '../../../src/exposure/domain/watch.js';
import { ifMatchVersion, optionalIfMatchVersion } from '../../../src/platform/http/if-match.js';
import { ServiceError } from '../../../src/platform/errors/service-error.js';

function refusal(run: () => unknown): ServiceError {
  try {
    run();
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('POST /run: client run keys never use the service namespace', () => {
  it('the initial refresh and every watch slot live in the reserved namespace', () => {
    expect(INITIAL_REFRESH_KEY.startsWith(RESERVED_RUN_KEY_PREFIX)).toBe(true);
    expect(watchRunKey('6f1c2d8e-0000-4000-8000-000000000000', 3).startsWith(RESERVED_RUN_KEY_PREFIX)).toBe(
      true,
    );
  });

  it('a client key equal to the initial-refresh key or a watch key is refused (422), other keys pass', () => {
    for (const key of [
      INITIAL_REFRESH_KEY,
      watchRunKey('6f1c2d8e-0000-4000-8000-000000000000', 0),
      '@any-reserved-key-0001',
    ]) {
      expect(key.length).toBeGreaterThanOrEqual(16);
      const error = refusal(() => checkedRunKey(key));
      expect(error.code).toBe('invalid_input');
      expect(error.details).toMatchObject({ fields: [{ field: 'key' }] });
    }
    expect(checkedRunKey('client-key-0001-a@b')).toBe('client-key-0001-a@b');
  });
});

describe('Scope: the timezone is an IANA name stored in canonical form', () => {
  it('case variants and links are stored as the canonical name', () => {
    expect(checkedTimezone('europe/paris')).toBe('Europe/Paris');
    expect(checkedTimezone('EUROPE/PARIS')).toBe('Europe/Paris');
    expect(checkedTimezone(' Europe/Paris ')).toBe('Europe/Paris');
    expect(checkedTimezone('utc')).toBe('UTC');
    expect(checkedTimezone('Etc/UTC')).toBe('UTC');
    expect(checkedTimezone('america/argentina/buenos_aires')).toBe(
      new Intl.DateTimeFormat('en-US', { timeZone: 'America/Argentina/Buenos_Aires' }).resolvedOptions()
        .timeZone,
    );
  });

  it('abbreviations, offsets and unknown names are refused', () => {
    for (const bad of ['CET', 'EST', '+02:00', 'Europe/Atlantis', '', 'Mars/Olympus_Mons']) {
      expect(refusal(() => checkedTimezone(bad)).code).toBe('invalid_input');
    }
  });
});

describe('Versioning 2: If-Match carries the strong quoted version', () => {
  it('a weak validator is refused with 422 naming If-Match; a strong one is read', () => {
    const weak = refusal(() => ifMatchVersion('W/"3"'));
    expect(weak.code).toBe('invalid_input');
    expect(weak.details).toMatchObject({ fields: [{ field: 'If-Match' }] });
    expect(refusal(() => ifMatchVersion('w/"3"')).code).toBe('invalid_input');
    expect(ifMatchVersion('"3"')).toBe(3);
    expect(refusal(() => ifMatchVersion(undefined)).code).toBe('precondition_required');
    expect(refusal(() => ifMatchVersion('"-1"')).code).toBe('invalid_input');
  });

  it('Versioning 2: an optional If-Match sent blank is malformed (422 naming If-Match), never 428; absent is no precondition', () => {
    expect(optionalIfMatchVersion(undefined)).toBeUndefined();
    expect(optionalIfMatchVersion('"4"')).toBe(4);
    for (const blank of ['', ' ']) {
      const refused = refusal(() => optionalIfMatchVersion(blank));
      expect(refused.code).toBe('invalid_input');
      expect(refused.details).toMatchObject({ fields: [{ field: 'If-Match' }] });
    }
    expect(refusal(() => optionalIfMatchVersion('W/"4"')).code).toBe('invalid_input');
  });
});
