import { readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { parseOperatorCredential } from '../auth/operator-credentials.js';
import { DEFAULT_PASSWORD_COST } from '../auth/passwords.js';
import { parseSigningKey } from '../event-store/checkpoint-signer.js';
import { parseTrustedKeys } from '../event-store/signing-key-ring.js';

/** Where the first start writes the first operator's credential, in DATA_DIR (mode 0600). */
export const OPERATOR_CREDENTIAL_FILE = 'operator-credential';

/** 2^14 keeps test suites fast; 2^20 is 1 GiB per hash, past which a sign-in could exhaust memory. */
const MIN_PASSWORD_COST = 2 ** 14;
const MAX_PASSWORD_COST = 2 ** 20;

/**
 * Configuration, parsed once from the environment at start-up. A bad value stops the process with a message
 * naming the variable, what was given and what is expected.
 */
export interface AppConfig {
  /** HTTP port (PORT, default 3000). */
  readonly port: number;
  /** Listen address (HOST, default 127.0.0.1; 0.0.0.0 in containers). */
  readonly host: string;
  /**
   * The origin clients reach the service at (PUBLIC_URL, e.g. https://exposure.example; an origin, no path). It
   * names the OAuth issuer and the MCP resource. Unset, it is the address the request arrived on (publicOrigin).
   */
  readonly publicUrl: string | undefined;
  /** Embedded database, export files and signing keys live here (DATA_DIR, default ./data). */
  readonly dataDir: string;
  /** The built web console (CONSOLE_DIR; unset, dist/console of this package): served at `/`. */
  readonly consoleDir: string | undefined;
  /** PostgreSQL server for the event store and read models instead of the embedded database. */
  readonly databaseUrl: string | undefined;
  /**
   * LISTEN for the other instances' appends and generation switches on the PostgreSQL server (DATABASE_LISTEN,
   * default true). False behind a pooler in transaction mode: the service then polls for them (ADR 88).
   */
  readonly databaseListen: boolean;
  /**
   * Without a DATABASE_URL (EMBEDDED_ENGINE): `postgres`, a PostgreSQL 18 server the service starts in
   * DATA_DIR/postgres; `pglite`, PGlite in DATA_DIR/pglite; `auto` (default), the server unless DATA_DIR holds a
   * PGlite database of an earlier version (ADR 94).
   */
  readonly embeddedEngine: 'postgres' | 'pglite' | 'auto';
  /** EventStoreDB/KurrentDB connection string; when set, events are stored there. */
  readonly eventStoreUrl: string | undefined;
  /** MongoDB connection string; when set, read models are stored there. */
  readonly mongodbUrl: string | undefined;
  /** pino level (LOG_LEVEL, default info). */
  readonly logLevel: LogLevel;
  /** How long a command waits for its projections before answering anyway (PROJECTION_WAIT_MS, default 5000). */
  readonly projectionWaitMs: number;
  /**
   * How long a rebuild keeps the previous generation after switching, so reads already on it finish before its
   * tables are dropped (PROJECTION_DROP_GRACE_MS, default 2000).
   */
  readonly projectionDropGraceMs: number;
  /** Seed the demo account and data on an empty store (SEED_DEMO, default true). */
  readonly seedDemo: boolean;
  /** Generated records per dataset in the demo corpus (DEMO_CORPUS_RECORDS, default 10,000). */
  readonly demoCorpusRecords: number;
  /** Each search dataset's own deadline (SEARCH_DEADLINE_MS, default 8000). */
  readonly searchDeadlineMs: number;
  /**
   * scrypt cost N of new password hashes (PASSWORD_HASH_COST, default OWASP's 2^17). A lower power of two is for
   * test suites that create many accounts; hashes below the configured cost are replaced at the next sign-in.
   */
  readonly passwordHashCost: number;
  /** Queries one search dataset runs at once in this process; past it the dataset is busy (SEARCH_DATASET_CONCURRENCY, default 32). */
  readonly searchDatasetConcurrency: number;
  /**
   * Catalogue evaluations one exposure refresh performs at most (EXPOSURE_REFRESH_EVALUATION_LIMIT, default
   * 100,000); services past it are recorded `not_evaluated` and the refresh is partial.
   */
  readonly refreshEvaluationLimit: number;
  /** Export jobs run at once in this process (EXPORT_WORKERS, default 2; 0 runs none). */
  readonly exportWorkers: number;
  /** A running export renews its lease this long; a job whose lease ran out is taken over (EXPORT_LEASE_MS). */
  readonly exportLeaseMs: number;
  /** How long a completed export's file stays downloadable (EXPORT_RETENTION_HOURS, default 72). */
  readonly exportRetentionHours: number;
  /** Records an export reads from the index per batch (EXPORT_BATCH_SIZE, default 1000: ADR 93). */
  readonly exportBatchSize: number;
  /**
   * DNS servers for domain verification (DNS_SERVERS, comma-separated `address` or `address:port`, IPv6 as
   * `[address]:port`); unset uses the system's resolvers.
   */
  readonly dnsServers: readonly string[] | undefined;
  /** Per-query DNS timeout (DNS_TIMEOUT_MS, default 3000). */
  readonly dnsTimeoutMs: number;
  /**
   * Outgoing mail for scope email notifications: SMTP_HOST, SMTP_PORT (default 587), SMTP_FROM; credentials, when
   * the relay needs them, only from SMTP_USER / SMTP_PASSWORD in the environment. Unset host: nothing is sent
   * and queued notifications wait.
   */
  readonly smtp: SmtpConfig | undefined;
  /**
   * The CLI's operator credential (ADR 68): OPERATOR_CREDENTIAL when set (checked here, never printed), else read
   * from `operatorCredentialFile` (OPERATOR_CREDENTIAL_FILE or `--operator-credential-file`, default
   * `${dataDir}/operator-credential`, where the first start writes the first operator's).
   */
  readonly operatorCredential: string | undefined;
  readonly operatorCredentialFile: string;
  /**
   * The Ed25519 key that signs event-log checkpoints: KEY_FILE (a PKCS#8 PEM file) or EVENT_LOG_SIGNING_KEY (the
   * PEM itself); both unset, one is generated at first start in DATA_DIR (mode 0600). Checked at start-up.
   * `trustedKeysFile` (EVENT_LOG_TRUSTED_KEYS_FILE): public keys trusted beside the active one (ADR 0076), read
   * at every verification: retired keys (the entries `events rotate-key` prints) and a successor announced ahead
   * of a rotation; DATA_DIR/event-log-keys/ holds the retired keys of rotations run on this DATA_DIR.
   */
  readonly eventLogSigningKey: {
    readonly file: string | undefined;
    readonly pem: string | undefined;
    readonly trustedKeysFile: string | undefined;
  };
  /** How often the service signs a checkpoint when the log moved (CHECKPOINT_INTERVAL_MS, default 5 min; 0: never). */
  readonly checkpointIntervalMs: number;
}

export interface SmtpConfig {
  readonly host: string;
  readonly port: number;
  readonly from: string;
  readonly user: string | undefined;
  readonly password: string | undefined;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

type Env = Readonly<Record<string, string | undefined>>;

export function loadConfig(env: Env = process.env, cwd: string = process.cwd()): AppConfig {
  const problems: string[] = [];
  const text = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };

  const port = parseInteger('PORT', text('PORT'), 3000, 0, 65535, problems);
  const host = text('HOST') ?? '127.0.0.1';
  const publicUrl = parsePublicUrl(text('PUBLIC_URL'), problems);
  const dataDirRaw = text('DATA_DIR') ?? './data';
  const dataDir = isAbsolute(dataDirRaw) ? dataDirRaw : resolve(cwd, dataDirRaw);
  const consoleDirRaw = text('CONSOLE_DIR');
  const consoleDir = consoleDirRaw === undefined ? undefined : resolve(cwd, consoleDirRaw);

  const databaseUrl = parseUrl('DATABASE_URL', text('DATABASE_URL'), ['postgres:', 'postgresql:'], problems);
  const eventStoreUrl = parseUrl(
    'EVENTSTORE_URL',
    text('EVENTSTORE_URL'),
    ['esdb:', 'esdb+discover:', 'kurrentdb:', 'kdb:', 'kurrentdb+discover:'],
    problems,
  );
  const mongodbUrl = parseUrl('MONGODB_URL', text('MONGODB_URL'), ['mongodb:', 'mongodb+srv:'], problems);
  const embeddedEngine = (text('EMBEDDED_ENGINE') ?? 'auto').toLowerCase();
  if (embeddedEngine !== 'postgres' && embeddedEngine !== 'pglite' && embeddedEngine !== 'auto') {
    problems.push(`EMBEDDED_ENGINE must be postgres, pglite or auto; got "${embeddedEngine}"`);
  }

  const logLevelRaw = (text('LOG_LEVEL') ?? 'info').toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(logLevelRaw)) {
    problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}; got "${logLevelRaw}"`);
  }
  const projectionWaitMs = parseInteger(
    'PROJECTION_WAIT_MS',
    text('PROJECTION_WAIT_MS'),
    5000,
    0,
    60_000,
    problems,
  );
  const projectionDropGraceMs = parseInteger(
    'PROJECTION_DROP_GRACE_MS',
    text('PROJECTION_DROP_GRACE_MS'),
    2000,
    0,
    60_000,
    problems,
  );
  const seedDemo = parseBoolean('SEED_DEMO', text('SEED_DEMO'), true, problems);
  const databaseListen = parseBoolean('DATABASE_LISTEN', text('DATABASE_LISTEN'), true, problems);
  const demoCorpusRecords = parseInteger(
    'DEMO_CORPUS_RECORDS',
    text('DEMO_CORPUS_RECORDS'),
    10_000,
    1,
    1_000_000,
    problems,
  );
  const refreshEvaluationLimit = parseInteger(
    'EXPOSURE_REFRESH_EVALUATION_LIMIT',
    text('EXPOSURE_REFRESH_EVALUATION_LIMIT'),
    100_000,
    0,
    10_000_000,
    problems,
  );
  const searchDeadlineMs = parseInteger(
    'SEARCH_DEADLINE_MS',
    text('SEARCH_DEADLINE_MS'),
    8000,
    1,
    120_000,
    problems,
  );
  const passwordHashCost = parseInteger(
    'PASSWORD_HASH_COST',
    text('PASSWORD_HASH_COST'),
    DEFAULT_PASSWORD_COST,
    MIN_PASSWORD_COST,
    MAX_PASSWORD_COST,
    problems,
  );
  if ((passwordHashCost & (passwordHashCost - 1)) !== 0) {
    problems.push(`PASSWORD_HASH_COST must be a power of two; got "${text('PASSWORD_HASH_COST')}"`);
  }
  const searchDatasetConcurrency = parseInteger(
    'SEARCH_DATASET_CONCURRENCY',
    text('SEARCH_DATASET_CONCURRENCY'),
    32,
    1,
    1000,
    problems,
  );

  const exportWorkers = parseInteger('EXPORT_WORKERS', text('EXPORT_WORKERS'), 2, 0, 16, problems);
  const exportLeaseMs = parseInteger(
    'EXPORT_LEASE_MS',
    text('EXPORT_LEASE_MS'),
    30_000,
    500,
    3_600_000,
    problems,
  );
  const exportBatchSize = parseInteger(
    'EXPORT_BATCH_SIZE',
    text('EXPORT_BATCH_SIZE'),
    1000, // the pool's EXPORT_BATCH_SIZE (the platform imports no bounded context)
    1,
    100_000,
    problems,
  );
  const exportRetentionHours = parseInteger(
    'EXPORT_RETENTION_HOURS',
    text('EXPORT_RETENTION_HOURS'),
    72,
    1,
    24 * 90,
    problems,
  );

  const dnsServers = parseDnsServers(text('DNS_SERVERS'), problems);
  const dnsTimeoutMs = parseInteger('DNS_TIMEOUT_MS', text('DNS_TIMEOUT_MS'), 3000, 100, 60_000, problems);

  const smtpHost = text('SMTP_HOST');
  const smtpPort = parseInteger('SMTP_PORT', text('SMTP_PORT'), 587, 1, 65535, problems);
  const smtpFrom = text('SMTP_FROM') ?? 'Exposure notifications <notifications@localhost>';
  if (smtpHost && !/@/.test(smtpFrom))
    problems.push(`SMTP_FROM must hold an email address; got "${smtpFrom}"`);
  const smtp: SmtpConfig | undefined = smtpHost
    ? {
        host: smtpHost,
        port: smtpPort,
        from: smtpFrom,
        user: text('SMTP_USER'),
        password: text('SMTP_PASSWORD'),
      }
    : undefined;

  const operatorCredential = text('OPERATOR_CREDENTIAL');
  if (operatorCredential !== undefined && !parseOperatorCredential(operatorCredential)) {
    problems.push(
      'OPERATOR_CREDENTIAL must be an operator credential (opc_<id>_<secret>, as `operators add` printed it)',
    );
  }
  const operatorCredentialFileRaw = text('OPERATOR_CREDENTIAL_FILE');
  const operatorCredentialFile = operatorCredentialFileRaw
    ? resolve(cwd, operatorCredentialFileRaw)
    : join(dataDir, OPERATOR_CREDENTIAL_FILE);
  const keyFileRaw = text('KEY_FILE');
  const keyFile = keyFileRaw && !isAbsolute(keyFileRaw) ? resolve(cwd, keyFileRaw) : keyFileRaw;
  const keyPem = text('EVENT_LOG_SIGNING_KEY');
  if (keyFile && keyPem) problems.push('KEY_FILE and EVENT_LOG_SIGNING_KEY are both set; give one');
  try {
    if (keyPem) parseSigningKey(keyPem);
    else if (keyFile) parseSigningKey(readFileSync(keyFile, 'utf8'));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    problems.push(
      `${keyPem ? 'EVENT_LOG_SIGNING_KEY' : `KEY_FILE (${keyFile})`} is not an Ed25519 private key in PEM: ${reason}`,
    );
  }
  const trustedKeysFileRaw = text('EVENT_LOG_TRUSTED_KEYS_FILE');
  const trustedKeysFile = trustedKeysFileRaw ? resolve(cwd, trustedKeysFileRaw) : undefined;
  if (trustedKeysFile) {
    try {
      parseTrustedKeys(readFileSync(trustedKeysFile, 'utf8'), trustedKeysFile, { allowEmpty: true });
    } catch (error) {
      problems.push(
        `EVENT_LOG_TRUSTED_KEYS_FILE (${trustedKeysFile}) is not a file of Ed25519 public keys in PEM: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  const checkpointIntervalMs = parseInteger(
    'CHECKPOINT_INTERVAL_MS',
    text('CHECKPOINT_INTERVAL_MS'),
    300_000,
    0,
    7 * 24 * 3_600_000,
    problems,
  );

  if (problems.length > 0) throw new ConfigError(problems);
  return {
    port,
    host,
    publicUrl,
    dataDir,
    consoleDir,
    databaseUrl,
    databaseListen,
    embeddedEngine: embeddedEngine as AppConfig['embeddedEngine'],
    eventStoreUrl,
    mongodbUrl,
    logLevel: logLevelRaw as LogLevel,
    projectionWaitMs,
    projectionDropGraceMs,
    seedDemo,
    demoCorpusRecords,
    searchDeadlineMs,
    passwordHashCost,
    searchDatasetConcurrency,
    refreshEvaluationLimit,
    exportWorkers,
    exportLeaseMs,
    exportRetentionHours,
    exportBatchSize,
    dnsServers,
    dnsTimeoutMs,
    smtp,
    operatorCredential,
    operatorCredentialFile,
    eventLogSigningKey: { file: keyFile, pem: keyPem, trustedKeysFile },
    checkpointIntervalMs,
  };
}

