import { CommandBus } from '@nestjs/cqrs';
import { Body, Controller, Get, Inject, Param, Req, Res, type Type } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createGunzip } from 'node:zlib';
import { Access, type AccessRule, type Principal } from '../../platform/auth/access.js';
import { Route } from '../../platform/http/route.js';
import { CurrentPrincipal } from '../../platform/auth/current-principal.js';
import { CLOCK, type Clock } from '../../platform/clock/clock.js';
import { envelopeFor } from '../../platform/http/request-envelope.js';
import {
  CancelOrDeleteAllExports,
  CancelOrDeleteExport,
  RequestExport,
} from '../commands/export.commands.js';
import { ExportDownloads } from '../queries/export-downloads.js';
import { ExportEstimates } from '../queries/export-estimates.js';
import { ExportQueries } from '../queries/export-queries.js';
import { CONTENT_TYPE, FILE_EXTENSION } from '../domain/export-formats.js';
import type { ExportFormat } from '../domain/export-job.js';
import { ExportWorkerPool } from '../export-worker-pool.js';
import { ApiErrors, ApiFile, ApiPathParams } from '../../platform/http/openapi/responses.js';
import { ExportEstimateBody, ExportRequestBody } from './exports.dtos.js';
import {
  DOWNLOAD_HEADERS,
  EXPORT_CREATED,
  EXPORT_ESTIMATE,
  EXPORT_JOB,
  EXPORT_LIST,
  EXPORT_MEDIA_TYPES,
  EXPORT_REMOVED,
  EXPORTS_REMOVED,
  SEARCH_TYPE_PARAM,
} from './exports.openapi.js';

/** What differs between the two surfaces of exports: where, and who may call. */
interface ExportsSurface {
  readonly name: string;
  readonly path: string;
  /** Estimating and starting an export. */
  readonly request: AccessRule;
  /** Reaching an export already requested (list, poll, download, delete). */
  readonly paidResult: AccessRule;
}

/**
 * The export routes of one surface; what they do is the queries' and the command handlers', once for both. Another
 * account's export is a 404.
 */
