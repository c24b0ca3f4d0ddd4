/**
 * The audit record of an erased exposure scope, on the organization's exposure audit stream: appended by the
 * erasure sweeper once the scope's streams are deleted. Every read model holding the scope's content purges
 * it on this event, so a replay after the erasure gives the same views.
 */
import type { DomainEvent } from '../../platform/event-sourcing/decider.js';

export type ScopeErased = DomainEvent<
  'ScopeErased',
  {
    scopeId: string;
    organizationId: string;
    kind: string;
    deletedAt: string | null;
    deletedBy: string | null;
    eraseAfter: string | null;
    erasedAt: string;
    /** Every stream deleted by the erasure. */
    erasedStreams: string[];
  }
>;
