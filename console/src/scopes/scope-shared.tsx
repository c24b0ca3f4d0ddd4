import { useState } from 'react';
import { ApiError } from '../api/client';
import type { components } from '../api/schema';
import { ErrorView } from '../app/error-view';

export type Space = components['schemas']['Space'];
export type ExposureScope = components['schemas']['ExposureScope'];
export type Inventory = components['schemas']['Inventory'];
export type Subject = components['schemas']['Subject'];
export type HistoryPage = components['schemas']['History'];
export type ReportSummary = components['schemas']['ReportSummary'];
export type NotificationPreference = components['schemas']['NotificationPreference'];
export type RefreshRun = components['schemas']['RefreshRun'];
export type DeletedClient = components['schemas']['DeletedClientList']['clients'][number];

/** Query keys of the scopes area: one place, so a write invalidates exactly what it changed. */
export const keys = {
  spaces: (orgId: string) => ['organizations', orgId, 'spaces'] as const,
  deleted: (orgId: string) => ['organizations', orgId, 'clients', 'deleted'] as const,
  scope: (orgId: string, clientId: string) => ['organizations', orgId, 'clients', clientId] as const,
};

/** Statuses a refusal has when the service will not let this person (or this organization) do it. */
const NOT_ALLOWED = new Set([403]);

/** True when the refusal says the action is not this person's to take (role, product, organization state). */
export function isRoleRefusal(error: unknown): error is ApiError {
  return error instanceof ApiError && NOT_ALLOWED.has(error.status);
}

/**
 * The console computes no permission: an action is offered, and once the service refuses it for the role it is
 * shown as unavailable with the service's own reason (message and code) instead of being hidden.
 */
export function Unavailable({ what, error }: { what: string; error: ApiError }) {
  return (
    <p className="unavailable" data-code={error.code}>
      {what} is unavailable: {error.message} <code className="error-code">{error.code}</code>
    </p>
  );
}

/** The fields a refusal names (`details.fields`), e.g. "according_to: is required when the conclusion is closed". */
export function FieldProblems({ error }: { error: unknown }) {
  if (!(error instanceof ApiError)) return null;
  const fields = (error.details?.fields ?? []) as { field: string; problems: string[] }[];
  if (!Array.isArray(fields) || fields.length === 0) return null;
  return (
    <ul className="field-problems">
      {fields.map((entry) => (
        <li key={entry.field}>
          <code>{entry.field}</code>: {entry.problems.join('; ')}
        </li>
      ))}
    </ul>
  );
}

/** A refusal: unavailable for the role (403), or an error with its code and the fields it names. */
export function Refusal({ what, error }: { what: string; error: unknown }) {
  if (!error) return null;
  if (isRoleRefusal(error)) return <Unavailable what={what} error={error} />;
  return (
    <>
      <ErrorView error={error} />
      <FieldProblems error={error} />
    </>
  );
}

/**
 * A button for an action the service may refuse for the role: after a 403 it stays offered but unavailable
 * (aria-disabled) with the reason next to it, never hidden.
 */
export function ActionButton({
  label,
  refusal,
  pending,
  onClick,
  className,
  type = 'button',
}: {
  label: string;
  refusal: unknown;
  pending?: boolean;
  onClick?: () => void;
  className?: string;
  type?: 'button' | 'submit';
}) {
  const refused = isRoleRefusal(refusal);
  return (
    <button
      type={type}
      className={className}
      aria-disabled={refused || pending ? 'true' : undefined}
      onClick={(event) => {
        if (refused || pending) {
          event.preventDefault();
          return;
        }
        onClick?.();
      }}
    >
      {pending ? `${label}…` : label}
    </button>
  );
}

export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export function words(value: string | null | undefined): string {
  return value ? value.replaceAll('_', ' ') : '—';
}

/** Plain texts for result states: a negative is "no catalogue match", never "secure". */
export const RESULT_TEXT: Record<string, string> = {
  kev: 'KEV association',
  matched: 'catalogue match',
  no_match: 'no catalogue match (not an assessment)',
  indeterminate: 'indeterminate',
};

/** A stable run key: 32 hexadecimal characters from the browser's CSPRNG (the contract asks 16 to 64). */
export function newRunKey(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** Shared local state for a small form: its value, and a setter keyed by field. */
export function useFields<T extends Record<string, unknown>>(initial: T) {
  const [fields, setFields] = useState<T>(initial);
  const set =
    <K extends keyof T>(key: K) =>
    (value: T[K]) =>
      setFields((now) => ({ ...now, [key]: value }));
  return [fields, set, setFields] as const;
}
