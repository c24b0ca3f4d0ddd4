import { Inject, Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { PersonalResearchGate, Principal } from '../../platform/auth/access.js';
import { commandEnvelope } from '../../platform/event-sourcing/command-metadata.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import {
  personalResearch,
  type ResearchContext,
  type ResearchContexts,
} from '../../search/research-context.js';
import { requireOpen } from '../domain/organization.js';
import { whoisContactsOmitted } from '../domain/policies.js';
import { CreationPreviews } from '../queries/creation-preview.js';
import { RecordCompletedSearch } from './cases.commands.js';
import { OrganizationGate } from './organization-access.js';
import { WorkspaceSelections } from './workspace-selection.js';

/**
 * Rules 1, 2, 7 and 8 for every search and export:
 * - an account in an organization researches only in the organization's context, paid from its credits;
 *   personal research (a personal API key, token, or an unswitched session) is refused as unavailable;
 * - in the organization, a space must be selected; the reservation also fits the space's credit_limit and the
 *   external user's portion; a refusal never falls back to another payer;
 * - a restricted organization researches nothing; the trial omits WHOIS contacts.
 */
@Injectable()
export class OrganizationResearchContexts implements ResearchContexts, PersonalResearchGate {
  constructor(
    @Inject(OrganizationGate) private readonly gate: OrganizationGate,
    @Inject(WorkspaceSelections) private readonly selections: WorkspaceSelections,
    @Inject(CreationPreviews) private readonly previews: CreationPreviews,
    @Inject(CommandBus) private readonly commands: CommandBus,
  ) {}

  /** Rule 1: personal research is unavailable to an account that belongs to an organization. */
  async refusal(accountId: string): Promise<ServiceError | null> {
    if (!(await this.previews.belongsToOrganization(accountId))) return null;
    return new ServiceError(
      'personal_research_unavailable',
      "this account belongs to an organization: research runs in the organization's context (switch a browser session to it); personal research is unavailable",
    );
  }

  async resolve(principal: Principal): Promise<ResearchContext> {
    if (!principal.organizationId) {
      const refusal = await this.refusal(principal.accountId);
      if (refusal) throw refusal;
      return personalResearch(principal);
    }
    const organizationId = principal.organizationId;
    const access = await this.gate.require(principal, organizationId);
    requireOpen(access.state);
    const selection = principal.sessionId
      ? await this.selections.get(principal.sessionId, organizationId)
      : null;
    if (!selection?.spaceId) {
      throw new ServiceError('space_required', 'select a space before searching', {
        organization_id: organizationId,
      });
    }
    const space = await this.gate.space(access, selection.spaceId).catch(() => {
      throw new ServiceError(
        'space_required',
        'the selected space is no longer available: select another one',
      );
    });
    if (space.state.state !== 'active') {
      throw new ServiceError('space_required', 'the selected space is archived: select an active space');
    }
    const envelopes = [];
    if (space.state.creditLimit !== null) {
      envelopes.push({ key: `space:${selection.spaceId}`, limit: space.state.creditLimit });
    }
    if (access.member.role === 'external_client' && access.member.portion !== null) {
      envelopes.push({ key: `member:${principal.accountId}`, limit: access.member.portion });
    }
    return {
      payer: `organization:${organizationId}`,
      scope: selection.spaceId,
      envelopes,
      whoisContactsOmitted: whoisContactsOmitted(access.state.plan),
      organization: { organizationId, spaceId: selection.spaceId },
    };
  }

  async recordCompletedSearch(
    principal: Principal,
    context: ResearchContext,
    search: {
      readonly rawQuery: string;
      readonly timeFrame: string;
      readonly creditsCharged: number;
      readonly records: ReadonlyArray<{ dataset: string; id: string; raw: Record<string, unknown> }>;
    },
  ): Promise<string | null> {
    if (!context.organization) return null;
    const { organizationId, spaceId } = context.organization;
    // Recorded so evidence can name its records later; a search never adds evidence by itself (rule 4).
    const { searchId } = await this.commands.execute(
      new RecordCompletedSearch(
        organizationId,
        spaceId,
        principal.accountId,
        {
          rawQuery: search.rawQuery,
          timeFrame: search.timeFrame,
          creditsCharged: search.creditsCharged,
          records: search.records.map((r) => ({ dataset: r.dataset, id: r.id, source: r.raw })),
        },
        commandEnvelope({
          actor: `account:${principal.accountId}`,
          payer: `organization:${organizationId}`,
          scope: spaceId,
        }),
      ),
    );
    return searchId;
  }
}
