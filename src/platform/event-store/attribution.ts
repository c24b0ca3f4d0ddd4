import type { EventMetadata, EventSurface } from './event-store.port.js';

const SURFACES: ReadonlySet<string> = new Set<EventSurface>(['api', 'session', 'mcp', 'cli', 'system']);

type Attribution = Pick<EventMetadata, 'credential' | 'surface' | 'clientId' | 'requestId' | 'reason'>;

/**
 * The optional attribution fields of stored metadata (ADR 68), each only when present and of its type: an
 * event written before they existed reads back without them, as it was.
 */
export function attributionOf(metadata: object): Attribution {
  const raw = metadata as Readonly<Record<string, unknown>>;
  return {
    ...(typeof raw.credential === 'string' || raw.credential === null ? { credential: raw.credential } : {}),
    ...(typeof raw.surface === 'string' && SURFACES.has(raw.surface)
      ? { surface: raw.surface as EventSurface }
      : {}),
    ...(typeof raw.clientId === 'string' ? { clientId: raw.clientId } : {}),
    ...(typeof raw.requestId === 'string' ? { requestId: raw.requestId } : {}),
    ...(typeof raw.reason === 'string' ? { reason: raw.reason } : {}),
  };
}
