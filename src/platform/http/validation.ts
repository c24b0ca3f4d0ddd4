import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { ValidateIf } from 'class-validator';
import { ServiceError } from '../errors/service-error.js';

/**
 * Request bodies are DTO classes checked by class-validator. Unknown fields are refused (not silently
 * dropped) and every problem is reported at once, with the field path, as 422 `invalid_input`.
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    transform: true,
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    stopAtFirstError: false,
    exceptionFactory: (errors: ValidationError[]) =>
      new ServiceError('invalid_input', 'the request is not valid', { fields: flatten(errors) }),
  });
}

function flatten(
  errors: readonly ValidationError[],
  parent = '',
): Array<{ field: string; problems: string[] }> {
  const result: Array<{ field: string; problems: string[] }> = [];
  for (const error of errors) {
    const field = parent ? `${parent}.${error.property}` : error.property;
    if (error.constraints) result.push({ field, problems: Object.values(error.constraints) });
    if (error.children?.length) result.push(...flatten(error.children, field));
  }
  return result;
}

/**
 * The field may be left out; when present it must pass its validators, `null` included. class-validator's
 * `IsOptional` also skips `null`, which then reaches code typed `string | undefined` (a `null` `include` was a
 * 500). Fields that accept `null` as a value (clear a limit, unassign) keep `IsOptional` and say `| null`.
 */
export function Omittable(): PropertyDecorator {
  return ValidateIf((_object: object, value: unknown) => value !== undefined);
}
