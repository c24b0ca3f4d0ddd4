import {
  anyObject,
  anyValue,
  arrayOf,
  boolean,
  component,
  dateTime,
  integer,
  nullable,
  object,
  oneOfStrings,
  string,
  uuid,
} from '../../platform/http/openapi/schema.js';
import { AS_OF_ANSWER } from '../../platform/http/openapi/as-of.js';
import { ORGANIZATION_STATUSES } from '../domain/organization.js';
import { CREATION_REFUSALS } from '../domain/policies.js';
import { ROLES } from '../domain/roles.js';
import { SPACE_KINDS } from '../domain/space.js';

/** Response documents of the organization workspace (contract: Organization creation, Scope, workspace rules). */

const ROLE = oneOfStrings(ROLES);
const ID = string();

export const CREATION_PREVIEW = component(
  'CreationPreview',
  object(
    {
      allowed: boolean(),
      transfer_credits: integer({ minimum: 0, description: 'purchased credits that would move' }),
    },
    {
      reason: string({ description: 'present when creation is unavailable' }),
      reason_code: oneOfStrings(CREATION_REFUSALS, {
        description: 'the rule that makes creation unavailable',
      }),
    },
  ),
);

/** A space (client, asset scope or General research); an exposure scope's declaration is part of it. */
export const SPACE = component(
  'Space',
  object(
    {
      id: uuid(),
      kind: oneOfStrings(SPACE_KINDS),
      name: string(),
      domain: nullable(string()),
      timezone: nullable(string({ description: 'IANA timezone name' })),
      addresses: arrayOf(string(), { maxItems: 16 }),
      state: oneOfStrings(['active', 'archived', 'deleted']),
      credit_limit: nullable(integer()),
      monitoring: boolean(),
      erase_after: nullable(dateTime()),
      shares: arrayOf(object({ id: ID, revoked: boolean() })),
      version: string({ description: 'the quoted version to send in If-Match', pattern: '^"[0-9]+"$' }),
    },
    { as_of: AS_OF_ANSWER },
  ),
);

export const SPACES = component('SpaceList', object({ spaces: arrayOf(SPACE) }));

export const ORGANIZATION = component(
  'Organization',
  object({
    id: uuid(),
    name: string(),
    status: oneOfStrings(ORGANIZATION_STATUSES),
    restricted: boolean({ description: 'pending approval, inactive or awaiting payment (rule 14)' }),
    action: nullable(string({ description: 'what lifts the restriction' })),
    plan: nullable(oneOfStrings(['trial', 'teams', 'business'])),
    requested_plan: nullable(oneOfStrings(['teams', 'business'])),
    start: nullable(oneOfStrings(['trial', 'subscription'])),
    trial: nullable(
      object({ domain: string(), started_at: dateTime(), ends_at: dateTime(), ended: boolean() }),
    ),
    verification: nullable(
      object({
        domain: string(),
        record: object({ type: oneOfStrings(['TXT']), name: string(), value: string() }),
        verified_at: nullable(dateTime()),
      }),
    ),
    owner_account_id: nullable(ID),
    role: ROLE,
    ownership_offer: nullable(object({ to: ID, offered_at: dateTime() })),
    general_space_id: nullable(uuid()),
    sso: object({ enforced: boolean() }),
    spaces: arrayOf(SPACE),
  }),
);

export const ORGANIZATIONS = component(
  'OrganizationList',
  object({
    organizations: arrayOf(
      object({ id: uuid(), name: string(), status: oneOfStrings(ORGANIZATION_STATUSES), role: ROLE }),
    ),
  }),
);

export const SSO_SIGN_IN_REQUIRED = component(
  'SsoSignInRequired',
  object({
    id: uuid(),
    accepted: boolean(),
    sso_required: boolean(),
    sign_in_url: string({ description: "where staff sign in through the organization's provider" }),
  }),
);

export const ACCEPTED_INVITATION = component('AcceptedInvitation', {
  oneOf: [ORGANIZATION, SSO_SIGN_IN_REQUIRED],
});

export const ORGANIZATION_CREDITS = component('OrganizationCredits', {
  description: 'managers see the shared balance; other members their permitted envelope (rule 8)',
  oneOf: [
    object(
      {
        scope: oneOfStrings(['shared']),
        available: integer({ minimum: 0 }),
        balance: integer(),
        reserved: integer({ minimum: 0 }),
      },
      { as_of: AS_OF_ANSWER },
    ),
    object(
      {
        scope: oneOfStrings(['envelope']),
        available: integer(),
        envelopes: arrayOf(object({ key: string(), limit: integer(), available: integer() })),
      },
      { as_of: AS_OF_ANSWER },
    ),
  ],
});

export const SWITCHED = component(
  'SessionSwitched',
  object({ organization_id: uuid(), space_id: nullable(uuid()), case_id: nullable(uuid()) }),
);

export const SESSION_CONTEXT = component(
  'SessionContext',
  object({
    organization_id: uuid(),
    switched: boolean({ description: 'the session is restricted to this organization' }),
    space_id: nullable(uuid()),
    case_id: nullable(uuid()),
  }),
);

export const MEMBERS = component(
  'MemberList',
  object(
    {
      members: arrayOf(
        object(
          { account_id: ID, role: ROLE, added_at: dateTime() },
          {
            space_ids: arrayOf(uuid(), { description: 'managers only' }),
            portion: nullable(integer({ minimum: 0, description: 'managers only' })),
          },
        ),
      ),
      invitations: arrayOf(
        object({
          id: uuid(),
          email: string(),
          role: ROLE,
          space_ids: arrayOf(uuid()),
          portion: nullable(integer({ minimum: 0 })),
          invited_at: dateTime(),
        }),
        { description: 'managers only; empty for others' },
      ),
    },
    { as_of: AS_OF_ANSWER },
  ),
);

