import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, IsBoolean, IsDefined, IsString } from 'class-validator';
import { Omittable } from '../../platform/http/validation.js';

/**
 * Request bodies of the exposure routes. The DTOs only refuse unknown fields and wrong JSON types; every
 * contract rule (lengths, limits, states, dates) is decided in the domain, in one place.
 */
/** A body version: the integer, or the quoted form the views show ("3"). */
export const BODY_VERSION = [
  { type: 'integer', minimum: 0 },
  { type: 'string', pattern: '^"?[0-9]+"?$' },
];

export class CreateExposureScopeBody {
  @ApiProperty({ minLength: 1, maxLength: 120, pattern: '\\S', description: 'not blank (trimmed)' })
  @IsString()
  name!: string;

  @ApiProperty({
    format: 'hostname',
    example: 'example.com',
    description: 'a domain name (at least two labels)',
  })
  @IsString()
  domain!: string;

  @ApiProperty({ description: 'IANA timezone name', example: 'Europe/Paris' })
  @IsString()
  timezone!: string;

  @ApiPropertyOptional({
    type: 'array',
    items: {
      anyOf: [
        { type: 'string', format: 'ipv4' },
        { type: 'string', format: 'ipv6' },
      ],
    },
    maxItems: 16,
    description: 'up to 16 IP addresses',
  })
  @Omittable()
  @Allow()
  addresses?: unknown;

  @ApiProperty({ description: 'scheduled observation watches (explicit activation)' })
  @IsBoolean()
  monitoring!: boolean;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    description: 'ignored under capacity billing; 6 to 1,000,000 under legacy credit billing',
  })
  @Omittable()
  @Allow()
  credit_limit?: unknown;
}

export class DeleteClientBody {
  @ApiProperty({ type: 'string', description: 'the exact current name, as confirmation' })
  @IsDefined()
  @Allow()
  name!: unknown;
}

export class DecisionBody {
  @ApiProperty({ oneOf: BODY_VERSION, description: 'the current body version of the subject (not If-Match)' })
  @IsDefined()
  @Allow()
  version!: unknown;

  @ApiProperty({ enum: ['new', 'investigating', 'acknowledged'] })
  @IsDefined()
  @Allow()
  decision!: unknown;

  @ApiPropertyOptional({ enum: ['kept', 'closed', 'updated', 'not_concerned', 'other'], nullable: true })
  @Omittable()
  @Allow()
  conclusion?: unknown;

  @ApiPropertyOptional({ type: 'string', nullable: true, description: 'required for closed and updated' })
  @Omittable()
  @Allow()
  according_to?: unknown;

  @ApiPropertyOptional({
    type: 'string',
    nullable: true,
    description: 'required for not_concerned and other',
  })
  @Omittable()
  @Allow()
  note?: unknown;

  @ApiPropertyOptional({
    type: 'string',
    format: 'date',
    nullable: true,
    description: 'YYYY-MM-DD, not in the future in the scope timezone',
  })
  @Omittable()
  @Allow()
  announced_date?: unknown;

  @ApiPropertyOptional({
    type: 'string',
    format: 'date',
    nullable: true,
    description: 'renewed expiry date, YYYY-MM-DD (domain-expiry subjects only)',
  })
  @Omittable()
  @Allow()
  renewal?: unknown;
}

export class TimezoneBody {
  @ApiProperty({ type: 'string', description: 'IANA timezone name', example: 'Europe/Paris' })
  @IsDefined()
  @Allow()
  timezone!: unknown;

  @ApiProperty({ oneOf: BODY_VERSION, description: 'the scope version you read' })
  @IsDefined()
  @Allow()
  version!: unknown;
}

export class RunBody {
  @ApiProperty({
    type: 'string',
    minLength: 16,
    maxLength: 64,
    pattern: '^[\\x21-\\x7e]+$',
    description: 'stable key (printable ASCII, no space): the same key never runs twice',
  })
  @IsDefined()
  @Allow()
  key!: unknown;
}
