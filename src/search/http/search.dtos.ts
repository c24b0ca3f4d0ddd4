import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString } from 'class-validator';
import { DATASETS } from '../domain/datasets.js';
import { TIME_FRAMES } from '../domain/search-request.js';

/** Shapes only: the contract's rules (trimming, byte limits, caps) are applied by normalizeSearchRequest. */
export class SearchBody {
  @ApiProperty({
    description: 'query language; trimmed, nonempty, at most 512 UTF-8 bytes',
    example: 'product:nginx port:443',
  })
  @IsString()
  raw_query!: string;

  @ApiPropertyOptional({ enum: TIME_FRAMES, default: 'all_time' })
  @IsOptional()
  @IsString()
  time_frame?: string;

  @ApiPropertyOptional({ default: 20, description: 'positive values are capped at 25' })
  @IsOptional()
  @IsInt()
  per_type_limit?: number;

  @ApiPropertyOptional({
    default: true,
    description: 'false gives one JSON response; omitted or true gives SSE',
  })
  @IsOptional()
  @IsBoolean()
  stream?: boolean;

  @ApiPropertyOptional({ default: false, description: 'true disables smart interpretation of bare inputs' })
  @IsOptional()
  @IsBoolean()
  broad?: boolean;
}

export class SearchMoreBody {
  @ApiProperty()
  @IsString()
  raw_query!: string;

  @ApiProperty({ enum: DATASETS })
  @IsIn(DATASETS)
  dataset!: string;

  @ApiProperty({ minimum: 2 })
  @IsInt()
  page!: number;

  @ApiPropertyOptional({ enum: TIME_FRAMES, default: 'all_time' })
  @IsOptional()
  @IsString()
  time_frame?: string;

  @ApiPropertyOptional({ default: 20 })
  @IsOptional()
  @IsInt()
  per_type_limit?: number;

  @ApiPropertyOptional({ default: false })
  @IsOptional()
  @IsBoolean()
  broad?: boolean;
}

export class DatasetSearchBody {
  @ApiProperty()
  @IsString()
  raw_query!: string;

  @ApiPropertyOptional({ description: 'all, or a comma-separated list of field names', default: 'all' })
  @IsOptional()
  @IsString()
  include?: string;

  @ApiPropertyOptional({ default: false, description: 'true gives facet counts instead of rows' })
  @IsOptional()
  @IsBoolean()
  aggregate?: boolean;

  @ApiPropertyOptional({ enum: [10, 30, 50], default: 10 })
  @IsOptional()
  @IsIn([10, 30, 50])
  results_per_page?: number;

  @ApiPropertyOptional({ minimum: 1, default: 1 })
  @IsOptional()
  @IsInt()
  page?: number;

  @ApiPropertyOptional({ enum: TIME_FRAMES, default: 'all_time' })
  @IsOptional()
  @IsString()
  time_frame?: string;

  @ApiPropertyOptional({ default: false })
  @IsOptional()
  @IsBoolean()
  broad?: boolean;
}
