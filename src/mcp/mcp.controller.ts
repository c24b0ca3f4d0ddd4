import {
  Catch,
  Controller,
  Delete,
  Get,
  Inject,
  Post,
  Req,
  Res,
  UseFilters,
  type ArgumentsHost,
  type ExceptionFilter,
} from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Access, SERVICE_SCOPE, type AccessRule, type Principal } from '../platform/auth/access.js';
import { CurrentPrincipal } from '../platform/auth/current-principal.js';
import { APP_CONFIG, type AppConfig } from '../platform/config/app-config.js';
import { ServiceError } from '../platform/errors/service-error.js';
import { toErrorResponse } from '../platform/http/error-response.js';
import { sendError } from '../platform/http/http-error.filter.js';
import { publicOrigin } from '../platform/http/public-origin.js';
import { McpEndpointLoader } from './mcp-endpoint-loader.js';

/** The endpoint's path, and the path of its protected resource metadata (RFC 9728: the resource's path appended). */
export const MCP_PATH = '/mcp';
export const MCP_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource/mcp';

/** Connecting: any personal credential; each tool call is admitted again under its route's rule (ADR 108). */
const CONNECT: AccessRule = { surface: 'mcp', permission: 'mcp.connect' };

/**
 * A refusal of the credential carries the challenge the MCP authorization spec asks for (RFC 6750, RFC 9728): where
 * the protected resource metadata is, so an assistant finds the authorization server on its own.
 */
@Catch()
export class McpChallengeFilter implements ExceptionFilter {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  catch(error: unknown, host: ArgumentsHost): void {
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const answer = toErrorResponse(error);
    const metadata = `resource_metadata="${publicOrigin(this.config, request)}${MCP_RESOURCE_METADATA_PATH}"`;
    if (answer.status === 401) {
      // No error code when no credential came (RFC 6750 §3.1); invalid_token for one that was refused.
      const presented =
        request.headers.authorization !== undefined || request.headers['x-api-key'] !== undefined;
      void reply.header(
        'www-authenticate',
        presented ? `Bearer error="invalid_token", ${metadata}` : `Bearer ${metadata}`,
      );
    } else if (answer.body.code === 'insufficient_scope') {
      void reply.header(
        'www-authenticate',
        `Bearer error="insufficient_scope", scope="${SERVICE_SCOPE}", ${metadata}`,
      );
    }
    sendError(error, request, reply);
  }
}

/**
 * `/mcp`: the Model Context Protocol over Streamable HTTP (stateless: POST only). Outside the OpenAPI document: its
 * answers are JSON-RPC, described to clients by tools/list.
 */
@ApiExcludeController()
@UseFilters(McpChallengeFilter)
@Controller('mcp')
export class McpController {
  constructor(
    @Inject(McpEndpointLoader) private readonly endpoint: McpEndpointLoader,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post()
  @Access(CONNECT)
  async post(
    @CurrentPrincipal() principal: Principal,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const endpoint = await this.endpoint.endpoint();
    await endpoint.handle(principal, request, reply, publicOrigin(this.config, request));
  }

  // Stateless: no stream to resume at GET and no session to end at DELETE (Streamable HTTP allows 405 for both).
  @Get()
  @Access(CONNECT)
  stream(@Res({ passthrough: true }) reply: FastifyReply): never {
    throw notAllowed(reply);
  }

  @Delete()
  @Access(CONNECT)
  end(@Res({ passthrough: true }) reply: FastifyReply): never {
    throw notAllowed(reply);
  }
}

function notAllowed(reply: FastifyReply): ServiceError {
  void reply.header('allow', 'POST');
  return new ServiceError(
    'method_not_allowed',
    'this MCP endpoint is stateless: send JSON-RPC messages with POST; it keeps no stream or session',
    { allow: 'POST' },
  );
}
