import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Access } from '../auth/access.js';
import { CHECKPOINT_STREAM } from '../event-store/event-log-integrity.js';
import { KEY_ROTATION_STREAM } from '../event-store/signing-key-ring.js';
import { ServiceContext } from '../service-context.js';
import { ApiJson } from './openapi/responses.js';
import { EVENT_LOG_KEY } from './platform.openapi.js';

interface RetiredKeyView {
  key_id: string;
  public_key: string;
  retired_at: string | null;
  retired_at_position: string | null;
  successor_key_id: string | null;
}

/**
 * The public keys that verify the event log's signed checkpoints (ADR 0061, 0076): the active key (the fields
 * the route always had) and the retired ones of the service's key ring, which anyone may hold outside.
 */
@ApiTags('health')
@Access({ surface: 'public', permission: 'service.health' })
@Controller('.well-known')
export class EventLogKeyController {
  constructor(@Inject(ServiceContext) private readonly context: ServiceContext) {}

  @Get('event-log-key')
  @ApiOperation({
    summary:
      "The public keys that verify the event log's signed checkpoints: the active one and the retired ones",
  })
  @ApiJson(200, EVENT_LOG_KEY)
  async key(): Promise<{
    algorithm: 'Ed25519';
    key_id: string;
    public_key: string;
    checkpoint_stream: string;
    rotation_stream: string;
    retired_keys: RetiredKeyView[];
  }> {
    const evidence = this.context.tamperEvidence;
    // A rotation the CLI recorded switches this instance first: the route never names a retired key active.
    if (evidence.supported) await evidence.followRotations();
    const { signer } = evidence;
    const rotations = evidence.supported ? await evidence.rotations() : [];
    const retiredKeys = evidence
      .keyRing()
      .keys.filter((key) => key.keyId !== signer.keyId)
      .map((key): RetiredKeyView => {
        const recorded = rotations.find((entry) => entry.rotation.retiredKeyId === key.keyId);
        return {
          key_id: key.keyId,
          public_key: key.publicKeyPem,
          retired_at: recorded?.rotation.retiredAt ?? key.retiredAt,
          retired_at_position: recorded?.position ?? null,
          successor_key_id: recorded?.rotation.successorKeyId ?? key.successorKeyId,
        };
      });
    return {
      algorithm: 'Ed25519',
      key_id: signer.keyId,
      public_key: signer.publicKeyPem,
      checkpoint_stream: CHECKPOINT_STREAM,
      rotation_stream: KEY_ROTATION_STREAM,
      retired_keys: retiredKeys,
    };
  }
}
