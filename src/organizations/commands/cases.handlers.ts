import { randomUUID } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../platform/clock/clock.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import { causedBy } from '../../platform/event-sourcing/command-metadata.js';
import { StreamWriter } from '../../platform/event-sourcing/stream-writer.js';
import { caseDecider, caseStreamId } from '../domain/case.js';
import { reachesSpace } from '../domain/organization.js';
import { completedSearchDecider, researchStreamId } from '../domain/review.js';
import { isStaff } from '../domain/roles.js';
import { spaceDecider, spaceStreamId } from '../domain/space.js';
import { ArchiveCase, OpenCase, RecordCompletedSearch, SaveEvidence } from './cases.commands.js';
import { OrganizationGate } from './organization-access.js';
import { ORGANIZATIONS_READ_MODEL, withPayer } from './organization-writes.js';
import { WorkspaceSelections } from './workspace-selection.js';

@CommandHandler(OpenCase)
export class OpenCaseHandler implements ICommandHandler<OpenCase> {
  constructor(
    @Inject(OrganizationGate) private readonly gate: OrganizationGate,
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ principal, organizationId, spaceId, title, envelope }: OpenCase) {
    const access = await this.gate.require(principal, organizationId, { open: true });
    const space = await this.gate.space(access, spaceId);
    const caseId = randomUUID();
    await this.writer.decide({
      stream: caseStreamId(caseId),
      decider: caseDecider,
      command: {
        type: 'OpenCase',
        caseId,
        organizationId,
        spaceId,
        spaceKind: space.state.kind,
        spaceArchived: space.state.state !== 'active',
        title,
        openedBy: principal.accountId,
      },
      context: { now: this.clock.now() },
      envelope: withPayer(envelope, organizationId, spaceId),
      readYourWrites: ORGANIZATIONS_READ_MODEL,
    });
    return { caseId };
  }
}

@CommandHandler(ArchiveCase)
export class ArchiveCaseHandler implements ICommandHandler<ArchiveCase> {
  constructor(
    @Inject(OrganizationGate) private readonly gate: OrganizationGate,
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ principal, organizationId, caseId, envelope }: ArchiveCase): Promise<void> {
    const access = await this.gate.require(principal, organizationId, { open: true });
    const found = await this.gate.case(access, caseId);
    await this.writer.decide({
      stream: caseStreamId(caseId),
      decider: caseDecider,
      command: { type: 'ArchiveCase' },
      context: { now: this.clock.now() },
      envelope: withPayer(envelope, organizationId, found.spaceId!),
      readYourWrites: ORGANIZATIONS_READ_MODEL,
    });
  }
}

@CommandHandler(SaveEvidence)
export class SaveEvidenceHandler implements ICommandHandler<SaveEvidence> {
  constructor(
    @Inject(OrganizationGate) private readonly gate: OrganizationGate,
    @Inject(WorkspaceSelections) private readonly selections: WorkspaceSelections,
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(command: SaveEvidence): Promise<{ evidenceId: string; caseId: string }> {
    const { principal, organizationId } = command;
    const access = await this.gate.require(principal, organizationId, { open: true });
    const selection = principal.sessionId
      ? await this.selections.get(principal.sessionId, organizationId)
      : null;
    if (!selection?.caseId) {
      throw new ServiceError(
        'case_required',
        'select an existing case of the current space before saving evidence',
      );
    }
    const caseId = selection.caseId;
    // The facts the case decides with: whether the saver still reaches it, and whether its space is active.
    const { state } = await this.writer.load(caseStreamId(caseId), caseDecider);
    const reachable =
      state.exists &&
      state.organizationId === organizationId &&
      reachesSpace(access.state, access.accountId, state.spaceId!);
    const spaceArchived =
      reachable &&
      (await this.writer.load(spaceStreamId(state.spaceId!), spaceDecider)).state.state !== 'active';
    const search = await this.gate.findCompletedSearch(access, command.searchId);
    const spaceKind = search
      ? (await this.writer.load(spaceStreamId(search.spaceId), spaceDecider)).state.kind
      : null;
    const evidenceId = randomUUID();
    await this.writer.decide({
      stream: caseStreamId(caseId),
      decider: caseDecider,
      command: {
        type: 'SaveEvidence',
        evidenceId,
        search:
          search && spaceKind
            ? {
                searchId: command.searchId,
                organizationId: search.organizationId,
                spaceId: search.spaceId,
                spaceKind,
                records: Object.fromEntries(search.records.map((r) => [`${r.dataset}:${r.id}`, r.source])),
              }
            : null,
        records: command.records,
        note: command.note,
        visibility: command.visibility,
        savedBy: principal.accountId,
        savedByStaff: isStaff(access.member.role),
      },
      context: { now: this.clock.now(), selectedCase: { reachable, spaceArchived } },
      envelope: withPayer(command.envelope, organizationId, search?.spaceId),
      readYourWrites: ORGANIZATIONS_READ_MODEL,
    });
    return { evidenceId, caseId };
  }
}

@CommandHandler(RecordCompletedSearch)
export class RecordCompletedSearchHandler implements ICommandHandler<RecordCompletedSearch> {
  constructor(
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(command: RecordCompletedSearch): Promise<{ searchId: string }> {
    const { organizationId, spaceId, accountId, search } = command;
    const searchId = randomUUID();
    await this.writer.decide({
      stream: researchStreamId(searchId),
      decider: completedSearchDecider,
      command: {
        type: 'RecordCompletedSearch',
        data: { searchId, organizationId, spaceId, accountId, ...search },
      },
      context: { now: this.clock.now() },
      envelope: causedBy(command.envelope, `search-record:${searchId}`, {
        payer: `organization:${organizationId}`,
        scope: spaceId,
      }),
    });
    return { searchId };
  }
}

export const casesHandlers = [
  OpenCaseHandler,
  ArchiveCaseHandler,
  SaveEvidenceHandler,
  RecordCompletedSearchHandler,
];
