/**
 * The creation process of an organization (`organization-owner-<accountId>`): the intent a creation appends
 * before its account transition, and the abandonment of one that failed. Appended as once-only records by
 * the creation command, not by a decider; typed here so the read models that follow them are.
 */
import type { DomainEvent } from '../../platform/event-sourcing/decider.js';
import type { StartMode } from './organization.js';

export type OrganizationCreationStarted = DomainEvent<
  'OrganizationCreationStarted',
  {
    organizationId: string;
    transferId: string;
    credits: number;
    name: string;
    start: StartMode;
    domain: string | null;
    verificationToken: string;
    generalSpaceId: string;
  }
>;
export type OrganizationCreationAbandoned = DomainEvent<
  'OrganizationCreationAbandoned',
  { organizationId: string; transferId: string }
>;
export type OrganizationCreationEvent = OrganizationCreationStarted | OrganizationCreationAbandoned;
