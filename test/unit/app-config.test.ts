import { describe, expect, it } from '@jest/globals';
import { ConfigError, describeStorage, loadConfig } from '../../src/platform/config/app-config.js';
import { publicOrigin } from '../../src/platform/http/public-origin.js';

describe('configuration', () => {
  it('defaults to the embedded database in ./data on 127.0.0.1:3000', () => {
    const config = loadConfig({}, '/srv/app');
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      dataDir: '/srv/app/data',
      logLevel: 'info',
      seedDemo: true,
      // OWASP's scrypt cost for new password hashes.
      passwordHashCost: 2 ** 17,
      projectionDropGraceMs: 2000,
      // The embedded PostgreSQL server, unless DATA_DIR holds a PGlite database (ADR 94).
      embeddedEngine: 'auto',
    });
    expect(config.databaseUrl).toBeUndefined();
    const server = 'embedded PostgreSQL 18 server in /srv/app/data/postgres (its socket only, no TCP port)';
    expect(describeStorage(config)).toEqual({ events: server, readModels: server });
    expect(describeStorage(config, 'pglite')).toEqual({
      events: 'embedded PGlite in /srv/app/data',
      readModels: 'embedded PGlite in /srv/app/data',
    });
    expect(describeStorage(loadConfig({ EMBEDDED_ENGINE: 'PGlite' }, '/srv/app'))).toEqual({
      events: 'embedded PGlite in /srv/app/data',
      readModels: 'embedded PGlite in /srv/app/data',
    });
  });

  it('reads every variable and the production shape', () => {
    const config = loadConfig(
      {
        PORT: '8080',
        HOST: '0.0.0.0',
        DATA_DIR: '/data',
        EVENTSTORE_URL: 'esdb://eventstore:2113?tls=false',
        MONGODB_URL: 'mongodb://mongodb:27017/exposure?replicaSet=rs0',
        LOG_LEVEL: 'WARN',
        SEED_DEMO: 'false',
      },
      '/ignored',
    );
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      dataDir: '/data',
      logLevel: 'warn',
      seedDemo: false,
    });
    expect(describeStorage(config)).toEqual({
      events: 'EventStoreDB (EVENTSTORE_URL)',
      readModels: 'MongoDB (MONGODB_URL)',
    });
  });

  it('reports every bad variable at once, by name', () => {
    let error: unknown;
    try {
      loadConfig({
        PORT: '70000',
        DATABASE_URL: 'mysql://x/y',
        MONGODB_URL: 'not a url',
        LOG_LEVEL: 'loud',
        SEED_DEMO: 'maybe',
        EMBEDDED_ENGINE: 'sqlite',
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    expect(problems).toContain('PORT must be an integer from 0 to 65535; got "70000"');
    expect(problems).toContain('DATABASE_URL must start with postgres:// or postgresql://');
    expect(problems).toContain('MONGODB_URL is not a valid URL');
    expect(problems).toContain('LOG_LEVEL must be one of');
    expect(problems).toContain('SEED_DEMO must be true or false');
    expect(problems).toContain('EMBEDDED_ENGINE must be postgres, pglite or auto; got "sqlite"');
  });

  it('takes a lower password cost only as a power of two from 2^14 to 2^20', () => {
    expect(loadConfig({ PASSWORD_HASH_COST: '16384' }).passwordHashCost).toBe(2 ** 14);
    for (const [raw, problem] of [
      ['8192', 'PASSWORD_HASH_COST must be an integer from 16384 to 1048576'],
      ['100000', 'PASSWORD_HASH_COST must be a power of two'],
      ['2097152', 'PASSWORD_HASH_COST must be an integer from 16384 to 1048576'],
    ]) {
      expect(() => loadConfig({ PASSWORD_HASH_COST: raw })).toThrow(problem);
    }
  });

  it('takes a rebuild drop grace from 0 to 60000 ms', () => {
    expect(loadConfig({ PROJECTION_DROP_GRACE_MS: '0' }).projectionDropGraceMs).toBe(0);
    for (const raw of ['-1', '60001', '1.5']) {
      expect(() => loadConfig({ PROJECTION_DROP_GRACE_MS: raw })).toThrow(
        'PROJECTION_DROP_GRACE_MS must be an integer from 0 to 60000',
      );
    }
  });

  it("takes PUBLIC_URL as an http(s) origin, and the request's local address without it", () => {
    expect(loadConfig({ PUBLIC_URL: 'https://Exposure.example/' }).publicUrl).toBe(
      'https://exposure.example',
    );
    expect(loadConfig({}).publicUrl).toBeUndefined();
    for (const raw of [
      'ftp://x.example',
      'https://x.example/api',
      'https://x.example/?a=1',
      'https://u:p@x.example',
    ]) {
      expect(() => loadConfig({ PUBLIC_URL: raw })).toThrow(
        'PUBLIC_URL must be an http:// or https:// origin',
      );
    }
    expect(() => loadConfig({ PUBLIC_URL: 'not a url' })).toThrow('PUBLIC_URL is not a valid URL');

    const config = loadConfig({ PORT: '3000' });
    const arriving = (localAddress: string | undefined, localPort?: number) => ({
      raw: { socket: { localAddress, localPort } },
    });
    expect(publicOrigin(config, arriving('127.0.0.1', 41234) as never)).toBe('http://127.0.0.1:41234');
    expect(publicOrigin(config, arriving('::ffff:10.0.0.5', 8080) as never)).toBe('http://10.0.0.5:8080');
    expect(publicOrigin(config, arriving('::1', 8080) as never)).toBe('http://[::1]:8080');
    expect(publicOrigin(config, arriving(undefined) as never)).toBe('http://127.0.0.1:3000');
    const configured = loadConfig({ PUBLIC_URL: 'https://exposure.example' });
    expect(publicOrigin(configured, arriving('127.0.0.1', 1) as never)).toBe('https://exposure.example');
  });
});
