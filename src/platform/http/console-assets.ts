import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * The web console's built assets (dist/console, `npm run console:build`), served by the service itself at `/`
 * (issue 19, ADR 113). Everything is read into memory once at start, with a gzip copy: the console is a few
 * hundred kilobytes and never changes while the service runs. Paths of the API and of the mounted protocols
 * are never taken, nor any path a route answers; any other GET of a path without an extension is a console page
 * and gets index.html.
 */
const RESERVED = ['/api/', '/oauth/', '/.well-known/', '/health/', '/mcp'];

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/** The console's pages run only their own script, talk only to this origin and are never framed. */
const PAGE_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
};

interface Asset {
  readonly body: Buffer;
  readonly gzip: Buffer | null;
  readonly type: string;
  readonly immutable: boolean;
}

/** Where the build puts the console: dist/console under the package root (found from this module's place). */
export function defaultConsoleDirectory(): string {
  let folder = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(folder, 'package.json'))) {
    const parent = dirname(folder);
    if (parent === folder) break;
    folder = parent;
  }
  return join(folder, 'dist', 'console');
}

function loadAssets(directory: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  const walk = (folder: string): void => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) {
        walk(path);
        continue;
      }
      const url = `/${relative(directory, path).split(sep).join('/')}`;
      const body = readFileSync(path);
      const type = TYPES[extname(name)] ?? 'application/octet-stream';
      const compressible = /^(text\/|application\/json|image\/svg)/.test(type) && body.length > 512;
      assets.set(url, {
        body,
        gzip: compressible ? gzipSync(body, { level: 9 }) : null,
        type,
        // Vite names built files by their content hash: a name never changes meaning.
        immutable: url.startsWith('/assets/'),
      });
    }
  };
  walk(directory);
  return assets;
}

const NOT_BUILT = Buffer.from(
  '<!doctype html><html lang="en"><meta charset="utf-8"><title>Console not built</title>' +
    '<p>The web console is not built. Run <code>npm run console:build</code> (npm start does it) and restart.</p>',
);

/** Serves the console from `directory`; when it was not built, console pages say so (the API works as ever). */
export function serveConsole(fastify: FastifyInstance, directory: string): void {
  const assets = existsSync(join(directory, 'index.html')) ? loadAssets(directory) : new Map<string, Asset>();
  const index = assets.get('/index.html') ?? {
    body: NOT_BUILT,
    gzip: null,
    type: TYPES['.html']!,
    immutable: false,
  };
  fastify.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    // Only what no route answers: the router has matched by now.
    if ((request.method !== 'GET' && request.method !== 'HEAD') || !request.is404) return;
    const path = request.url.split('?', 1)[0] ?? '/';
    if (RESERVED.some((prefix) => path.startsWith(prefix) || `${path}/` === prefix)) return;
    const asset = assets.get(path) ?? (extname(path) === '' ? index : undefined);
    if (!asset) return;
    const gzip = asset.gzip && /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
    void reply
      .code(asset === index && index.body === NOT_BUILT ? 503 : 200)
      .header('content-type', asset.type)
      .header('cache-control', asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
      .header('vary', 'accept-encoding');
    if (asset.type.startsWith('text/html')) void reply.headers(PAGE_HEADERS);
    else void reply.header('x-content-type-options', 'nosniff');
    if (gzip) void reply.header('content-encoding', 'gzip');
    return reply.send(request.method === 'HEAD' ? '' : gzip ? asset.gzip : asset.body);
  });
}
