import { randomUUID } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CreditLedger, type Reservation } from '../../credits/commands/credit-ledger.js';
import { describeThrown } from '../../platform/errors/describe-thrown.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import { WrongExpectedVersion } from '../../platform/event-store/event-store.port.js';
import type { GlobalPosition } from '../../platform/event-store/global-position.js';
import { StreamWriter } from '../../platform/event-sourcing/stream-writer.js';
import type { CommandEnvelope } from '../../platform/event-sourcing/command-metadata.js';
import { exportAllowance, exportChannel, type ExportCommand } from '../domain/export-job.js';
import { EXPORT_FILES, type ExportFileStore } from '../files/export-file-store.port.js';
import { ExportQueries } from '../queries/export-queries.js';
import { EXPORT_RESERVATION_TTL_MS, ExportJobs } from './export-jobs.js';
import {
  AbandonExportAttempt,
  CancelOrDeleteAllExports,
  CancelOrDeleteExport,
  CompleteExportAttempt,
  ExpireExportFile,
  FailExport,
  RecordExportProgress,
  RequestExport,
  SettleExportCharge,
  StartExportAttempt,
  type StartedAttempt,
} from './export.commands.js';

@CommandHandler(RequestExport)
export class RequestExportHandler implements ICommandHandler<RequestExport> {
  constructor(
    @Inject(ExportJobs) private readonly jobs: ExportJobs,
    @Inject(CreditLedger) private readonly ledger: CreditLedger,
    @Inject(StreamWriter) private readonly writer: StreamWriter,
  ) {}

  async execute({ principal, searchType, body, envelope }: RequestExport): Promise<{ export_id: string }> {
    const prepared = await this.jobs.prepare(principal, searchType, body, envelope);
    const matching = await this.jobs.count(prepared.searchType, prepared.query);
    const { used, max } = await this.jobs.quota(principal.accountId, prepared.plan);
    if (matching > 0 && used >= max) {
      throw new ServiceError(
        'export_quota_exhausted',
        "This billing cycle's export results quota is used up.",
        { results_used: used, results_max: max },
      );
    }
    if (matching > 0 && (await this.ledger.available(prepared.payer)) < 1) {
      throw new ServiceError(
        'insufficient_credits',
        'Not enough credits to export any row (1 credit per 100 rows).',
        { available: 0 },
      );
    }
    const exportId = randomUUID();
    const result = await this.jobs.run(
      exportId,
      {
        type: 'RequestExport',
        exportId,
        ownerAccountId: principal.accountId,
        channel: principal.channel,
        payer: prepared.payer,
        searchType: prepared.searchType,
        rawQuery: prepared.rawQuery,
        timeFrame: prepared.timeFrame,
        since: prepared.since,
        broad: prepared.broad,
        format: prepared.format,
        estimatedCount: matching,
      },
      envelope,
    );
    await this.writer.readYourWrites(['exports'], result.position);
    return { export_id: exportId };
  }
}

@CommandHandler(CancelOrDeleteExport)
export class CancelOrDeleteExportHandler implements ICommandHandler<CancelOrDeleteExport> {
  constructor(
    @Inject(ExportJobs) private readonly jobs: ExportJobs,
    @Inject(ExportQueries) private readonly queries: ExportQueries,
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(EXPORT_FILES) private readonly files: ExportFileStore,
    @Inject(StreamWriter) private readonly writer: StreamWriter,
  ) {}

  async execute({
    principal,
    exportId,
    envelope,
  }: CancelOrDeleteExport): Promise<{ export_id: string; outcome: 'cancelled' | 'deleted' }> {
    await this.queries.owned(principal.accountId, exportId);
    const result = await this.jobs.run(exportId, { type: 'CancelOrDeleteExport' }, envelope);
    const decided = result.events[0];
    // A cancelled job's charge, or a charge still on its way when a finished job is deleted, goes to the ledger
    // now. It does not decide the answer: the job is cancelled or deleted either way, and the pool settles a
    // charge that could not be settled here (charge_pending).
    let position = result.position;
    if (result.state.chargePending) {
      position = (await this.trySettleCharge(exportId)) ?? position;
    }
    if (decided?.type === 'ExportDeleted' && decided.data.fileKey)
      await this.files.delete(decided.data.fileKey);
    await this.writer.readYourWrites(['exports'], position);
    return { export_id: exportId, outcome: decided?.type === 'ExportCancelled' ? 'cancelled' : 'deleted' };
  }

