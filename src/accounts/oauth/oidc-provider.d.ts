// oidc-provider ships no types: the service and the SSO tests use this much of it.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface Account {
    accountId: string;
    claims(): Promise<Record<string, unknown>>;
  }

  /** The adapter contract (oidc-provider's lib/adapters/memory_adapter.js). */
  interface Adapter {
    upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void>;
    find(id: string): Promise<AdapterPayload | undefined>;
    findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
    findByUid(uid: string): Promise<AdapterPayload | undefined>;
    consume(id: string): Promise<void>;
    destroy(id: string): Promise<void>;
    revokeByGrantId(grantId: string): Promise<void>;
  }

  type AdapterPayload = Record<string, unknown> & {
    grantId?: string;
    uid?: string;
    userCode?: string;
    consumed?: unknown;
  };

  interface OidcClient {
    clientId: string;
    clientName?: string;
    redirectUris: string[];
    grantTypeAllowed(type: string): boolean;
  }

  interface OidcContext {
    req?: IncomingMessage;
    oidc: {
      route?: string;
      client?: OidcClient;
      params?: Record<string, unknown>;
      entities: Record<string, unknown>;
      result?: { consent?: { grantId?: string } };
    };
    status: number;
    body: unknown;
    type: string;
  }

  interface Configuration {
    [option: string]: unknown;
    clients?: Array<Record<string, unknown>>;
    claims?: Record<string, string[]>;
    pkce?: { required?: () => boolean };
    ttl?: Record<string, number>;
    cookies?: { keys?: string[] };
    features?: Record<string, Record<string, unknown> & { enabled: boolean }>;
    findAccount?: (context: never, sub: string) => Promise<Account | undefined>;
    adapter?: (name: string) => Adapter;
  }

  interface GrantInstance {
    jti: string;
    addOIDCScope(scope: string): void;
    addResourceScope(resource: string, scope: string): void;
    save(): Promise<string>;
    destroy(): Promise<void>;
  }

  interface InteractionDetails {
    uid: string;
    prompt: { name: string; reasons: string[]; details: Record<string, unknown> };
    params: Record<string, unknown>;
    grantId?: string;
    session?: { accountId?: string };
    returnTo: string;
  }

  export const errors: {
    InvalidTarget: new (description?: string) => Error;
    InvalidGrant: new (description?: string) => Error;
    AccessDenied: new (description?: string) => Error;
    /** An error with this code and this `error_description` (400). */
    CustomOIDCProviderError: new (error: string, description: string) => Error;
  };

  export default class Provider {
    constructor(issuer: string, configuration?: Configuration);
    readonly issuer: string;
    static readonly ctx: OidcContext | undefined;
    callback(): (request: IncomingMessage, response: ServerResponse) => void;
    on(event: string, listener: (...args: never[]) => void): this;
    interactionDetails(request: IncomingMessage, response: ServerResponse): Promise<InteractionDetails>;
    interactionResult(
      request: IncomingMessage,
      response: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<string>;
    readonly Grant: (new (properties: { accountId: string; clientId: string }) => GrantInstance) & {
      find(grantId: string): Promise<GrantInstance | undefined>;
    };
    readonly Client: { find(clientId: string): Promise<OidcClient | undefined> };
  }
}
