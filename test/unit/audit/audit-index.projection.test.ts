import { describe, expect, it } from '@jest/globals';
import {
  AUDIT_ENTRIES,
  AUDIT_STREAMS,
  auditIndexProjection,
  streamSubject,
  type AuditEntryDocument,
} from '../../../projections/audit-index.projection.js';
import type { EventMetadata, RecordedEvent } from '../../../src/platform/event-store/event-store.port.js';
import { encodePosition } from '../../../src/platform/event-store/global-position.js';
import { replayOneEventPerBatch } from '../../support/one-event-batches.js';

let sequence = 0;
function recorded(
  streamId: string,
  type: string,
  data: unknown,
  metadata: Partial<EventMetadata> & Record<string, unknown> = {},
): RecordedEvent {
  sequence++;
  return {
    id: `event-${sequence}`,
    type,
    schemaVersion: 1,
    data,
    metadata: {
      actor: 'account:alice',
      payer: 'account:alice',
      scope: null,
      correlationId: `c-${sequence}`,
      causationId: `c-${sequence}`,
      ...metadata,
    } as EventMetadata,
    streamId,
    streamVersion: 0,
    position: encodePosition(sequence, 0),
    recordedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, sequence)).toISOString(),
  };
}

function entries(events: RecordedEvent[]): AuditEntryDocument[] {
  const built = replayOneEventPerBatch(auditIndexProjection, events);
  return [...(built.get(AUDIT_ENTRIES)?.values() ?? [])] as AuditEntryDocument[];
}

const keysOf = (found: AuditEntryDocument[], eventId: string) =>
  found
    .filter((entry) => entry.eventId === eventId)
    .map((entry) => entry.key)
    .sort();

describe('audit index', () => {
  it('names the subject of each stream family by its prefix, the longer prefix first', () => {
    expect(streamSubject('organization-owner-a1')).toEqual({ subject: 'account', id: 'a1' });
    expect(streamSubject('organization-o1')).toEqual({ subject: 'organization', id: 'o1' });
    expect(streamSubject('ledger-account-a1')).toEqual({ subject: 'account', id: 'a1' });
    expect(streamSubject('ledger-organization-o1')).toEqual({ subject: 'organization', id: 'o1' });
    expect(streamSubject('client-s1')).toEqual({ subject: 'scope', id: 's1' });
    expect(streamSubject('exposure-watch-s1')).toEqual({ subject: 'scope', id: 's1' });
    expect(streamSubject('email-0123abcd')).toBeNull();
    expect(streamSubject('subject-s1-x')).toBeNull();
  });

  it('indexes an event under its actor, payer, stream owner, the ids its data names and its scope', () => {
    const invited = recorded(
      'organization-o1',
      'MemberInvited',
      { accountId: 'bob', spaceId: 's9' },
      { actor: 'account:alice', payer: 'account:alice' },
    );
    const claim = recorded(
      'email-0123abcd',
      'EmailClaimed',
      { accountId: 'carol' },
      {
        actor: 'operator:x',
        payer: 'system',
      },
    );
    const charged = recorded(
      'exposure-run-s1-k',
      'RunStarted',
      {},
      { payer: 'organization:o1', scope: 's1' },
    );
    const found = entries([invited, claim, charged]);
    expect(keysOf(found, invited.id)).toEqual([
      'account:alice',
      'account:bob',
      'actor:account:alice',
      'organization:o1',
      'scope:s9',
    ]);
    expect(keysOf(found, claim.id)).toEqual(['account:carol', 'actor:operator:x']);
    expect(keysOf(found, charged.id)).toEqual([
      'account:alice',
      'actor:account:alice',
      'organization:o1',
      'scope:s1',
    ]);
  });

  it("a stream whose first events named an organization keeps it for the stream's later events", () => {
    const created = recorded('case-k1', 'CaseOpened', { organizationId: 'o1' }, { payer: 'account:alice' });
    const renamed = recorded('case-k1', 'CaseRetitled', { title: 'x' }, { payer: 'account:alice' });
    const found = entries([created, renamed]);
    expect(keysOf(found, renamed.id)).toContain('organization:o1');
  });

  it('records the reason, credential, surface and request id when the event carries them, null when not', () => {
    const attributed = recorded(
      'account-a1',
      'PlanChanged',
      { plan: 'professional' },
      {
        actor: 'operator:ops',
        reason: 'refund ticket 42',
        credential: 'operator_credential:op-1',
        surface: 'cli',
        requestId: 'req-1',
      },
    );
    const bare = recorded('account-a1', 'PlanChanged', { plan: 'free' });
    const found = entries([attributed, bare]);
    expect(found.find((e) => e.eventId === attributed.id && e.key === 'account:a1')).toMatchObject({
      reason: 'refund ticket 42',
      credential: 'operator_credential:op-1',
      surface: 'cli',
      requestId: 'req-1',
      actor: 'operator:ops',
      stream: 'account-a1',
    });
    expect(found.find((e) => e.eventId === bare.id && e.key === 'account:a1')).toMatchObject({
      reason: null,
      credential: null,
      surface: null,
      requestId: null,
    });
    // Never the payload.
    for (const entry of found) expect(entry).not.toHaveProperty('data');
  });

  it("an erasure removes the erased streams' entries, so the live index equals a rebuild of what is left", () => {
    const space = recorded('client-s1', 'SpaceCreated', { organizationId: 'o1' }, { scope: 's1' });
    const decision = recorded(
      'subject-s1-x',
      'SubjectDecided',
      {},
      { scope: 's1', payer: 'organization:o1' },
    );
    const charge = recorded('ledger-organization-o1', 'CreditsReserved', {}, { scope: 's1' });
    const erased = recorded(
      'exposure-audit-o1',
      'ScopeErased',
      { scopeId: 's1', organizationId: 'o1', erasedStreams: ['client-s1', 'subject-s1-x'] },
      { actor: 'system:scope-erasure', payer: 'organization:o1', scope: 's1' },
    );
    const live = replayOneEventPerBatch(auditIndexProjection, [space, decision, charge, erased]);
    const rebuilt = replayOneEventPerBatch(auditIndexProjection, [charge, erased]);
    const sorted = (documents: Map<string, unknown> | undefined) =>
      [...(documents?.entries() ?? [])].sort(([a], [b]) => (a < b ? -1 : 1));
    expect(sorted(live.get(AUDIT_ENTRIES))).toEqual(sorted(rebuilt.get(AUDIT_ENTRIES)));
    expect(sorted(live.get(AUDIT_STREAMS))).toEqual(sorted(rebuilt.get(AUDIT_STREAMS)));
    expect(sorted(live.get(AUDIT_ENTRIES)).length).toBeGreaterThan(0);
  });
});
