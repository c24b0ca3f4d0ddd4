import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsEmail,
  IsIn,
  IsInt,
  IsString,
  Length,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { Omittable } from '../../platform/http/validation.js';

export class LoginBody {
  @ApiProperty({ example: 'demo@example.com' })
  @IsEmail({}, { message: 'email must be an email address' })
  @MaxLength(254)
  email!: string;

  @ApiProperty({ minLength: 1, maxLength: 1024 })
  @IsString()
  @Length(1, 1024)
  password!: string;
}

export class IssueApiKeyBody {
  @ApiPropertyOptional({ maxLength: 100, example: 'laptop scripts' })
  @Omittable()
  @IsString()
  @MaxLength(100)
  label?: string;
}

export const TOKEN_SCOPES = ['service.read'] as const;

export class CreateAccessTokenBody {
  @ApiPropertyOptional({ type: [String], enum: TOKEN_SCOPES, default: ['service.read'] })
  @Omittable()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(8)
  @IsIn(TOKEN_SCOPES, { each: true })
  scopes?: string[];

  @ApiPropertyOptional({
    enum: ['api', 'mcp'],
    default: 'api',
    description: 'mcp marks usage through an MCP client (counted in usage_mcp)',
  })
  @Omittable()
  @IsIn(['api', 'mcp'])
  client?: 'api' | 'mcp';

  @ApiPropertyOptional({ minimum: 60, maximum: 86400, default: 3600 })
  @Omittable()
  @IsInt()
  @Min(60)
  @Max(86400)
  expires_in?: number;
}
