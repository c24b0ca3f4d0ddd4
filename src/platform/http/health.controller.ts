import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Access } from '../auth/access.js';
import { ServiceContext } from '../service-context.js';
import { ApiJson } from './openapi/responses.js';
import { LIVENESS, READINESS } from './platform.openapi.js';

/** Liveness (the process answers) and readiness (storage reachable, projections following the log). */
@ApiTags('health')
@Access({ surface: 'public', permission: 'service.health' })
@Controller('health')
export class HealthController {
  constructor(@Inject(ServiceContext) private readonly context: ServiceContext) {}

  @Get('live')
  @ApiOperation({ summary: 'The process is up' })
  @ApiJson(200, LIVENESS, 'The process answers')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiOperation({ summary: 'Storage is reachable and every projection follows the log' })
  @ApiJson(200, READINESS, 'Ready: storage answers and every projection is live')
  @ApiJson(503, READINESS, 'Not ready yet: the checks say what is missing')
  async ready(@Res({ passthrough: true }) reply: FastifyReply): Promise<Record<string, unknown>> {
    const checks: Record<string, { ok: boolean; detail?: string }> = {};
    // Shown, not counted: a stale or rebuilding association index only delays what `cve:`/`kev:` find.
    const catalogue = await this.context.catalogue.indexStatus();
    try {
      await this.context.storage.eventStore.headPosition();
      checks.event_store = { ok: true, detail: this.context.storage.eventStore.kind };
    } catch (error) {
      checks.event_store = { ok: false, detail: error instanceof Error ? error.message : String(error) };
    }
    try {
      await this.context.storage.readStore.listCheckpoints();
      checks.read_store = { ok: true, detail: this.context.storage.readStore.kind };
    } catch (error) {
      checks.read_store = { ok: false, detail: error instanceof Error ? error.message : String(error) };
    }
    const projections = this.context.projections.states().map((projection) => ({
      name: projection.name,
      state: projection.state,
      position: projection.position,
      ...(projection.lastError ? { last_error: projection.lastError } : {}),
    }));
    checks.projections = {
      ok: projections.every((projection) => projection.state === 'live'),
      detail: projections
        .filter((projection) => projection.state !== 'live')
        .map((projection) => `${projection.name}: ${projection.state}`)
        .join(', '),
    };
    const ready = Object.values(checks).every((check) => check.ok);
    void reply.status(ready ? 200 : 503);
    // Failed background work (start-up recovery, sweepers) is shown, not counted: the instance still serves. The
    // route is public: whether each worker fails, not which items or why (`workers status` tells operators).
    return {
      status: ready ? 'ready' : 'not_ready',
      catalogue,
      checks,
      projections,
      event_log: this.eventLogStatus(),
      background: this.context.background.publicView(),
    };
  }

  /** The last verification of the log by the sealer (shown, not counted: tampering does not stop serving). */
  private eventLogStatus(): { verified: Record<string, unknown> | null; retired_signing_key?: unknown } {
    const integrity = this.context.storage.eventStore.integrity !== undefined;
    const verified = integrity ? this.context.tamperEvidence.lastVerified : null;
    // A rotation retired the key this instance holds: it signs no checkpoint until it has the new one (ADR 0077).
    const held = integrity ? this.context.tamperEvidence.retiredKeyHeld : null;
    const retired = held
      ? { retired_signing_key: { key_id: held.keyId, successor_key_id: held.successorKeyId } }
      : {};
    if (!verified) return { verified: null, ...retired };
    const checkpoint = verified.checkpoint;
    return {
      ...retired,
      verified: {
        ok: verified.ok,
        at: verified.at,
        checkpoint: checkpoint && {
          position: checkpoint.position,
          chain_index: checkpoint.chainIndex,
          chain_head: checkpoint.chainHead,
          signed_at: checkpoint.at,
        },
        ...(verified.finding ? { finding: verified.finding } : {}),
      },
    };
  }
}