function parseDnsServers(raw: string | undefined, problems: string[]): readonly string[] | undefined {
  if (raw === undefined) return undefined;
  const servers = raw
    .split(',')
    .map((server) => server.trim())
    .filter(Boolean);
  const shape = /^(?:\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?|\[[0-9a-fA-F:]+\](?::\d{1,5})?|[0-9a-fA-F:]+)$/;
  const bad = servers.filter((server) => !shape.test(server));
  if (servers.length === 0 || bad.length > 0) {
    problems.push(`DNS_SERVERS must list IP addresses (optionally with :port); got "${raw}"`);
    return undefined;
  }
  return servers;
}

function parseInteger(
  name: string,
  raw: string | undefined,
  fallback: number,
  min: number,
  max: number,
  problems: string[],
): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    problems.push(`${name} must be an integer from ${min} to ${max}; got "${raw}"`);
    return fallback;
  }
  return Number(raw);
}

function parseBoolean(name: string, raw: string | undefined, fallback: boolean, problems: string[]): boolean {
  if (raw === undefined) return fallback;
  const value = raw.toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(value)) return true;
  if (['0', 'false', 'no', 'off'].includes(value)) return false;
  problems.push(`${name} must be true or false; got "${raw}"`);
  return fallback;
}

function parseUrl(
  name: string,
  raw: string | undefined,
  protocols: readonly string[],
  problems: string[],
): string | undefined {
  if (raw === undefined) return undefined;
  try {
    const url = new URL(raw);
    if (!protocols.includes(url.protocol)) {
      problems.push(
        `${name} must start with ${protocols.map((p) => `${p}//`).join(' or ')}; got "${url.protocol}//…"`,
      );
    }
  } catch {
    problems.push(`${name} is not a valid URL`);
  }
  return raw;
}

