import type { FastifyRequest } from 'fastify';
import type { AppConfig } from '../config/app-config.js';

/**
 * The origin this service is reached at, for URLs it hands out (OAuth issuer, MCP resource metadata, links).
 * PUBLIC_URL when configured; otherwise the local address the request arrived on, never its Host header, which a
 * caller chooses. Behind a proxy or when listening on every interface, set PUBLIC_URL.
 */
export function publicOrigin(
  config: Pick<AppConfig, 'publicUrl' | 'host' | 'port'>,
  request: Pick<FastifyRequest, 'raw'>,
): string {
  if (config.publicUrl) return config.publicUrl;
  const socket = request.raw.socket as { localAddress?: string; localPort?: number } | undefined;
  let address = socket?.localAddress || config.host;
  if (address.startsWith('::ffff:')) address = address.slice('::ffff:'.length);
  const host = address.includes(':') ? `[${address}]` : address;
  return `http://${host}:${socket?.localPort ?? config.port}`;
}
