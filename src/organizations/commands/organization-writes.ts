import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '../../platform/clock/clock.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import type { CommandEnvelope } from '../../platform/event-sourcing/command-metadata.js';
import { allOrNothing } from '../../platform/event-sourcing/decider.js';
import { StreamWriter } from '../../platform/event-sourcing/stream-writer.js';
import {
  memberOf,
  organizationDecider,
  organizationStreamId,
  type OrganizationCommand,
  type OrganizationState,
  type StartMode,
} from '../domain/organization.js';
import { isId } from './organization-access.js';

/** The read model organization answers come from: every write waits for it (read-your-writes). */
export const ORGANIZATIONS_READ_MODEL = ['organizations'] as const;

/** The intent record of a creation, one per owner account: `organization-owner-<accountId>`. */
export const creationStreamId = (accountId: string): string => `organization-owner-${accountId}`;
export const trialDomainClaimStreamId = (domain: string): string =>
  `trial-domain-${createHash('sha256').update(domain).digest('hex').slice(0, 32)}`;
export const trialAccountClaimStreamId = (accountId: string): string => `trial-account-${accountId}`;
/** Operators flag accounts whose trial needs administrator approval (anti-abuse). */
export const approvalFlagStreamId = (accountId: string): string => `trial-approval-flag-${accountId}`;

/** What `OrganizationCreationStarted` records: everything the resumable creation process needs. */
export interface CreationStarted {
  organizationId: string;
  transferId: string;
  credits: number;
  name: string;
  start: StartMode;
  domain: string | null;
  verificationToken: string;
  generalSpaceId: string;
}

/** Whether the creation intent stream ends with its abandonment. */
export function abandoned(events: ReadonlyArray<{ type: string }>): boolean {
  return events.at(-1)?.type === 'OrganizationCreationAbandoned';
}

/** The organization pays for (and scopes) what a member does in it. */
export function withPayer(
  envelope: CommandEnvelope,
  organizationId: string,
  scope?: string,
  suffix?: string,
): CommandEnvelope {
  return {
    commandId: suffix ? `${envelope.commandId}:${suffix}` : envelope.commandId,
    metadata: {
      ...envelope.metadata,
      payer: `organization:${organizationId}`,
      ...(scope ? { scope } : {}),
    },
  };
}

export function requireMemberId(state: OrganizationState, accountId: string): void {
  if (!isId(accountId) || !memberOf(state, accountId)) throw new ServiceError('not_found', 'no such member');
}

export function ignoreAlreadyExists(error: unknown): void {
  if (error instanceof ServiceError && error.code === 'already_exists') return;
  throw error;
}

/** Decisions on an organization's stream, paid by the organization, read back from its read model. */
@Injectable()
export class OrganizationStream {
  constructor(
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  decide(
    organizationId: string,
    actorAccountId: string | null,
    command: OrganizationCommand,
    envelope: CommandEnvelope,
  ) {
    return this.writer.decide({
      stream: organizationStreamId(organizationId),
      decider: organizationDecider,
      command,
      context: { now: this.clock.now(), actorAccountId },
      envelope: withPayer(envelope, organizationId),
      readYourWrites: ORGANIZATIONS_READ_MODEL,
    });
  }

  /** Several commands decided together: a refusal of any of them appends none. */
  decideAll(
    organizationId: string,
    actorAccountId: string | null,
    commands: readonly OrganizationCommand[],
    envelope: CommandEnvelope,
    expectedVersion?: number,
  ) {
    return this.writer.decide({
      stream: organizationStreamId(organizationId),
      decider: allOrNothing(organizationDecider),
      command: commands,
      context: { now: this.clock.now(), actorAccountId },
      envelope: withPayer(envelope, organizationId),
      ...(expectedVersion !== undefined ? { expectedVersion } : {}),
      readYourWrites: ORGANIZATIONS_READ_MODEL,
    });
  }
}