/** An http(s) origin without path, query or credentials, normalized to `scheme://host[:port]`. */
function parsePublicUrl(raw: string | undefined, problems: string[]): string | undefined {
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    problems.push(`PUBLIC_URL is not a valid URL; got "${raw}"`);
    return undefined;
  }
  const bare = url.pathname === '/' && url.search === '' && url.hash === '' && !url.username && !url.password;
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !bare) {
    problems.push(`PUBLIC_URL must be an http:// or https:// origin without path or query; got "${raw}"`);
    return undefined;
  }
  return url.origin;
}

/** Where each kind of data lives with this configuration, for logs and the start-up banner. */
export function describeStorage(
  config: AppConfig,
  engine: 'postgres' | 'pglite' = config.embeddedEngine === 'pglite' ? 'pglite' : 'postgres',
): { events: string; readModels: string } {
  const sql = config.databaseUrl
    ? 'PostgreSQL server (DATABASE_URL)'
    : engine === 'postgres'
      ? `embedded PostgreSQL 18 server in ${join(config.dataDir, 'postgres')} (its socket only, no TCP port)`
      : `embedded PGlite in ${config.dataDir}`;
  return {
    events: config.eventStoreUrl ? 'EventStoreDB (EVENTSTORE_URL)' : sql,
    readModels: config.mongodbUrl ? 'MongoDB (MONGODB_URL)' : sql,
  };
}

export const APP_CONFIG = Symbol('AppConfig');
