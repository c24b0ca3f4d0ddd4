import type { ValidationPipe } from '@nestjs/common';
import type { PersonalCredentials } from '../platform/auth/personal-credentials.js';
import type { McpEndpoint } from './mcp-endpoint.js';
import type { McpServices } from './mcp-tools.js';

/**
 * The MCP endpoint, built at its first request. The MCP SDK and zod are loaded then, not by every start of the
 * service and of each CLI command (about 0.35 s of CPU a process, which most processes never need).
 */
export class McpEndpointLoader {
  private loading: Promise<McpEndpoint> | undefined;

  constructor(
    private readonly services: McpServices,
    private readonly credentials: PersonalCredentials,
    private readonly validation: ValidationPipe,
    private readonly version: string,
  ) {}

  endpoint(): Promise<McpEndpoint> {
    this.loading ??= import('./mcp-endpoint.js').then(
      ({ McpEndpoint }) => new McpEndpoint(this.services, this.credentials, this.validation, this.version),
    );
    // A failed load is tried again by the next request rather than remembered.
    this.loading.catch(() => (this.loading = undefined));
    return this.loading;
  }
}
