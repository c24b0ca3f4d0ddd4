import { describe, expect, it } from '@jest/globals';
import { storedMetadata, toRecordedEvent } from '../../src/platform/event-store/eventstoredb/esdb-mapping.js';
import type { NewEvent } from '../../src/platform/event-store/event-store.port.js';
import { encodePosition } from '../../src/platform/event-store/global-position.js';

/** The EventStoreDB leg of the contract needs a container; the mapping of the attribution fields is pure. */
describe('EventStoreDB metadata mapping of attribution (ADR 68)', () => {
  const base = {
    actor: 'operator:alice',
    payer: 'account:a1',
    scope: null,
    correlationId: 'c1',
    causationId: 'c2',
  };
  const roundTrip = (metadata: NewEvent['metadata']) => {
    const event: NewEvent = {
      id: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
      type: 'T',
      schemaVersion: 1,
      data: {},
      metadata,
    };
    const stored = JSON.parse(
      JSON.stringify(storedMetadata('s', event, '2026-01-01T00:00:00.000Z')),
    ) as unknown;
    return toRecordedEvent(
      {
        streamId: 's',
        revision: 0n,
        id: event.id,
        type: 'T',
        created: new Date(),
        data: {},
        metadata: stored,
      },
      encodePosition(1, 1),
    ).metadata;
  };

  it('writes and reads credential, surface, request id and reason; null credentials stay null', () => {
    const full = {
      ...base,
      credential: 'operator_credential:abcdefghijkl',
      surface: 'cli' as const,
      requestId: 'r1',
      reason: 'invoice 17',
    };
    expect(roundTrip(full)).toEqual(full);
    const system = { ...base, actor: 'system:x', credential: null, surface: 'system' as const };
    expect(roundTrip(system)).toEqual(system);
  });

  it('writes and reads the OAuth client of an access token (ADR 109)', () => {
    const viaClient = {
      ...base,
      actor: 'account:a1',
      credential: 'access_token:t1',
      surface: 'mcp' as const,
      clientId: 'client-123',
      requestId: 'r2',
    };
    expect(roundTrip(viaClient)).toEqual(viaClient);
  });

  it('adds nothing to metadata written without them', () => {
    expect(roundTrip(base)).toEqual(base);
  });
});
