import { errorFrom, withCsrf } from '../../api/client';
import type { components } from '../../api/schema';
import type { SearchChunk } from './search-state';

export type TimeFrame = NonNullable<components['schemas']['SearchBody']['time_frame']>;

export interface SearchRequestBody {
  raw_query: string;
  time_frame: TimeFrame;
  per_type_limit: number;
  broad: boolean;
}

/**
 * POST /api/v2/data/search as Server-Sent Events, read with fetch and a ReadableStream (EventSource cannot POST
 * or send the CSRF header). A refusal before the stream opens (invalid query, credits) is thrown as an ApiError;
 * each chunk is handed over as it arrives. Resolves when the connection ends, however it ends.
 */
export async function streamSearch(
  body: SearchRequestBody,
  onChunk: (chunk: SearchChunk) => void,
  signal: AbortSignal,
): Promise<void> {
  const headers = withCsrf(
    'POST',
    new Headers({ 'content-type': 'application/json', accept: 'text/event-stream' }),
  );
  const response = await fetch('/api/v2/data/search', {
    method: 'POST',
    headers,
    credentials: 'same-origin',
    body: JSON.stringify({ ...body, stream: true }),
    signal,
  });
  if (!response.ok) throw await errorFrom(response);
  if (!response.body) return;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let boundary: number;
      while ((boundary = buffer.indexOf('\n\n')) !== -1) {
        const frame = buffer.slice(0, boundary);
        buffer = buffer.slice(boundary + 2);
        const data = frame
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).trimStart())
          .join('\n');
        if (data) onChunk(JSON.parse(data) as SearchChunk);
      }
    }
  } catch (error) {
    // Stopped by the person, or the connection broke: the caller shows the answer as incomplete.
    if (!(error instanceof DOMException && error.name === 'AbortError') && !(error instanceof TypeError))
      throw error;
  }
}