/** One entry of the organization's audit log (ADR 72): the envelope of an event, never its payload. */
const AUDIT_ENTRY = object({
  position: string({ description: 'global log position: the order of the log' }),
  recorded_at: dateTime(),
  type: string({ description: 'the event type, e.g. MemberInvited' }),
  stream: string({ description: 'the stream it was recorded on (README, "Stream naming")' }),
  stream_version: integer({ minimum: 0 }),
  event_id: string(),
  actor: string({ description: 'who did it: account:<id>, operator:<name> or system:<component>' }),
  on_behalf_of: string({
    description: 'who paid or on whose behalf: account:<id>, organization:<id>, system',
  }),
  scope: nullable(string({ description: 'the client space or exposure scope, when any' })),
  reason: nullable(string({ description: 'why, when the command recorded a reason' })),
  credential: anyValue('the credential that acted (its id, never a secret); null when not recorded'),
  surface: nullable(
    string({ description: 'where it came from (session, personal API, CLI, …), when recorded' }),
  ),
  request_id: nullable(string()),
  correlation_id: string(),
  causation_id: string(),
  chain_verification: oneOfStrings(['verified', 'not_verified_yet', 'verification_failed', 'unverifiable'], {
    description:
      'verified: at or before the last checkpoint the service verified; not_verified_yet: after it (the next ' +
      'verification covers it); verification_failed: after it, and the last verification found tampering; ' +
      'unverifiable: the event store keeps no hash chain',
  }),
});

const CHAIN_POINT = {
  position: string({ description: 'global log position' }),
  chain_index: integer({ minimum: 0 }),
  chain_head: string({ description: 'hex SHA-256 of the global chain through this event' }),
};

/** What the service knows about the tamper-evident log (ADR 119), as /health/ready's `event_log` shows it. */
const AUDIT_VERIFICATION = object({
  supported: boolean({ description: 'false: this event store keeps no hash chain' }),
  last_verified_checkpoint: nullable(
    object(
      { ...CHAIN_POINT, signed_at: dateTime() },
      {},
      { description: 'the newest signed checkpoint whose signature and chain head the service verified' },
    ),
  ),
  last_verification: nullable(
    object({
      at: dateTime({ description: 'when the service last verified the log' }),
      ok: boolean({ description: 'false: it found tampering' }),
      finding: nullable(string({ description: 'the kind and position of the first finding' })),
    }),
  ),
  chain_head: nullable(
    object(
      CHAIN_POINT,
      {},
      { description: 'the newest event sealed into the chain (not necessarily verified)' },
    ),
  ),
});

export const AUDIT_LOG = component(
  'OrganizationAuditLog',
  object({
    entries: arrayOf(AUDIT_ENTRY, { description: 'oldest first (log order)' }),
    next_cursor: nullable(
      string({ description: 'pass as `after` for the next page; null on the last page' }),
    ),
    verification: AUDIT_VERIFICATION,
  }),
);

export const INVITATION = component('InvitationSent', object({ id: uuid(), email: string(), role: ROLE }));

export const OWNERSHIP_OFFERED = component('OwnershipOffered', object({ offered_to: ID }));

export const SHARE = component('Share', object({ id: uuid(), revoked: boolean() }));

const CASE_FIELDS = {
  id: uuid(),
  space_id: uuid(),
  title: string(),
  status: oneOfStrings(['open', 'archived']),
  evidence_count: integer({ minimum: 0 }),
  opened_by: nullable(ID),
  opened_at: dateTime(),
};

export const CASES = component('CaseList', object({ cases: arrayOf(object(CASE_FIELDS)) }));

export const EVIDENCE = component(
  'Evidence',
  object({
    id: uuid(),
    case_id: uuid(),
    space_id: uuid(),
    search_id: uuid(),
    records: arrayOf(anyObject('a saved source record of the completed search')),
    note: string(),
    visibility: oneOfStrings(['internal', 'client']),
    saved_by: nullable(ID),
    saved_at: dateTime(),
  }),
);

export const CASE = component('Case', object({ ...CASE_FIELDS, evidence: arrayOf(EVIDENCE) }));

export const REVIEW_ITEM = component(
  'ReviewItem',
  object({
    id: uuid(),
    space_id: uuid(),
    search_id: uuid(),
    record: anyObject('the queued observation, as the completed search returned it'),
    assignee: nullable(ID),
    due_date: nullable(string({ description: 'YYYY-MM-DD' })),
    source: nullable(object({ case_id: uuid(), evidence_id: uuid() })),
    added_by: ID,
    added_at: dateTime(),
  }),
);

export const REVIEW_QUEUE = component('ReviewQueue', object({ items: arrayOf(REVIEW_ITEM) }));

export const CREATED_ID = component('CreatedId', object({ id: uuid() }));

export const COMPARISON = component(
  'Comparison',
  object({
    id: uuid(),
    space_id: uuid(),
    title: string(),
    evidence: arrayOf(anyObject('an evidence item the comparison is prepared from')),
    rows: arrayOf(anyObject('a compared source record')),
    differing_fields: arrayOf(string()),
    published: boolean(),
    prepared_at: dateTime(),
  }),
);

export const PUBLISHED_VIEW = component(
  'PublishedView',
  object({ space_id: uuid(), comparisons: arrayOf(COMPARISON) }),
);
