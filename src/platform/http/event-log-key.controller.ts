import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Access } from '../auth/access.js';
import { CHECKPOINT_STREAM } from '../event-store/event-log-integrity.js';
import { ServiceContext } from '../service-context.js';
import { ApiJson } from './openapi/responses.js';
import { EVENT_LOG_KEY } from './platform.openapi.js';

/** The public key that verifies the event log's signed checkpoints (ADR 0061): anyone may hold it outside. */
@ApiTags('health')
@Access({ surface: 'public', permission: 'service.health' })
@Controller('.well-known')
export class EventLogKeyController {
  constructor(@Inject(ServiceContext) private readonly context: ServiceContext) {}

  @Get('event-log-key')
  @ApiOperation({ summary: "The public key that verifies the event log's signed checkpoints" })
  @ApiJson(200, EVENT_LOG_KEY)
  key(): { algorithm: 'Ed25519'; key_id: string; public_key: string; checkpoint_stream: string } {
    const { signer } = this.context.tamperEvidence;
    return {
      algorithm: 'Ed25519',
      key_id: signer.keyId,
      public_key: signer.publicKeyPem,
      checkpoint_stream: CHECKPOINT_STREAM,
    };
  }
}
