import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString } from 'class-validator';
import { Omittable } from '../../platform/http/validation.js';
import { BROAD_DESCRIPTION, SearchField } from '../../search/http/search.dtos.js';
import { EXPORT_FORMATS } from '../domain/export-job.js';

/** Shapes only: the contract's rules (trimming, byte limits, formats) are applied by the export commands. */
export class ExportEstimateBody {
  @SearchField.rawQuery('port:443')
  raw_query!: string;

  @SearchField.timeFrame()
  time_frame?: string;

  @ApiPropertyOptional({
    enum: EXPORT_FORMATS,
    default: 'json',
    description: 'only used to estimate the file size',
  })
  @Omittable()
  @IsString()
  format?: string;

  @SearchField.broad(BROAD_DESCRIPTION)
  broad?: boolean;
}

export class ExportRequestBody {
  @SearchField.rawQuery('port:443')
  raw_query!: string;

  @SearchField.timeFrame()
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

  @SearchField.broad()
  broad?: boolean;
}
