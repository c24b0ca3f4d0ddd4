import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  READ_STORE,
  type Collection,
  type ReadDocument,
  type ReadStore,
} from '../../../platform/read-store/read-store.port.js';

export const SIGN_IN_FLOWS = 'sso_sign_in_flows';
const FLOW_ID = /^[A-Za-z0-9_-]{43}$/;

/** A started sign-in, stored under the hash of the id the browser's cookie holds. */
export interface FlowDocument extends ReadDocument {
  readonly id: string;
  readonly organizationId: string;
  readonly issuer: string;
  readonly clientId: string;
  readonly state: string;
  readonly nonce: string;
  readonly codeVerifier: string;
  readonly redirectUri: string;
  readonly returnTo: string;
  readonly expiresAt: string;
}

/** Started provider sign-ins (state, nonce, PKCE verifier): short-lived, each used once. */
@Injectable()
export class SignInFlows {
  private readonly flows: Collection<FlowDocument>;
  private flowsReady: Promise<void> | undefined;

  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {
    this.flows = readStore.collection<FlowDocument>(SIGN_IN_FLOWS);
  }

  static hashId(flowId: string): string {
    return createHash('sha256').update(`sso-flow:${flowId}`, 'utf8').digest('hex');
  }

  static isFlowId(flowId: string | undefined): flowId is string {
    return flowId !== undefined && FLOW_ID.test(flowId);
  }

  async save(flow: FlowDocument): Promise<void> {
    await this.ready();
    await this.flows.upsert(flow);
  }

  /** The flow the browser's cookie names, deleted whatever happens next (one use). */
  async take(flowId: string): Promise<FlowDocument | null> {
    await this.ready();
    const id = SignInFlows.hashId(flowId);
    const flow = await this.flows.get(id);
    if (flow) await this.flows.delete(id);
    return flow;
  }

  private ready(): Promise<void> {
    this.flowsReady ??= this.readStore.ensureCollection(SIGN_IN_FLOWS).catch((error: unknown) => {
      this.flowsReady = undefined;
      throw error;
    });
    return this.flowsReady;
  }
}
