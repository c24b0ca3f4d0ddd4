import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsEmail, IsString, Length, MaxLength } from 'class-validator';
import { Omittable } from '../../../platform/http/validation.js';

export class ConfigureSsoBody {
  @ApiProperty({ example: 'https://login.example.com', description: 'The OpenID Connect issuer (https)' })
  @IsString()
  @Length(1, 512)
  issuer!: string;

  @ApiProperty({ example: 'exposure-research' })
  @IsString()
  @Length(1, 255)
  client_id!: string;

  @ApiPropertyOptional({
    description: 'Required the first time; omitted keeps the stored one. Stored sealed, never shown again.',
  })
  @Omittable()
  @IsString()
  @Length(1, 1024)
  client_secret?: string;
}

export class RecoveryCodeBody {
  @ApiProperty({ example: 'ABCDE-FGHJK-MNPQR-STVWX-YZ012' })
  @IsString()
  @Length(1, 100)
  recovery_code!: string;
}

export class EnforcementBody {
  @ApiProperty({
    description:
      'true enforces single sign-on for staff; refused before the recovery code was tested and saved',
  })
  @IsBoolean()
  enforced!: boolean;
}

export class RecoverySignInBody {
  @ApiProperty({ example: 'owner@example.com' })
  @IsEmail({}, { message: 'email must be an email address' })
  @MaxLength(254)
  email!: string;

  @ApiProperty({ minLength: 1, maxLength: 1024 })
  @IsString()
  @Length(1, 1024)
  password!: string;

  @ApiProperty({ example: 'ABCDE-FGHJK-MNPQR-STVWX-YZ012' })
  @IsString()
  @Length(1, 100)
  recovery_code!: string;
}