  /** A charge that must not fail the request: the pool retries what did not get through. */
  private async trySettleCharge(exportId: string): Promise<GlobalPosition | null> {
    try {
      return await this.commands.execute(new SettleExportCharge(exportId));
    } catch (error) {
      this.jobs.log('warn', 'export charge not settled yet; the export pool retries it', {
        exportId,
        err: describeThrown(error),
      });
      return null;
    }
  }
}

@CommandHandler(CancelOrDeleteAllExports)
export class CancelOrDeleteAllExportsHandler implements ICommandHandler<CancelOrDeleteAllExports> {
  constructor(
    @Inject(ExportQueries) private readonly queries: ExportQueries,
    @Inject(CommandBus) private readonly commands: CommandBus,
  ) {}

  async execute({
    principal,
    envelope,
  }: CancelOrDeleteAllExports): Promise<{ deleted_count: number; cancelled_count: number }> {
    let deleted = 0;
    let cancelled = 0;
    for (const document of await this.queries.list(principal.accountId)) {
      try {
        const { outcome } = await this.commands.execute(
          new CancelOrDeleteExport(principal, document.id, envelope),
        );
        if (outcome === 'deleted') deleted++;
        else cancelled++;
      } catch (error) {
        if (!(error instanceof ServiceError && error.code === 'not_found')) throw error;
      }
    }
    return { deleted_count: deleted, cancelled_count: cancelled };
  }
}

/**
 * Settles the reservation with credits_consumed (or releases it when nothing is owed, or when it was a lost
 * attempt's), then records the charge on the job, even a job deleted meanwhile. Both steps are idempotent, so a
 * crash between them is repaired by running this again, and a credit is never charged twice.
 */
@CommandHandler(SettleExportCharge)
export class SettleExportChargeHandler implements ICommandHandler<SettleExportCharge> {
  constructor(
    @Inject(ExportJobs) private readonly jobs: ExportJobs,
    @Inject(CreditLedger) private readonly ledger: CreditLedger,
  ) {}

  async execute({ exportId }: SettleExportCharge): Promise<GlobalPosition | null> {
    const { state } = await this.jobs.load(exportId);
    if (!state.chargePending || !state.request) return null;
    const envelope = this.jobs.systemEnvelope(state.request.payer, exportId);
    if (state.reservationId) {
      const reservation = {
        reservationId: state.reservationId,
        payer: state.request.payer,
        amount: state.reservedCredits,
        category: 'exports' as const,
        channel: exportChannel(state.request),
      };
      if (state.creditsConsumed > 0) await this.ledger.settle(reservation, state.creditsConsumed, envelope);
      else
        await this.ledger.release(
          reservation,
          state.status === 'failed' || state.status === 'pending' ? 'failed' : 'cancelled', // pending: a lost attempt
          envelope,
        );
    }
    return (await this.jobs.run(exportId, { type: 'RecordCharge' }, envelope)).position;
  }
}

@CommandHandler(AbandonExportAttempt)
export class AbandonExportAttemptHandler implements ICommandHandler<AbandonExportAttempt> {
  constructor(@Inject(ExportJobs) private readonly jobs: ExportJobs) {}

  async execute({ exportId, envelope }: AbandonExportAttempt): Promise<void> {
    await this.jobs.run(exportId, { type: 'AbandonAttempt' }, envelope);
  }
}

@CommandHandler(StartExportAttempt)
export class StartExportAttemptHandler implements ICommandHandler<StartExportAttempt> {
  constructor(
    @Inject(ExportJobs) private readonly jobs: ExportJobs,
    @Inject(CreditLedger) private readonly ledger: CreditLedger,
  ) {}

