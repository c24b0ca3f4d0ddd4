import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import { PROJECT_ROOT } from '../support/processes.js';

interface ComposeService {
  readonly environment?: Record<string, unknown> | readonly string[];
  readonly ports?: ReadonlyArray<string | number | Record<string, unknown>>;
}

interface ComposeFile {
  readonly services: Record<string, ComposeService>;
}

const compose = parse(readFileSync(resolve(PROJECT_ROOT, 'docker-compose.yml'), 'utf8')) as ComposeFile;
const readme = readFileSync(resolve(PROJECT_ROOT, 'README.md'), 'utf8');

function environment(service: ComposeService): Record<string, string> {
  const env = service.environment ?? {};
  if (Array.isArray(env)) {
    return Object.fromEntries(
      env.map((entry: string) => {
        const at = entry.indexOf('=');
        return at < 0 ? [entry, ''] : [entry.slice(0, at), entry.slice(at + 1)];
      }),
    );
  }
  return Object.fromEntries(Object.entries(env).map(([key, value]) => [key, String(value)]));
}

/** The host address a published port binds to; `undefined` means every interface of the host. */
function hostAddresses(service: ComposeService): Array<string | undefined> {
  return (service.ports ?? []).map((port) => {
    if (typeof port === 'object') {
      const hostIp = port.host_ip;
      return typeof hostIp === 'string' && hostIp !== '' ? hostIp : undefined;
    }
    // Short syntax: [HOST:]PUBLISHED:TARGET[/PROTOCOL], or TARGET alone (a random port on every interface).
    const text = String(port).replace(/\/(tcp|udp)$/, '');
    const bracketed = /^\[([^\]]+)\]:/.exec(text);
    if (bracketed) return bracketed[1];
    const parts = text.split(':');
    return parts.length === 3 ? parts[0] : undefined;
  });
}

describe('docker-compose.yml, the production shape', () => {
  it('parses and has the service, EventStoreDB and MongoDB', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['eventstore', 'mongodb', 'service']);
  });

  it('never seeds the demo account and corpus (SEED_DEMO=false)', () => {
    expect(environment(compose.services.service!).SEED_DEMO).toBe('false');
  });

  it.each(['eventstore', 'mongodb'])('publishes %s on the loopback interface only, if at all', (name) => {
    for (const address of hostAddresses(compose.services[name]!)) {
      expect(['127.0.0.1', '::1']).toContain(address);
    }
  });

  it('the README says how to give EventStoreDB and MongoDB credentials', () => {
    const start = readme.indexOf('### Credentials for EventStoreDB and MongoDB');
    expect(start).toBeGreaterThanOrEqual(0);
    const end = readme.indexOf('\n## ', start);
    const section = readme.slice(start, end < 0 ? undefined : end);
    // EventStoreDB: secure mode (TLS certificates) and a user in the connection string.
    expect(section).toMatch(/EVENTSTORE_INSECURE/);
    expect(section).toMatch(/esdb:\/\/[^\s`]*:[^\s`]*@eventstore:2113\?tls=true/);
    // MongoDB: authentication on, credentials in the connection string.
    expect(section).toMatch(/MONGO_INITDB_ROOT_USERNAME/);
    expect(section).toMatch(/mongodb:\/\/[^\s`]*:[^\s`]*@mongodb:27017\/exposure\?[^\s`]*authSource=admin/);
  });
});
