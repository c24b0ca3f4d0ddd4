import type { ErrorCode } from './error-codes.js';

/**
 * A refusal the caller can act on: a stable code from the registry, a readable message and optional
 * details. Domain deciders and policies throw these; the HTTP layer maps them once (HttpErrorFilter).
 */
export class ServiceError extends Error {
  override readonly name = 'ServiceError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Readonly<Record<string, unknown>>,
    /** Seconds, for 429 answers. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

export function isServiceError(error: unknown): error is ServiceError {
  return error instanceof ServiceError;
}
