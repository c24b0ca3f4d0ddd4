/**
 * The issuers whose access tokens the service accepts besides its own session-minted ones: the OAuth
 * authorization server it mounts (ADR 106). With PUBLIC_URL that is the one issuer PUBLIC_URL names; without it
 * the issuer is the local origin a request arrived on (publicOrigin), so each origin this process has served
 * as an authorization server is remembered here (one process: set PUBLIC_URL when instances share a database).
 */
export const MCP_RESOURCE_PATH = '/mcp';

export class OAuthIssuers {
  private readonly served = new Set<string>();

  constructor(private readonly publicUrl: string | undefined) {}

  /** Records an issuer this process serves (the authorization server calls it when it starts for an origin). */
  remember(issuer: string): void {
    if (this.served.size < 64) this.served.add(issuer);
  }

  accepts(issuer: string): boolean {
    return this.publicUrl !== undefined ? issuer === this.publicUrl : this.served.has(issuer);
  }

  /** The resource identifiers (RFC 8707) of this service under an issuer: the personal API and the MCP endpoint. */
  static resourcesOf(issuer: string): readonly string[] {
    return [issuer, `${issuer}${MCP_RESOURCE_PATH}`];
  }
}
