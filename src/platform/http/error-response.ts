import { HttpException } from '@nestjs/common';
import { truncate } from '../errors/describe-thrown.js';
import { ERROR_STATUS, isErrorCode, type ErrorCode } from '../errors/error-codes.js';
import { ServiceError } from '../errors/service-error.js';
import {
  AppendConditionFailed,
  StreamDeleted,
  WrongExpectedVersion,
} from '../event-store/event-store.port.js';
import { isStorageUnavailable } from '../storage/storage-unavailable.js';
import { MAX_PATH_PARAMETER_LENGTH } from './request-limits.js';

/** Longest message text taken from a framework error (which may quote the URL or a header). */
const MAX_MESSAGE_LENGTH = 200;

/** Seconds a caller waits before retrying when storage did not answer. */
export const STORAGE_RETRY_AFTER_SECONDS = 5;

/** The one error body of the API: a stable code, a readable message, optional details. */
export interface ErrorBody {
  readonly code: ErrorCode;
  readonly message: string;
  readonly details?: Readonly<Record<string, unknown>>;
  readonly request_id?: string;
}

export interface ErrorResponse {
  readonly status: number;
  readonly body: ErrorBody;
  readonly headers: Readonly<Record<string, string>>;
  /** True for failures the service did not expect (logged with their stack). */
  readonly unexpected: boolean;
}

/** Fastify's own errors (raised before a route handler runs) that have a meaning for clients. */
const FASTIFY_ERRORS: Readonly<Record<string, { code: ErrorCode; message: string }>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: {
    code: 'payload_too_large',
    message: 'the request body is larger than this route accepts',
  },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    code: 'unsupported_media_type',
    message: 'send the body as application/json',
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'invalid_input', message: 'the JSON body is empty' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    code: 'invalid_input',
    message: 'the Content-Length does not match the body',
  },
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'invalid_input', message: 'the body is not valid JSON' },
  FST_ERR_BAD_URL: {
    code: 'malformed_request',
    message: 'the URL is not valid: a percent-encoded sequence does not decode to UTF-8',
  },
  FST_ERR_MAX_PARAM_LENGTH: {
    code: 'uri_too_long',
    message: `a path parameter is longer than ${MAX_PATH_PARAMETER_LENGTH} characters`,
  },
};

/** What Node's HTTP parser refuses before a request exists (answered by the server's clientError handler). */
const HTTP_PARSER_ERRORS: Readonly<Record<string, { code: ErrorCode; message: string }>> = {
  ERR_HTTP_REQUEST_TIMEOUT: {
    code: 'request_timeout',
    message: 'the request did not arrive in time',
  },
  HPE_HEADER_OVERFLOW: {
    code: 'headers_too_large',
    message: 'the request line and headers are larger than the service accepts',
  },
};

function frameworkError(code: string): { code: ErrorCode; message: string } | undefined {
  if (Object.hasOwn(FASTIFY_ERRORS, code)) return FASTIFY_ERRORS[code];
  if (Object.hasOwn(HTTP_PARSER_ERRORS, code)) return HTTP_PARSER_ERRORS[code];
  // Any other HTTP parser error: a request line or header that is not HTTP (e.g. a NUL in a header).
  if (code.startsWith('HPE_'))
    return { code: 'malformed_request', message: 'the request is not well-formed HTTP' };
  return undefined;
}

