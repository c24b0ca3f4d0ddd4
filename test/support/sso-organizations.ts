/**
 * Organizations for the single sign-on tests, written through the organization decider as the service's
 * operators would (no HTTP: the organization routes are another slice's), so these tests depend only on the
 * committed domain.
 */
import { randomUUID } from 'node:crypto';
import { commandEnvelope } from '../../src/platform/event-sourcing/command-metadata.js';
import type { ServiceContext } from '../../src/platform/service-context.js';
import {
  organizationDecider,
  organizationStreamId,
  type OrganizationCommand,
} from '../../src/organizations/domain/organization.js';
import type { Role } from '../../src/organizations/domain/roles.js';
import { spaceDecider, spaceStreamId } from '../../src/organizations/domain/space.js';

export interface SeatedMember {
  readonly accountId: string;
  readonly email: string;
  readonly role: Exclude<Role, 'owner'>;
}

/** An active (subscribed) organization owned by `ownerAccountId`, with these members. Answers its id. */
export async function createActiveOrganization(
  context: ServiceContext,
  ownerAccountId: string,
  members: readonly SeatedMember[] = [],
  organizationId: string = randomUUID(),
): Promise<string> {
  const run = async (command: OrganizationCommand) => {
    const result = await context.writer.decide({
      stream: organizationStreamId(organizationId),
      decider: organizationDecider,
      command,
      context: { now: context.clock.now(), actorAccountId: null },
      envelope: commandEnvelope({ actor: 'operator:test', payer: `organization:${organizationId}` }),
    });
    return result.position;
  };
  const generalSpaceId = randomUUID();
  let position = await run({
    type: 'CreateOrganization',
    organizationId,
    name: `SSO test ${organizationId.slice(0, 8)}`,
    ownerAccountId,
    start: 'subscription',
    domain: null,
    verificationToken: randomUUID(),
    generalSpaceId,
    transfer: { transferId: randomUUID(), credits: 0 },
  });
  // General research, as the creation process opens it: staff start there (rule 2).
  await context.writer.decide({
    stream: spaceStreamId(generalSpaceId),
    decider: spaceDecider,
    command: {
      type: 'CreateSpace',
      spaceId: generalSpaceId,
      organizationId,
      kind: 'general',
      name: 'General research',
      creditLimit: null,
      monitoring: false,
    },
    context: { now: context.clock.now() },
    envelope: commandEnvelope({ actor: 'operator:test', payer: `organization:${organizationId}` }),
  });
  position = (await run({ type: 'CompleteCheckout', plan: 'teams' })) ?? position;
  for (const member of members) {
    const invitationId = randomUUID();
    await run({
      type: 'InviteMember',
      invitationId,
      email: member.email,
      role: member.role,
      spaces: [],
      portion: null,
    });
    position =
      (await run({
        type: 'AcceptInvitation',
        invitationId,
        accountId: member.accountId,
        email: member.email,
      })) ?? position;
  }
  await context.writer.readYourWrites(['sso-staff'], position);
  return organizationId;
}
