import { EXPOSURE_RUNS, type ExposureRunDocument } from '../../../projections/exposure-scopes.projection.js';
import {
  EXPOSURE_SUBJECTS,
  subjectDocumentId,
  type ExposureSubjectDocument,
} from '../../../projections/exposure-inventory.projection.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import type { CommandEnvelope } from '../../platform/event-sourcing/command-metadata.js';
import { WrongExpectedVersion } from '../../platform/event-store/event-store.port.js';
import type { ProjectionRunner } from '../../platform/projections/projection-runner.js';
import type { RateLimitRule } from '../../platform/rate-limit/rate-limiter.port.js';

/** Projections an exposure answer is read from (read-your-writes). */
export const EXPOSURE_PROJECTIONS = [
  'organizations',
  'exposure-scopes',
  'exposure-inventory',
  'exposure-history',
];

/**
 * Refresh cadence and quota (contract: "cadence, billing and quotas apply"; numbers not shown): one manual
 * refresh per scope every 15 minutes, 48 per organization per day.
 */
export const REFRESH_CADENCE: RateLimitRule = {
  name: 'exposure-refresh-cadence',
  limit: 1,
  windowSeconds: 900,
};
export const REFRESH_QUOTA: RateLimitRule = {
  name: 'exposure-refresh-quota',
  limit: 48,
  windowSeconds: 86_400,
};
/** A queued refresh may wait for a worker: its credit hold must outlive the queue. */
export const REFRESH_RESERVATION_TTL_MS = 24 * 60 * 60 * 1000;

/** A scope's command: paid by its organization, recorded under the scope; `step` makes sub-commands distinct. */
export function withScope(
  envelope: CommandEnvelope,
  organizationId: string,
  scopeId: string,
  step?: string,
): CommandEnvelope {
  return {
    commandId: step ? `${envelope.commandId}:${step}` : envelope.commandId,
    metadata: { ...envelope.metadata, payer: `organization:${organizationId}`, scope: scopeId },
  };
}

/** A version sent in a body: an integer, or the quoted form the scope view shows. */
export function bodyVersion(raw: unknown): number {
  const value = typeof raw === 'string' ? /^"?(\d+)"?$/.exec(raw.trim())?.[1] : raw;
  const version = typeof value === 'string' ? Number(value) : value;
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 0) {
    throw new ServiceError('invalid_input', 'version is required: send the version you read', {
      fields: [{ field: 'version', problems: ['must be the current version (a non-negative integer)'] }],
    });
  }
  return version;
}

/**
 * Versioning 2: a body version counts the events of its stream (0 before the first), so a stale one answers
 * 409 with that count, the version the client must send next, never the store's zero-based stream version.
 */
export async function withBodyVersion<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!(error instanceof WrongExpectedVersion)) throw error;
    throw new ServiceError('version_conflict', 'the resource changed since you read it: refetch and retry', {
      current_version: error.actual === null ? 0 : error.actual + 1,
    });
  }
}

export function exposureRuns(projections: ProjectionRunner) {
  return projections.collection<ExposureRunDocument>('exposure-scopes', EXPOSURE_RUNS);
}

export function exposureSubjects(projections: ProjectionRunner) {
  return projections.collection<ExposureSubjectDocument>('exposure-inventory', EXPOSURE_SUBJECTS);
}

/** A subject of the scope as the inventory holds it; 404 for an unknown or malformed id. */
export async function scopeSubject(
  projections: ProjectionRunner,
  scopeId: string,
  subjectId: string,
): Promise<ExposureSubjectDocument> {
  const found =
    typeof subjectId === 'string' && /^[a-z]{3}-[0-9a-f]{24}$/.test(subjectId)
      ? await exposureSubjects(projections).get(subjectDocumentId(scopeId, subjectId))
      : null;
  if (!found) throw new ServiceError('not_found', 'no such subject in this scope');
  return found;
}
