import { Inject, Injectable } from '@nestjs/common';
import { hashSessionId } from '../../platform/auth/sessions.js';
import {
  READ_STORE,
  type Collection,
  type ReadDocument,
  type ReadStore,
} from '../../platform/read-store/read-store.port.js';

/**
 * What a browser session has selected inside its organization: the space (rule 2) and the case evidence is
 * saved to (rule 4). Not event-sourced, like the session itself: a plain collection keyed by the session hash,
 * dying with the session (a new session starts with nothing selected).
 */
export const WORKSPACE_SELECTIONS = 'organization_workspace_selections';

export interface WorkspaceSelection extends ReadDocument {
  readonly id: string;
  readonly organizationId: string;
  readonly spaceId: string | null;
  readonly caseId: string | null;
}

@Injectable()
export class WorkspaceSelections {
  private readonly selections: Collection<WorkspaceSelection>;
  private ready: Promise<void> | undefined;

  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {
    this.selections = readStore.collection<WorkspaceSelection>(WORKSPACE_SELECTIONS);
  }

  async get(sessionId: string, organizationId: string): Promise<WorkspaceSelection | null> {
    await this.init();
    const found = await this.selections.get(hashSessionId(sessionId));
    return found && found.organizationId === organizationId ? found : null;
  }

  async set(
    sessionId: string,
    organizationId: string,
    selection: { spaceId: string | null; caseId: string | null },
  ): Promise<WorkspaceSelection> {
    await this.init();
    const document: WorkspaceSelection = { id: hashSessionId(sessionId), organizationId, ...selection };
    await this.selections.upsert(document);
    return document;
  }

  private init(): Promise<void> {
    this.ready ??= this.readStore.ensureCollection(WORKSPACE_SELECTIONS).catch((error: unknown) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }
}
