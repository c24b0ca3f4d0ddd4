import { HttpException } from '@nestjs/common';
import { ERROR_STATUS, isErrorCode, type ErrorCode } from '../errors/error-codes.js';
import { ServiceError } from '../errors/service-error.js';
import { StreamDeleted, WrongExpectedVersion } from '../event-store/event-store.port.js';

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
};

/** Maps any thrown value to the API's error answer. The only place statuses are chosen for errors. */
export function toErrorResponse(error: unknown, requestId?: string): ErrorResponse {
  const withRequest = (body: Omit<ErrorBody, 'request_id'>): ErrorBody =>
    requestId ? { ...body, request_id: requestId } : body;

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
  if (error instanceof StreamDeleted) {
    return {
      status: ERROR_STATUS.not_found,
      body: withRequest({ code: 'not_found', message: 'the resource no longer exists' }),
      headers: {},
      unexpected: false,
    };
  }
  const fastifyCode =
    typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  if (typeof fastifyCode === 'string' && FASTIFY_ERRORS[fastifyCode]) {
    const mapped = FASTIFY_ERRORS[fastifyCode];
    return {
      status: ERROR_STATUS[mapped.code],
      body: withRequest({ code: mapped.code, message: mapped.message }),
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
      body: withRequest({ code, message }),
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
        message: error instanceof Error ? error.message : 'the request was refused',
      }),
      headers: {},
      unexpected: false,
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

function codeForStatus(status: number): ErrorCode {
  const byStatus: Record<number, ErrorCode> = {
    400: 'invalid_input',
    401: 'unauthenticated',
    402: 'entitlement_required',
    403: 'forbidden',
    404: 'not_found',
    405: 'method_not_allowed',
    409: 'version_conflict',
    413: 'payload_too_large',
    415: 'unsupported_media_type',
    422: 'invalid_input',
    428: 'precondition_required',
    429: 'rate_limited',
    503: 'not_ready',
  };
  const code = byStatus[status];
  return code && isErrorCode(code) ? code : 'internal_error';
}
