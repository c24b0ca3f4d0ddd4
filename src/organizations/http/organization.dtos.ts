import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsEmail,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { Omittable } from '../../platform/http/validation.js';

/** Names, titles and notes are trimmed and must keep a character: documented as not blank. */
const NOT_BLANK = { minLength: 1, pattern: '\\S', description: 'not blank (trimmed)' } as const;

export class CreateOrganizationBody {
  @ApiProperty({ ...NOT_BLANK, maxLength: 120 })
  @IsString()
  @Length(1, 120)
  name!: string;

  @ApiProperty({ enum: [true], description: 'Explicit acceptance of the account transition (rule 6)' })
  @IsDefined({ message: 'accept_account_transition is required and must be true' })
  @IsIn([true], { message: 'accept_account_transition must be true' })
  accept_account_transition!: true;

  @ApiProperty({ description: 'transfer_credits as the preview showed it' })
  @IsDefined({ message: 'expected_transfer is required: the transfer_credits of the preview' })
  @IsInt({ message: 'expected_transfer must be an integer' })
  @Min(0)
  expected_transfer!: number;

  @ApiPropertyOptional({ enum: ['trial', 'subscription'], default: 'trial' })
  @Omittable()
  @IsIn(['trial', 'subscription'])
  start?: 'trial' | 'subscription';

  @ApiPropertyOptional({
    format: 'hostname',
    description: 'Trial: the business domain proven by a DNS TXT record',
  })
  @Omittable()
  @IsString()
  @MaxLength(253)
  domain?: string;
}

export class RenameOrganizationBody {
  @ApiProperty({ ...NOT_BLANK, maxLength: 120 })
  @IsString()
  @Length(1, 120)
  name!: string;
}

export class BillingBody {
  @ApiProperty({ enum: ['teams', 'business'] })
  @IsIn(['teams', 'business'])
  plan!: 'teams' | 'business';
}

export class InvitationBody {
  @ApiProperty()
  @IsEmail()
  @MaxLength(254)
  email!: string;

  @ApiProperty({ enum: ['administrator', 'analyst', 'external_client'] })
  @IsIn(['administrator', 'analyst', 'external_client'])
  role!: 'administrator' | 'analyst' | 'external_client';

  @ApiPropertyOptional({ type: [String] })
  @Omittable()
  @IsArray()
  @ArrayMaxSize(100)
  @IsUUID('all', { each: true })
  space_ids?: string[];

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    nullable: true,
    description: "An external user's envelope (credits)",
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  portion?: number | null;
}

export class UpdateMemberBody {
  @ApiPropertyOptional({ enum: ['administrator', 'analyst', 'external_client'] })
  @Omittable()
  @IsIn(['administrator', 'analyst', 'external_client'])
  role?: 'administrator' | 'analyst' | 'external_client';

  @ApiPropertyOptional({ type: 'integer', minimum: 0, nullable: true })
  @IsOptional()
  @IsInt()
  @Min(0)
  portion?: number | null;
}

export class OwnershipOfferBody {
  @ApiProperty()
  @IsUUID()
  account_id!: string;
}

export class SelectContextBody {
  @ApiProperty()
  @IsUUID()
  space_id!: string;

  @ApiPropertyOptional({ type: 'string', format: 'uuid', nullable: true })
  @IsOptional()
  @IsUUID()
  case_id?: string | null;
}

export class CreateSpaceBody {
  @ApiProperty({ ...NOT_BLANK, maxLength: 120 })
  @IsString()
  @Length(1, 120)
  name!: string;

  @ApiPropertyOptional({ enum: ['client', 'asset_scope'], default: 'client' })
  @Omittable()
  @IsIn(['client', 'asset_scope'])
  kind?: 'client' | 'asset_scope';

  @ApiPropertyOptional({ type: 'integer', nullable: true, minimum: 6, maximum: 1_000_000 })
  @IsOptional()
  @IsInt()
  credit_limit?: number | null;

  @ApiPropertyOptional({ default: false })
  @Omittable()
  @IsBoolean()
  monitoring?: boolean;
}

export class UpdateSpaceBody {
  @ApiPropertyOptional({ ...NOT_BLANK, maxLength: 120 })
  @Omittable()
  @IsString()
  @Length(1, 120)
  name?: string;

  @ApiPropertyOptional({ enum: ['active', 'archived'] })
  @Omittable()
  @IsIn(['active', 'archived'])
  state?: 'active' | 'archived';

  @ApiPropertyOptional({ type: 'integer', nullable: true })
  @IsOptional()
  @IsInt()
  credit_limit?: number | null;
}

export class MonitoringBody {
  @ApiProperty()
  @IsBoolean()
  enabled!: boolean;
}

export class OpenCaseBody {
  @ApiProperty()
  @IsUUID()
  space_id!: string;

  @ApiProperty({ ...NOT_BLANK, maxLength: 200 })
  @IsString()
  @Length(1, 200)
  title!: string;
}

export class RecordRefBody {
  @ApiProperty({ enum: ['hosts', 'dns', 'vhosts', 'whois'] })
  @IsIn(['hosts', 'dns', 'vhosts', 'whois'])
  dataset!: string;

  @ApiProperty()
  @IsString()
  @Length(1, 512)
  id!: string;
}

export class SaveEvidenceBody {
  @ApiProperty()
  @IsUUID()
  search_id!: string;

  @ApiProperty({ type: [RecordRefBody], maxItems: 20 })
  @IsArray()
  @ArrayMaxSize(20, { message: 'select at most 20 records of a completed search' })
  @ValidateNested({ each: true })
  @Type(() => RecordRefBody)
  records!: RecordRefBody[];

  @ApiProperty({ ...NOT_BLANK, maxLength: 4000 })
  @IsString()
  @Length(1, 4000)
  note!: string;

  @ApiPropertyOptional({ enum: ['internal', 'client'] })
  @Omittable()
  @IsIn(['internal', 'client'])
  visibility?: 'internal' | 'client';
}

export class AddReviewItemBody {
  @ApiProperty()
  @IsUUID()
  search_id!: string;

  @ApiProperty({ type: RecordRefBody })
  @ValidateNested()
  @Type(() => RecordRefBody)
  record!: RecordRefBody;
}

export class ReviewSourceBody {
  @ApiProperty()
  @IsUUID()
  case_id!: string;

  @ApiProperty()
  @IsUUID()
  evidence_id!: string;
}

export class UpdateReviewItemBody {
  @ApiPropertyOptional({ type: 'string', format: 'uuid', nullable: true })
  @IsOptional()
  @IsUUID()
  assignee?: string | null;

  @ApiPropertyOptional({ type: 'string', format: 'date', nullable: true, example: '2026-02-01' })
  @IsOptional()
  @IsString()
  due_date?: string | null;

  @ApiPropertyOptional({ type: ReviewSourceBody, nullable: true })
  @IsOptional()
  @ValidateNested()
  @Type(() => ReviewSourceBody)
  source?: ReviewSourceBody | null;
}

export class PrepareComparisonBody {
  @ApiProperty()
  @IsUUID()
  space_id!: string;

  @ApiProperty({ ...NOT_BLANK, maxLength: 200 })
  @IsString()
  @Length(1, 200)
  title!: string;

  @ApiProperty({ type: [String], maxItems: 20 })
  @IsArray()
  @ArrayMaxSize(20)
  @IsUUID('all', { each: true })
  evidence_ids!: string[];
}