  async execute(command: StartExportAttempt): Promise<StartedAttempt | null> {
    const { exportId, envelope } = command;
    const { state } = await this.jobs.load(exportId);
    const request = state.request;
    if (!request) return null;
    const matching = await this.jobs.count(request.searchType, command.query);
    const quota = await this.jobs.quota(request.ownerAccountId, undefined, exportId);
    const available = await this.ledger.available(request.payer);
    const allowance = exportAllowance({
      matching,
      availableCredits: available,
      quotaLeft: quota.max - quota.used,
    });

    let reservation: Reservation | null = null;
    if (allowance.reserveCredits > 0) {
      reservation = await this.ledger.reserve(
        {
          payer: request.payer,
          amount: allowance.reserveCredits,
          category: 'exports',
          channel: exportChannel(request),
          ttlMs: EXPORT_RESERVATION_TTL_MS,
        },
        envelope,
      );
    }
    const attempt = state.attempt + 1;
    const fileKey = `${exportId}-${attempt}`;
    try {
      await this.jobs.run(
        exportId,
        {
          type: 'StartExport',
          workerId: command.workerId,
          reservationId: reservation?.reservationId ?? null,
          reservedCredits: reservation?.amount ?? 0,
          rowLimit: allowance.rowLimit,
          matching,
          truncationCause: allowance.cause,
          fileKey,
          leaseMs: command.leaseMs,
        },
        envelope,
      );
    } catch (error) {
      // Another worker claimed it, or it was cancelled meanwhile: give the credits back.
      if (reservation) await this.ledger.release(reservation, 'cancelled', envelope);
      if (
        error instanceof WrongExpectedVersion ||
        (error instanceof ServiceError && error.code !== 'internal_error')
      )
        return null;
      throw error;
    }
    return { attempt, fileKey, rowLimit: allowance.rowLimit };
  }
}

/** A step of a worker's own attempt: false when the job is no longer its worker's (cancelled or taken over). */
async function ownStep(
  jobs: ExportJobs,
  exportId: string,
  step: Extract<ExportCommand, { type: 'RecordProgress' | 'CompleteExport' }>,
  envelope: CommandEnvelope,
): Promise<boolean> {
  return (await jobs.run(exportId, step, envelope)).events.length > 0;
}

@CommandHandler(RecordExportProgress)
export class RecordExportProgressHandler implements ICommandHandler<RecordExportProgress> {
  constructor(@Inject(ExportJobs) private readonly jobs: ExportJobs) {}

  execute(command: RecordExportProgress): Promise<boolean> {
    const { exportId, workerId, attempt, rowsWritten, leaseMs } = command;
    return ownStep(
      this.jobs,
      exportId,
      { type: 'RecordProgress', workerId, attempt, rowsWritten, leaseMs },
      command.envelope,
    );
  }
}

@CommandHandler(CompleteExportAttempt)
export class CompleteExportAttemptHandler implements ICommandHandler<CompleteExportAttempt> {
  constructor(@Inject(ExportJobs) private readonly jobs: ExportJobs) {}

  execute(command: CompleteExportAttempt): Promise<boolean> {
    const { exportId, workerId, attempt, retentionMs } = command;
    return ownStep(
      this.jobs,
      exportId,
      { type: 'CompleteExport', workerId, attempt, ...command.result, retentionMs },
      command.envelope,
    );
  }
}

@CommandHandler(FailExport)
export class FailExportHandler implements ICommandHandler<FailExport> {
  constructor(
    @Inject(ExportJobs) private readonly jobs: ExportJobs,
    @Inject(CommandBus) private readonly commands: CommandBus,
  ) {}

  async execute({ exportId, reason, own }: FailExport): Promise<void> {
    const { state } = await this.jobs.load(exportId);
    if (!state.request) return;
    await this.jobs.run(
      exportId,
      { type: 'FailExport', reason, ...(own ? { workerId: own.workerId, attempt: own.attempt } : {}) },
      this.jobs.systemEnvelope(state.request.payer, exportId),
    );
    await this.commands.execute(new SettleExportCharge(exportId));
  }
}

@CommandHandler(ExpireExportFile)
export class ExpireExportFileHandler implements ICommandHandler<ExpireExportFile> {
  constructor(
    @Inject(ExportJobs) private readonly jobs: ExportJobs,
    @Inject(EXPORT_FILES) private readonly files: ExportFileStore,
  ) {}

  async execute({
    exportId,
    payer,
    fileKey,
  }: ExpireExportFile): Promise<{ position: GlobalPosition | null; fileDeleted: boolean }> {
    const result = await this.jobs.run(
      exportId,
      { type: 'ExpireExportFile' },
      this.jobs.systemEnvelope(payer, exportId),
    );
    return { position: result.position, fileDeleted: fileKey !== null && (await this.files.delete(fileKey)) };
  }
}

export const exportCommandHandlers = [
  RequestExportHandler,
  CancelOrDeleteExportHandler,
  CancelOrDeleteAllExportsHandler,
  SettleExportChargeHandler,
  AbandonExportAttemptHandler,
  StartExportAttemptHandler,
  RecordExportProgressHandler,
  CompleteExportAttemptHandler,
  FailExportHandler,
  ExpireExportFileHandler,
];
