import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './schema';

/** The refusal body every route answers with (`{code, message, details?, request_id}`), as an Error. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> | undefined,
    readonly requestId: string | undefined,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const CSRF_COOKIE = '__Host-pc';
const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The CSRF token the service set at sign-in (readable by the page by design; the session cookie is not). */
export function csrfToken(): string | undefined {
  for (const part of document.cookie.split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === CSRF_COOKIE) return decodeURIComponent(value.join('='));
  }
  return undefined;
}

/** Unsafe session requests echo the CSRF cookie in X-CSRF-Token (contract, Authentication 1). */
export function withCsrf(method: string, headers: Headers): Headers {
  if (UNSAFE.has(method.toUpperCase())) {
    const token = csrfToken();
    if (token) headers.set('X-CSRF-Token', token);
  }
  return headers;
}

const csrf: Middleware = {
  onRequest({ request }) {
    withCsrf(request.method, request.headers);
    return request;
  },
};

/** Typed from the service's OpenAPI document (`npm run console:types`): the console cannot drift from the API. */
export const api = createClient<paths>({ baseUrl: '', credentials: 'same-origin' });
api.use(csrf);

/** Turns an error answer into an ApiError; a body that is not the service's shape still gets a code. */
export async function errorFrom(response: Response, body?: unknown): Promise<ApiError> {
  let parsed = body;
  if (parsed === undefined) {
    try {
      parsed = await response.clone().json();
    } catch {
      parsed = undefined;
    }
  }
  const shape = (parsed ?? {}) as Partial<{
    code: string;
    message: string;
    details: Record<string, unknown>;
    request_id: string;
  }>;
  return new ApiError(
    response.status,
    shape.code ?? `http_${response.status}`,
    shape.message ?? response.statusText ?? 'the service did not answer',
    shape.details,
    shape.request_id ?? response.headers.get('x-request-id') ?? undefined,
  );
}

/**
 * Unwraps an openapi-fetch answer: its data, or the service's refusal thrown as an ApiError (TanStack Query
 * shows it through the error state).
 */
export async function unwrap<T>(
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw await errorFrom(response, error);
  return data as T;
}
