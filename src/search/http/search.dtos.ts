import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsInt, IsString, ValidateBy } from 'class-validator';
import { Omittable } from '../../platform/http/validation.js';
import { DATASETS } from '../domain/datasets.js';
import { MAX_SEARCH_OFFSET } from '../domain/pricing.js';
import { RAW_QUERY_MAX_BYTES, TIME_FRAMES } from '../domain/search-request.js';

/**
 * How `raw_query` is documented on every search and export body: not blank, and at most 512 UTF-8 bytes (so at
 * most 512 characters; the byte limit is the one applied).
 */
export const RAW_QUERY_PROPERTY = {
  description: `query language; trimmed, nonempty, at most ${RAW_QUERY_MAX_BYTES} UTF-8 bytes`,
  minLength: 1,
  maxLength: RAW_QUERY_MAX_BYTES,
  pattern: '\\S',
} as const;

/** The fields every search and export body shares, declared once (documentation and validator together). */
export const SearchField = {
  rawQuery: (example?: string): PropertyDecorator =>
    applyDecorators(
      IsString(),
      ApiProperty(example ? { ...RAW_QUERY_PROPERTY, example } : RAW_QUERY_PROPERTY),
    ),
  timeFrame: (): PropertyDecorator =>
    applyDecorators(IsString(), Omittable(), ApiPropertyOptional({ enum: TIME_FRAMES, default: 'all_time' })),
  perTypeLimit: (): PropertyDecorator =>
    applyDecorators(
      IsInt(),
      Omittable(),
      ApiPropertyOptional({ default: 20, minimum: 1, description: 'positive values are capped at 25' }),
    ),
  broad: (description?: string): PropertyDecorator =>
    applyDecorators(
      IsBoolean(),
      Omittable(),
      ApiPropertyOptional({ default: false, ...(description ? { description } : {}) }),
    ),
};

export const BROAD_DESCRIPTION = 'true disables smart interpretation of bare inputs';

/**
 * A page number from `first` on. Only an integer is compared: anything else is IsInt's one problem, so a field
 * is never refused twice for one mistake.
 */
function PageFrom(first: number, problem: string): PropertyDecorator {
  return ValidateBy({
    name: 'pageFrom',
    constraints: [first],
    validator: {
      validate: (value: unknown) => !Number.isInteger(value) || (value as number) >= first,
      defaultMessage: () => problem,
    },
  });
}

/** Shapes only: the contract's rules (trimming, byte limits, caps) are applied by normalizeSearchRequest. */
export class SearchBody {
  @SearchField.rawQuery('product:nginx port:443')
  raw_query!: string;

  @SearchField.timeFrame()
  time_frame?: string;

  @SearchField.perTypeLimit()
  per_type_limit?: number;

  @ApiPropertyOptional({
    default: true,
    description: 'false gives one JSON response; omitted or true gives SSE',
  })
  @Omittable()
  @IsBoolean()
  stream?: boolean;

  @SearchField.broad(BROAD_DESCRIPTION)
  broad?: boolean;
}

export class SearchMoreBody {
  @SearchField.rawQuery()
  raw_query!: string;

  @ApiProperty({ enum: DATASETS })
  @IsIn(DATASETS)
  dataset!: string;

  @ApiProperty({
    minimum: 2,
    maximum: MAX_SEARCH_OFFSET,
    description: `paging stops at ${MAX_SEARCH_OFFSET} records: (page - 1) × per_type_limit stays below it`,
  })
  @IsInt()
  @PageFrom(2, 'page must be 2 or more')
  page!: number;

  @SearchField.timeFrame()
  time_frame?: string;

  @SearchField.perTypeLimit()
  per_type_limit?: number;

  @SearchField.broad()
  broad?: boolean;
}

export class DatasetSearchBody {
  @SearchField.rawQuery()
  raw_query!: string;

  @ApiPropertyOptional({ description: 'all, or a comma-separated list of field names', default: 'all' })
  @Omittable()
  @IsString()
  include?: string;

  @ApiPropertyOptional({ default: false, description: 'true gives facet counts instead of rows' })
  @Omittable()
  @IsBoolean()
  aggregate?: boolean;

  @ApiPropertyOptional({ enum: [10, 30, 50], default: 10 })
  @Omittable()
  @IsIn([10, 30, 50])
  results_per_page?: number;

  @ApiPropertyOptional({
    minimum: 1,
    maximum: MAX_SEARCH_OFFSET / 10,
    default: 1,
    description: `paging stops at ${MAX_SEARCH_OFFSET} records: (page - 1) × results_per_page stays below it`,
  })
  @Omittable()
  @IsInt()
  @PageFrom(1, 'page must be an integer from 1')
  page?: number;

  @SearchField.timeFrame()
  time_frame?: string;

  @SearchField.broad()
  broad?: boolean;
}
