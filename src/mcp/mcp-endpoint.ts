import type { ValidationPipe } from '@nestjs/common';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Principal } from '../platform/auth/access.js';
import type { PersonalCredentials } from '../platform/auth/personal-credentials.js';
import { ServiceError } from '../platform/errors/service-error.js';
import { toErrorResponse } from '../platform/http/error-response.js';
import { MCP_TOOLS, type McpServices, type McpTool, type ToolCall } from './mcp-tools.js';

export const MCP_SERVER_NAME = 'exposure-research';

const INSTRUCTIONS =
  'Exposure research: a search engine over previously collected internet observations (hosts, dns, ' +
  'vhosts/certificates, whois), billed in credits on the account that authorized this connection. It never ' +
  'scans or contacts an asset. Searches charge credits (search_fields lists prices); enrichment, estimates and ' +
  'reading credits are free. A dataset that did not answer is never zero matches, and a missing observation ' +
  'never proves an asset secure or absent. A refused call is a tool error whose text is the service error ' +
  '{code, message, details?, request_id}: read the code.';

/** Each tool as tools/list describes it: JSON Schema (draft 7, what the SDK's client validates) from zod. */
function describe(tool: McpTool): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: z.toJSONSchema(tool.input, { target: 'draft-7', io: 'input' }) as Tool['inputSchema'],
    outputSchema: z.toJSONSchema(tool.output, { target: 'draft-7', io: 'output' }) as Tool['outputSchema'],
    annotations: {
      title: tool.title,
      readOnlyHint: tool.readOnly,
      ...(tool.readOnly ? {} : { destructiveHint: false, idempotentHint: !tool.charges }),
      // A closed corpus of stored observations: nothing outside the service is reached.
      openWorldHint: false,
    },
  };
}

/**
 * The MCP endpoint (ADR 108): stateless Streamable HTTP, a server and a transport per HTTP request, JSON answers.
 * Tool calls run the same handlers as the routes they mirror, admitted under the same rules.
 */
export class McpEndpoint {
  private readonly tools = new Map(MCP_TOOLS.map((tool) => [tool.name, tool]));
  private readonly listed: Tool[] = MCP_TOOLS.map(describe);

  constructor(
    private readonly services: McpServices,
    private readonly credentials: PersonalCredentials,
    private readonly validation: ValidationPipe,
    private readonly version: string,
  ) {}

  /** Answers one HTTP request of an authenticated caller; the SDK writes the answer (JSON-RPC errors included). */
  async handle(
    principal: Principal,
    request: FastifyRequest,
    reply: FastifyReply,
    publicOrigin: string,
  ): Promise<void> {
    const server = new Server(
      { name: MCP_SERVER_NAME, version: this.version },
      { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
    );
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: this.listed }));
    server.setRequestHandler(CallToolRequestSchema, ({ params }) => {
      const tool = this.tools.get(params.name);
      // An unknown tool is a protocol error (the MCP spec's example), not a tool error.
      if (!tool) throw new McpError(ErrorCode.InvalidParams, `no tool named ${params.name}`);
      return this.call(tool, params.arguments ?? {}, { principal, request, reply, publicOrigin });
    });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    reply.raw.once('close', () => {
      void transport.close().catch(() => undefined);
      void server.close().catch(() => undefined);
    });
    // The SDK writes the response itself: fastify's own reply (and its onSend hooks) step aside.
    void reply.hijack();
    reply.raw.setHeader('x-request-id', String(request.id));
    try {
      await server.connect(transport);
      await transport.handleRequest(request.raw, reply.raw, request.body);
    } catch (error) {
      // The SDK answers every bad input itself; reaching here is this service's failure, answered once.
      const answer = toErrorResponse(error, String(request.id));
      request.log.error({ err: error }, 'MCP request failed');
      if (reply.raw.headersSent) {
        reply.raw.end();
        return;
      }
      reply.raw.writeHead(answer.status, { 'content-type': 'application/json; charset=utf-8' });
      reply.raw.end(JSON.stringify(answer.body));
    }
  }

  /** A tool call: admitted, checked, run; any refusal becomes a tool error carrying the service's error body. */
  private async call(tool: McpTool, args: unknown, call: ToolCall): Promise<CallToolResult> {
    try {
      const principal =
        tool.access.personalData === true
          ? await this.credentials.authenticate(call.request, tool.access)
          : call.principal;
      const input = await this.checked(tool, args);
      const output = await tool.run(this.services, input, { ...call, principal });
      // What tools/list promised: a mismatch is this service's fault, logged, never sent as a result.
      const promised = tool.output.safeParse(output);
      if (!promised.success)
        throw new Error(`${tool.name} answered off its output schema: ${promised.error.message}`);
      const json = JSON.stringify(output);
      const summary = tool.summarize?.(promised.data);
      return {
        content: [{ type: 'text', text: summary ? `${summary}\n\n${json}` : json }],
        structuredContent: output as Record<string, unknown>,
      };
    } catch (error) {
      const answer = toErrorResponse(error, String(call.request.id));
      if (answer.unexpected) call.request.log.error({ err: error, tool: tool.name }, 'MCP tool failed');
      else call.request.log.info({ code: answer.body.code, tool: tool.name }, 'MCP tool call refused');
      // No structuredContent: it would have to match the tool's output schema. The text is the error body.
      return { isError: true, content: [{ type: 'text', text: JSON.stringify(answer.body) }] };
    }
  }

  /** The route's limits and checks on the arguments: its body limit, the tool's schema, then the route's DTO. */
  private async checked(tool: McpTool, args: unknown): Promise<Record<string, unknown>> {
    if (tool.maxArgumentBytes !== undefined) {
      const bytes = Buffer.byteLength(JSON.stringify(args), 'utf8');
      if (bytes > tool.maxArgumentBytes) {
        throw new ServiceError(
          'payload_too_large',
          `the arguments of ${tool.name} are larger than its ${tool.maxArgumentBytes} bytes`,
          { max_bytes: tool.maxArgumentBytes },
        );
      }
    }
    const parsed = tool.input.safeParse(args);
    if (!parsed.success) {
      throw new ServiceError('invalid_input', `the arguments of ${tool.name} are not valid`, {
        fields: parsed.error.issues.map((issue) => ({
          field: issue.path.map(String).join('.') || '(arguments)',
          problems: [issue.message],
        })),
      });
    }
    if (!tool.body) return parsed.data;
    // Without the arguments that are path parameters on HTTP (dataset, search_type).
    const body = Object.fromEntries(
      Object.entries(parsed.data).filter(([name]) => !tool.pathParameters?.includes(name)),
    );
    await this.validation.transform(body, { type: 'body', metatype: tool.body });
    return parsed.data;
  }
}
