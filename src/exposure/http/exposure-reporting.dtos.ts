import { ApiProperty } from '@nestjs/swagger';
import { Allow, IsBoolean, IsDefined } from 'class-validator';
import { BODY_VERSION } from './exposure.dtos.js';

/** Bodies of the reports, monitoring and notification routes; the rules are decided in the domain. */
export class ExposureMonitoringBody {
  @ApiProperty({ description: 'true activates scheduled observation watches; false stops them' })
  @IsBoolean()
  enabled!: boolean;
}

export class NotificationPreferenceBody {
  @ApiProperty({ type: 'boolean', description: 'starts false' })
  @IsDefined()
  @Allow()
  enabled!: unknown;

  @ApiProperty({
    type: [String],
    maxItems: 20,
    uniqueItems: true,
    description: '0 to 20 member user ids, each once; at least one when enabled',
  })
  @IsDefined()
  @Allow()
  recipients!: unknown;

  @ApiProperty({ enum: ['fr', 'en'] })
  @IsDefined()
  @Allow()
  language!: unknown;

  @ApiProperty({
    oneOf: BODY_VERSION,
    description: 'the preference version you read (0 before the first save)',
  })
  @IsDefined()
  @Allow()
  version!: unknown;
}