/** Maps any thrown value to the API's error answer. The only place statuses are chosen for errors. */
export function toErrorResponse(error: unknown, requestId?: string): ErrorResponse {
  const withRequest = (body: Omit<ErrorBody, 'request_id'>): ErrorBody =>
    requestId ? { ...body, request_id: requestId } : body;
  // Nest wraps fastify's own errors (body parsing, limits) in an HttpException: answer for the original.
  const cause = error instanceof HttpException ? error.cause : undefined;
  if (typeof cause === 'object' && cause !== null) {
    const causeCode = (cause as { code?: unknown }).code;
    if (typeof causeCode === 'string' && frameworkError(causeCode)) return toErrorResponse(cause, requestId);
  }

  if (error instanceof ServiceError) {
    const headers: Record<string, string> = {};
    if (error.retryAfterSeconds !== undefined) {
      headers['retry-after'] = String(Math.max(1, Math.ceil(error.retryAfterSeconds)));
    }
    return {
      status: ERROR_STATUS[error.code],
      body: withRequest({
        code: error.code,
        message: error.message,
        ...(error.details ? { details: error.details } : {}),
      }),
      headers,
      unexpected: false,
    };
  }
  if (error instanceof WrongExpectedVersion) {
    return {
      status: ERROR_STATUS.version_conflict,
      body: withRequest({
        code: 'version_conflict',
        message: 'the resource changed since you read it; fetch it again and reconcile',
        details: { current_version: error.actual },
      }),
      headers: {},
      unexpected: false,
    };
  }
  if (error instanceof AppendConditionFailed) {
    // Another write kept moving what this one decided with, past its retries: a conflict, never a 500.
    return {
      status: ERROR_STATUS.version_conflict,
      body: withRequest({
        code: 'version_conflict',
        message: 'what this request depended on kept changing; try again',
      }),
      headers: {},
      unexpected: false,
    };
  }
  if (error instanceof StreamDeleted) {
    return {
      status: ERROR_STATUS.not_found,
      body: withRequest({ code: 'not_found', message: 'the resource no longer exists' }),
      headers: {},
      unexpected: false,
    };
  }
  const errorCode =
    typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  const framework = typeof errorCode === 'string' ? frameworkError(errorCode) : undefined;
  if (framework) {
    return {
      status: ERROR_STATUS[framework.code],
      body: withRequest({ code: framework.code, message: framework.message }),
      headers: {},
      unexpected: false,
    };
  }
  if (error instanceof SyntaxError && (error as { statusCode?: number }).statusCode === 400) {
    return {
      status: ERROR_STATUS.invalid_input,
      body: withRequest({ code: 'invalid_input', message: 'the body is not valid JSON' }),
      headers: {},
      unexpected: false,
    };
  }
  if (error instanceof HttpException) {
    const status = error.getStatus();
    const code = codeForStatus(status);
    const response = error.getResponse();
    const message =
      typeof response === 'object' && response !== null && 'message' in response
        ? String((response as { message: unknown }).message)
        : error.message;
    return {
      status: ERROR_STATUS[code],
      // Nest's 404 quotes the URL: never echo an over-long one back.
      body: withRequest({ code, message: truncate(message, MAX_MESSAGE_LENGTH) }),
      headers: {},
      unexpected: false,
    };
  }
  const statusCode =
    typeof error === 'object' && error !== null ? (error as { statusCode?: unknown }).statusCode : undefined;
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    const code = codeForStatus(statusCode);
    return {
      status: ERROR_STATUS[code],
      body: withRequest({
        code,
        message:
          error instanceof Error ? truncate(error.message, MAX_MESSAGE_LENGTH) : 'the request was refused',
      }),
      headers: {},
      unexpected: false,
    };
  }
  if (isStorageUnavailable(error)) {
    return {
      status: ERROR_STATUS.not_ready,
      body: withRequest({
        code: 'not_ready',
        message: 'storage did not answer; try again shortly',
      }),
      headers: { 'retry-after': String(STORAGE_RETRY_AFTER_SECONDS) },
      unexpected: true,
    };
  }
  if (errorCode === UNTRANSLATABLE_CHARACTER || errorCode === CHARACTER_NOT_IN_REPERTOIRE) {
    // A text PostgreSQL cannot store reached a statement: the input check (storable-text.ts) should have refused
    // it; still the caller's input, so 422, logged as unexpected to find the path that bypassed the check.
    return {
      status: ERROR_STATUS.invalid_input,
      body: withRequest({
        code: 'invalid_input',
        message: 'a text value contains a NUL character or invalid Unicode and cannot be stored',
      }),
      headers: {},
      unexpected: true,
    };
  }
  return {
    status: 500,
    body: withRequest({
      code: 'internal_error',
      message: 'the service failed to answer; the failure was logged',
    }),
    headers: {},
    unexpected: true,
  };
}

/** SQLSTATE 22P05 and 22021: PostgreSQL cannot store a NUL or the text's encoding. */
const UNTRANSLATABLE_CHARACTER = '22P05';
const CHARACTER_NOT_IN_REPERTOIRE = '22021';

function codeForStatus(status: number): ErrorCode {
  const byStatus: Record<number, ErrorCode> = {
    400: 'invalid_input',
    401: 'unauthenticated',
    402: 'entitlement_required',
    403: 'forbidden',
    404: 'not_found',
    405: 'method_not_allowed',
    408: 'request_timeout',
    409: 'version_conflict',
    413: 'payload_too_large',
    414: 'uri_too_long',
    415: 'unsupported_media_type',
    422: 'invalid_input',
    428: 'precondition_required',
    429: 'rate_limited',
    431: 'headers_too_large',
    503: 'not_ready',
  };
  const code = byStatus[status];
  if (code && isErrorCode(code)) return code;
  // Any other refusal of the request is still the caller's, never a 500.
  return status >= 400 && status < 500 ? 'invalid_input' : 'internal_error';
}
