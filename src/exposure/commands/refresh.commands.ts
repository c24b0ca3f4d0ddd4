import { Command } from '@nestjs/cqrs';
import type { Principal } from '../../platform/auth/access.js';
import type { CommandEnvelope } from '../../platform/event-sourcing/command-metadata.js';
import type { HandleResult } from '../../platform/event-sourcing/event-sourced-repository.js';
import type { RefreshCommand, RefreshEvent, RefreshState } from '../domain/refresh-run.js';
import type { BillingMode } from '../domain/scope-declaration.js';

/**
 * POST …/exposure/run: the same key never runs twice (the earlier run answers, `replayed: true`); a new key
 * passes the cadence and quota limits and, under legacy credit billing, holds the refresh's price first.
 */
export class RequestManualRefresh extends Command<{ runId: string; replayed: boolean }> {
  constructor(
    readonly principal: Principal,
    readonly organizationId: string,
    readonly scopeId: string,
    readonly key: unknown,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

/** Queues a refresh run (creation, manual or watch); `requested` is false when its key ran already. */
export class QueueRefreshRun extends Command<{ requested: boolean }> {
  constructor(
    readonly organizationId: string,
    readonly scopeId: string,
    readonly runId: string,
    readonly trigger: 'creation' | 'manual' | 'watch',
    readonly input: string,
    readonly billing: BillingMode,
    readonly reservation: { reservationId: string; amount: number } | null,
    readonly envelope: CommandEnvelope,
    /** Waits until the exposure read models show the run (an HTTP answer reads them next). */
    readonly readYourWrites: boolean,
  ) {
    super();
  }
}

/** Cancels a scope's queued, running and retried refreshes (archiving or deletion) and releases their holds. */
export class CancelScopeRefreshes extends Command<{ cancelled: number }> {
  constructor(
    readonly scopeId: string,
    readonly reason: 'archived' | 'deleted',
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

/** One step of a refresh run taken by a worker (start, record, renew, complete, fail). */
export class AdvanceRefreshRun extends Command<HandleResult<RefreshEvent, RefreshState>> {
  constructor(
    readonly scopeId: string,
    readonly runId: string,
    readonly step: RefreshCommand,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

/** Releases the credit hold of a run that ended without completing (cancelled or failed). */
export class ReleaseRefreshHold extends Command<void> {
  constructor(
    readonly run: RefreshState,
    readonly organizationId: string,
    readonly scopeId: string,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}