function exportsController(surface: ExportsSurface): Type<unknown> {
  @ApiTags('exports')
  @Controller(surface.path)
  class ExportsController {
    constructor(
      @Inject(CommandBus) private readonly commands: CommandBus,
      @Inject(ExportEstimates) private readonly estimates: ExportEstimates,
      @Inject(ExportQueries) private readonly queries: ExportQueries,
      @Inject(ExportWorkerPool) private readonly pool: ExportWorkerPool,
      @Inject(ExportDownloads) private readonly downloads: ExportDownloads,
      @Inject(CLOCK) private readonly clock: Clock,
    ) {}

    @Route({
      method: 'POST',
      path: ':searchType/estimate',
      access: surface.request,
      summary:
        'Estimate an export (free): matching rows, results quota before and after, partial limit, file size',
      answer: { status: 200, schema: EXPORT_ESTIMATE },
      errors: [403],
      also: [ApiPathParams(SEARCH_TYPE_PARAM)],
    })
    estimate(
      @CurrentPrincipal() principal: Principal,
      @Param('searchType') searchType: string,
      @Body() body: ExportEstimateBody,
      @Req() request: FastifyRequest,
    ) {
      return this.estimates.estimate(principal, searchType, body, envelopeFor(principal, String(request.id)));
    }

    @Route({
      method: 'POST',
      path: ':searchType',
      access: surface.request,
      summary:
        'Start an export (json: one JSON document per line; csv: RFC 4180 with header; txt: one primary value per line). ' +
        'Costs ceil(rows / 100) credits on rows written; truncated to what the balance and quota cover.',
      answer: {
        status: 202,
        schema: EXPORT_CREATED,
        description: 'Accepted: the export runs in the background; poll it',
      },
      errors: [403],
      also: [ApiPathParams(SEARCH_TYPE_PARAM)],
    })
    async create(
      @CurrentPrincipal() principal: Principal,
      @Param('searchType') searchType: string,
      @Body() body: ExportRequestBody,
      @Req() request: FastifyRequest,
    ) {
      const created = await this.commands.execute(
        new RequestExport(principal, searchType, body, envelopeFor(principal, String(request.id))),
      );
      this.pool.nudge();
      return created;
    }

    @Route({
      method: 'GET',
      path: '',
      access: surface.paidResult,
      summary: "All of the caller's exports, newest first (each item is the export job)",
      answer: { status: 200, schema: EXPORT_LIST },
    })
    async list(@CurrentPrincipal() principal: Principal) {
      const now = this.clock.now();
      const documents = await this.queries.list(principal.accountId);
      return { exports: documents.map((document) => this.queries.view(document, now)) };
    }

    @Route({
      method: 'GET',
      path: ':exportId/poll',
      access: surface.paidResult,
      summary: 'The export job: status, rows, credits, sizes, truncation, expiry',
      answer: { status: 200, schema: EXPORT_JOB },
    })
    async poll(@CurrentPrincipal() principal: Principal, @Param('exportId') exportId: string) {
      const document = await this.queries.owned(principal.accountId, exportId);
      return this.queries.view(document, this.clock.now());
    }

    // A file in the export's format: more than a Route's JSON answer documents.
    @Get(':exportId/download')
    @Access(surface.paidResult)
    @ApiOperation({
      summary:
        'The file once completed. With Accept-Encoding: gzip the stored gzip bytes are sent (Content-Encoding: gzip); ' +
        'otherwise they are decompressed on the fly. 409 export_not_ready before completion, 410 export_expired after.',
    })
    @ApiFile(200, EXPORT_MEDIA_TYPES, 'The file, in the format of the export', DOWNLOAD_HEADERS)
    @ApiErrors(409, 410)
    async download(
      @CurrentPrincipal() principal: Principal,
      @Param('exportId') exportId: string,
      @Req() request: FastifyRequest,
      @Res() reply: FastifyReply,
    ) {
      const { document, stored } = await this.downloads.open(principal.accountId, exportId);
      const format = document.format as ExportFormat;
      reply
        .header('Content-Type', CONTENT_TYPE[format])
        .header(
          'Content-Disposition',
          `attachment; filename="export-${document.id}.${FILE_EXTENSION[format]}"`,
        )
        .header('Vary', 'Accept-Encoding')
        .header('Cache-Control', 'private, no-store');
      if (acceptsGzip(request.headers['accept-encoding'])) {
        reply.header('Content-Encoding', 'gzip');
        if (document.file_size_bytes !== null)
          reply.header('Content-Length', String(document.file_size_bytes));
        return reply.send(stored);
      }
      if (document.original_size_bytes !== null)
        reply.header('Content-Length', String(document.original_size_bytes));
      const gunzip = createGunzip();
      stored.on('error', (error) => gunzip.destroy(error));
      return reply.send(stored.pipe(gunzip));
    }

    @Route({
      method: 'DELETE',
      path: ':exportId',
      access: surface.paidResult,
      summary:
        'Cancel a pending or processing export (a running one is charged for rows already written), ' +
        'or delete a completed, failed or cancelled one with its file',
      answer: { status: 200, schema: EXPORT_REMOVED, description: 'Cancelled (with the job) or deleted' },
      errors: [409],
    })
    async remove(
      @CurrentPrincipal() principal: Principal,
      @Param('exportId') exportId: string,
      @Req() request: FastifyRequest,
    ) {
      const result = await this.commands.execute(
        new CancelOrDeleteExport(principal, exportId, envelopeFor(principal, String(request.id))),
      );
      if (result.outcome === 'cancelled') this.pool.interrupt(exportId);
      const document = await this.queries.collection().get(exportId);
      return {
        export_id: exportId,
        outcome: result.outcome,
        ...(result.outcome === 'cancelled' && document
          ? { export: this.queries.view(document, this.clock.now()) }
          : {}),
      };
    }

    @Route({
      method: 'DELETE',
      path: '',
      access: surface.paidResult,
      summary: 'Delete every finished export of the caller and cancel the running ones: deleted_count',
      answer: { status: 200, schema: EXPORTS_REMOVED },
      errors: [409],
    })
    async removeAll(@CurrentPrincipal() principal: Principal, @Req() request: FastifyRequest) {
      return this.commands.execute(
        new CancelOrDeleteAllExports(principal, envelopeFor(principal, String(request.id))),
      );
    }
  }

  // The document's operation ids are the controller's name and the method's.
  Object.defineProperty(ExportsController, 'name', { value: surface.name });
  return ExportsController;
}

/**
 * Exports on the personal API. Estimating and starting one are personal data requests (Authentication 3); the
 * routes that reach an export already requested (list, poll, download, delete) are `paid_result`: paying for an
 * export never locks the caller out of it, even when its charge took the last purchased credit.
 */
export const ExportsController = exportsController({
  name: 'ExportsController',
  path: 'api/v2/common/exports',
  request: { surface: 'personal_api', permission: 'data.export', personalData: true },
  paidResult: { surface: 'personal_api', permission: 'data.export', personalData: 'paid_result' },
});

/**
 * The browser twins of exports (ADR 115): the session cookie, CSRF on POST and DELETE, the signed-in account's
 * exports. Same queries, same commands, same rules and charges as the personal routes.
 */
export const BrowserExportsController = exportsController({
  name: 'BrowserExportsController',
  path: 'api/v2/data/exports',
  request: { surface: 'session', permission: 'data.export' },
  paidResult: { surface: 'session', permission: 'data.export' },
});

/** Whether Accept-Encoding admits gzip (a `q=0` refuses it). */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  const value = Array.isArray(header) ? header.join(',') : (header ?? '');
  return value.split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (coding !== 'gzip' && coding !== 'x-gzip') return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}
