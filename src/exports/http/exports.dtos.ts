import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsString } from 'class-validator';
import { Omittable } from '../../platform/http/validation.js';
import { TIME_FRAMES } from '../../search/domain/search-request.js';
import { RAW_QUERY_PROPERTY } from '../../search/http/search.dtos.js';
import { EXPORT_FORMATS } from '../domain/export-job.js';

/** Shapes only: the contract's rules (trimming, byte limits, formats) are applied by the export commands. */
export class ExportEstimateBody {
  @ApiProperty({ ...RAW_QUERY_PROPERTY, example: 'port:443' })
  @IsString()
  raw_query!: string;

  @ApiPropertyOptional({ enum: TIME_FRAMES, default: 'all_time' })
  @Omittable()
  @IsString()
  time_frame?: string;

  @ApiPropertyOptional({
    enum: EXPORT_FORMATS,
    default: 'json',
    description: 'only used to estimate the file size',
  })
  @Omittable()
  @IsString()
  format?: string;

  @ApiPropertyOptional({ default: false, description: 'true disables smart interpretation of bare inputs' })
  @Omittable()
  @IsBoolean()
  broad?: boolean;
}

export class ExportRequestBody {
  @ApiProperty({ ...RAW_QUERY_PROPERTY, example: 'port:443' })
  @IsString()
  raw_query!: string;

  @ApiPropertyOptional({ enum: TIME_FRAMES, default: 'all_time' })
  @Omittable()
  @IsString()
  time_frame?: string;

  @ApiProperty({
    enum: EXPORT_FORMATS,
    description:
      'json: one JSON document per line (NDJSON); csv: RFC 4180 with a header row, nested fields flattened to ' +
      'dotted columns, lists joined with ";"; txt: one primary value per line (hosts: ip, dns: name, ' +
      'vhosts: fingerprint, whois: domain)',
  })
  @IsString()
  format!: string;

  @ApiPropertyOptional({ default: false })
  @Omittable()
  @IsBoolean()
  broad?: boolean;
}
