import { ValidationPipe, type ValidationError } from '@nestjs/common';
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
