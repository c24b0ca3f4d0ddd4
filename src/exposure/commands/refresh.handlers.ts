import { Inject } from '@nestjs/common';
import { CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CreditLedger } from '../../credits/commands/credit-ledger.js';
import { CLOCK, type Clock } from '../../platform/clock/clock.js';
import { StreamWriter } from '../../platform/event-sourcing/stream-writer.js';
import { ProjectionRunner } from '../../platform/projections/projection-runner.js';
import { enforce, RATE_LIMITER, type RateLimiter } from '../../platform/rate-limit/rate-limiter.port.js';
import { declarationKey } from '../domain/coverage.js';
import {
  checkedRunKey,
  isFinished,
  MAX_REFRESH_CHARGE,
  refreshDecider,
  refreshRunStreamId,
  runKeyHash,
} from '../domain/refresh-run.js';
import { RefreshWorkerPool } from '../refresh-worker-pool.js';
import { ExposureGate, requireActiveScope } from './exposure-access.js';
import {
  EXPOSURE_PROJECTIONS,
  exposureRuns,
  REFRESH_CADENCE,
  REFRESH_QUOTA,
  REFRESH_RESERVATION_TTL_MS,
  withScope,
} from './exposure-write.js';
import {
  AdvanceRefreshRun,
  CancelScopeRefreshes,
  QueueRefreshRun,
  ReleaseRefreshHold,
  RequestManualRefresh,
} from './refresh.commands.js';

@CommandHandler(RequestManualRefresh)
export class RequestManualRefreshHandler implements ICommandHandler<RequestManualRefresh> {
  constructor(
    @Inject(ExposureGate) private readonly gate: ExposureGate,
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(RATE_LIMITER) private readonly rateLimiter: RateLimiter,
    @Inject(CreditLedger) private readonly ledger: CreditLedger,
    @Inject(CommandBus) private readonly commands: CommandBus,
  ) {}

  async execute({ principal, organizationId, scopeId, key: rawKey, envelope }: RequestManualRefresh) {
    const key = checkedRunKey(rawKey);
    const scope = await this.gate.scope(principal, organizationId, scopeId, { write: true });
    const runId = runKeyHash(key);
    const existing = await this.writer.load(refreshRunStreamId(scopeId, runId), refreshDecider);
    if (existing.state.exists) return { runId: existing.state.runId!, replayed: true };
    requireActiveScope(scope);
    enforce(
      await this.rateLimiter.consume(REFRESH_CADENCE, scopeId),
      'a scope can be refreshed once every 15 minutes',
    );
    enforce(
      await this.rateLimiter.consume(REFRESH_QUOTA, organizationId),
      'the organization has used its 48 refreshes of the last 24 hours',
    );
    const billing = scope.exposure.billing;
    const reservation =
      billing === 'credit'
        ? await this.ledger.reserve(
            {
              payer: `organization:${organizationId}`,
              amount: MAX_REFRESH_CHARGE,
              category: 'tools',
              channel: 'session',
              ttlMs: REFRESH_RESERVATION_TTL_MS,
              ...(scope.space.creditLimit !== null
                ? { envelopes: [{ key: `space:${scopeId}`, limit: scope.space.creditLimit }] }
                : {}),
            },
            withScope(envelope, organizationId, scopeId),
          )
        : null;
    const { requested } = await this.commands.execute(
      new QueueRefreshRun(
        organizationId,
        scopeId,
        runId,
        'manual',
        declarationKey(scope.exposure.domain, scope.exposure.addresses),
        billing,
        reservation ? { reservationId: reservation.reservationId, amount: reservation.amount } : null,
        withScope(envelope, organizationId, scopeId),
        true,
      ),
    );
    if (!requested && reservation) {
      // Another request with the same key won the race: it holds its own credits.
      await this.ledger.release(reservation, 'cancelled', withScope(envelope, organizationId, scopeId));
    }
    return { runId, replayed: !requested };
  }
}

@CommandHandler(QueueRefreshRun)
export class QueueRefreshRunHandler implements ICommandHandler<QueueRefreshRun> {
  constructor(
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(RefreshWorkerPool) private readonly pool: RefreshWorkerPool,
  ) {}

  async execute(command: QueueRefreshRun) {
    const result = await this.writer.decide({
      stream: refreshRunStreamId(command.scopeId, command.runId),
      decider: refreshDecider,
      command: {
        type: 'RequestRefresh',
        runId: command.runId,
        scopeId: command.scopeId,
        organizationId: command.organizationId,
        trigger: command.trigger,
        input: command.input,
        billing: command.billing,
        reservation: command.reservation,
      },
      context: { now: this.clock.now() },
      envelope: command.envelope,
      ...(command.readYourWrites ? { readYourWrites: EXPOSURE_PROJECTIONS } : {}),
    });
    const requested = result.events.length > 0;
    // Wakes the refresh pool instead of waiting for its next poll.
    if (requested) this.pool.nudge();
    return { requested };
  }
}

@CommandHandler(CancelScopeRefreshes)
export class CancelScopeRefreshesHandler implements ICommandHandler<CancelScopeRefreshes> {
  constructor(
    @Inject(ProjectionRunner) private readonly projections: ProjectionRunner,
    @Inject(CommandBus) private readonly commands: CommandBus,
  ) {}

  async execute({ scopeId, reason, envelope }: CancelScopeRefreshes) {
    const runs = await exposureRuns(this.projections).find({
      scopeId,
      status: { $in: ['queued', 'running', 'retry_scheduled'] },
    });
    let cancelled = 0;
    for (const run of runs) {
      const result = await this.commands.execute(
        new AdvanceRefreshRun(
          scopeId,
          run.runId,
          { type: 'CancelRefresh', reason },
          withScope(envelope, run.organizationId, scopeId, `cancel:${run.runId}`),
        ),
      );
      if (result.events.length > 0) cancelled++;
      await this.commands.execute(
        new ReleaseRefreshHold(result.state, run.organizationId, scopeId, envelope),
      );
    }
    return { cancelled };
  }
}

@CommandHandler(AdvanceRefreshRun)
export class AdvanceRefreshRunHandler implements ICommandHandler<AdvanceRefreshRun> {
  constructor(
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  execute({ scopeId, runId, step, envelope }: AdvanceRefreshRun) {
    return this.writer.decide({
      stream: refreshRunStreamId(scopeId, runId),
      decider: refreshDecider,
      command: step,
      context: { now: this.clock.now() },
      envelope,
    });
  }
}

@CommandHandler(ReleaseRefreshHold)
export class ReleaseRefreshHoldHandler implements ICommandHandler<ReleaseRefreshHold> {
  constructor(@Inject(CreditLedger) private readonly ledger: CreditLedger) {}

  async execute({ run, organizationId, scopeId, envelope }: ReleaseRefreshHold): Promise<void> {
    if (!run.reservation || !isFinished(run.status) || run.status === 'completed') return;
    await this.ledger.release(
      {
        reservationId: run.reservation.reservationId,
        payer: `organization:${organizationId}`,
        amount: run.reservation.amount,
        category: 'tools',
        channel: 'session',
      },
      run.status === 'cancelled' ? 'cancelled' : 'failed',
      withScope(envelope, organizationId, scopeId),
    );
  }
}

export const refreshHandlers = [
  RequestManualRefreshHandler,
  QueueRefreshRunHandler,
  CancelScopeRefreshesHandler,
  AdvanceRefreshRunHandler,
  ReleaseRefreshHoldHandler,
];
