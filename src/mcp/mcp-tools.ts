import type { Type } from '@nestjs/common';
import type { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { BadgeEnrichmentBody, VulnerabilityEnrichmentBody } from '../catalogue/http/enrichment.dtos.js';
import type { EnrichmentHandler } from '../catalogue/http/enrichment-handler.js';
import type { CreditQueries } from '../credits/queries/credit-queries.js';
import { RequestExport } from '../exports/commands/export.commands.js';
import type { ExportWorkerPool } from '../exports/export-worker-pool.js';
import { ExportEstimateBody, ExportRequestBody } from '../exports/http/exports.dtos.js';
import type { ExportEstimates } from '../exports/queries/export-estimates.js';
import type { ExportQueries } from '../exports/queries/export-queries.js';
import type { AccessRule, Principal } from '../platform/auth/access.js';
import type { Clock } from '../platform/clock/clock.js';
import { envelopeFor } from '../platform/http/request-envelope.js';
import {
  DATASET_PRICE,
  DEPTH_TIERS,
  FAVICON_SEARCH_PRICE,
  MAX_SEARCH_OFFSET,
} from '../search/domain/pricing.js';
import { DatasetSearchBody, SearchBody, SearchMoreBody } from '../search/http/search.dtos.js';
import type { SearchHandler } from '../search/http/search-handler.js';
import {
  badgesInput,
  badgesOutput,
  creditsOutput,
  datasetSearchInput,
  datasetSearchOutput,
  exportEstimateInput,
  exportEstimateOutput,
  exportStartInput,
  exportStartOutput,
  exportStatusInput,
  exportStatusOutput,
  fieldsOutput,
  nextPageInput,
  noInput,
  nextPageOutput,
  searchInput,
  searchOutput,
  vulnerabilitiesInput,
  vulnerabilitiesOutput,
} from './mcp-schemas.js';

/** What the tools call: the same handlers and queries as the HTTP routes they mirror (one write path). */
export interface McpServices {
  readonly search: SearchHandler;
  readonly enrichment: EnrichmentHandler;
  readonly credits: CreditQueries;
  readonly commands: CommandBus;
  readonly exportEstimates: ExportEstimates;
  readonly exportQueries: ExportQueries;
  readonly exportPool: ExportWorkerPool;
  readonly clock: Clock;
}

/** One tool call: who calls (admitted under the tool's rule), the HTTP request carrying it, where links point. */
export interface ToolCall {
  readonly principal: Principal;
  readonly request: FastifyRequest;
  readonly reply: FastifyReply;
  readonly publicOrigin: string;
}

export interface McpTool<I extends z.ZodObject = z.ZodObject, O extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly input: I;
  readonly output: O;
  /** The rule of the route the tool mirrors, on the mcp surface: entitlements apply as there. */
  readonly access: AccessRule;
  /** The route's DTO: the arguments pass its checks too, so both surfaces refuse alike. */
  readonly body?: Type<object>;
  /** Arguments that are path parameters of the route, not members of its body. */
  readonly pathParameters?: readonly string[];
  /** The route's body limit (bytes), applied to the arguments. */
  readonly maxArgumentBytes?: number;
  readonly readOnly: boolean;
  /** Each call charges credits (not idempotent). */
  readonly charges: boolean;
  /** The route's answer; checked against `output` before it is sent (what tools/list promised). */
  run(services: McpServices, args: z.output<I>, call: ToolCall): Promise<object>;
  /** A line or two for the model ahead of the JSON, where the JSON alone could be misread. */
  summarize?(output: z.output<O>): string;
}

const tool = <I extends z.ZodObject, O extends z.ZodType>(definition: McpTool<I, O>): McpTool =>
  definition as unknown as McpTool;

const SEARCH: AccessRule = { surface: 'mcp', permission: 'data.search', personalData: true };
const ENRICH: AccessRule = { surface: 'mcp', permission: 'data.enrich', personalData: true };
const EXPORT: AccessRule = { surface: 'mcp', permission: 'data.export', personalData: true };
const EXPORT_RESULT: AccessRule = { surface: 'mcp', permission: 'data.export', personalData: 'paid_result' };
const CREDITS: AccessRule = { surface: 'mcp', permission: 'credits.read' };

const SEARCH_BODY_BYTES = 4 * 1024;

const PRICES =
  `hosts, dns and vhosts ${DATASET_PRICE.hosts} credit, whois ${DATASET_PRICE.whois}, a favicon search ` +
  `${FAVICON_SEARCH_PRICE}`;
const DEPTH = DEPTH_TIERS.map(
  (tier) => `records ${tier.from_record}-${tier.to_record}: ${tier.multiplier}x the dataset price`,
).join('; ');

const NOT_ZERO =
  'A dataset whose status is not ok (timeout, busy, error, invalid_query, cancelled) did not answer: its empty ' +
  'list is NOT zero matches, and a missing observation never proves an asset is secure or absent.';

/** Per-dataset status in words, so a failed dataset is never read as zero matches. */
function statusLines(
  statuses: Record<string, string>,
  counts: (dataset: string) => { rows: number; total: number | null; lowerBound: boolean },
): string {
  return Object.entries(statuses)
    .map(([dataset, status]) => {
      if (status !== 'ok') return `${dataset}: ${status}, did not answer (not zero matches)`;
      const { rows, total, lowerBound } = counts(dataset);
      return `${dataset}: ok, ${rows} returned of ${total ?? 'unknown'}${lowerBound ? ' or more' : ''}`;
    })
    .join('\n');
}

export const MCP_TOOLS: readonly McpTool[] = [
  tool({
    name: 'search',
    title: 'Unified search',
    description:
      'Search previously collected internet observations (hosts, dns, vhosts/certificates, whois) at once. The ' +
      `service never scans anything. Costs credits: one search costs the highest page price among the datasets ` +
      `that returned rows (${PRICES}); 1 credit when none returned rows; nothing when no dataset answered. ` +
      `Check per_type_status for each dataset: ${NOT_ZERO} Use search_next_page for more rows of one dataset ` +
      "and enrich_vulnerabilities with a host result's raw.vulnerability_ref for CVE/KEV findings.",
    input: searchInput,
    output: searchOutput,
    access: SEARCH,
    body: SearchBody,
    maxArgumentBytes: SEARCH_BODY_BYTES,
    readOnly: false,
    charges: true,
    run: async ({ search }, args, { principal, request, reply }) => {
      const outcome = await search.search(principal, { ...args, stream: false }, request, reply);
      if (!outcome) throw new Error('the unified search answered no outcome');
      return outcome;
    },
    summarize: (outcome) =>
      `${outcome.credits_charged} credit(s) charged.${outcome.partial ? ' PARTIAL: not every dataset answered.' : ''}\n` +
      statusLines(outcome.per_type_status, (dataset) => ({
        rows: outcome.results[dataset]?.length ?? 0,
        total: outcome.totals[dataset]?.count ?? null,
        lowerBound: outcome.totals[dataset]?.lower_bound ?? false,
      })),
  }),
  tool({
    name: 'search_next_page',
    title: 'Next page of one dataset',
    description:
      'The next page (2 or more) of one dataset of a unified search: pass the same raw_query, time_frame, broad ' +
      'and per_type_limit. Depth pricing: a page costs the dataset price ' +
      `(${PRICES}) times the multiplier of its first record's position: ${DEPTH}. Paging stops at ` +
      `${MAX_SEARCH_OFFSET} records (use an export to read further). A page past the last record is free. ` +
      NOT_ZERO,
    input: nextPageInput,
    output: nextPageOutput,
    access: SEARCH,
    body: SearchMoreBody,
    maxArgumentBytes: SEARCH_BODY_BYTES,
    readOnly: false,
    charges: true,
    run: ({ search }, args, { principal, request, reply }) => search.more(principal, args, request, reply),
    summarize: (page) =>
      `${page.credits_charged} credit(s) charged.\n` +
      statusLines({ [page.dataset]: page.status }, () => ({
        rows: page.results.length,
        total: page.total,
        lowerBound: page.lower_bound,
      })),
  }),
  tool({
    name: 'search_dataset',
    title: 'Single-dataset search',
    description:
      'Search one dataset (hosts, dns, vhosts, whois) with paging (results_per_page 10, 30 or 50) and optional ' +
      'field selection (include), or facet counts of its fields (aggregate: true, costs one first page). Costs ' +
      `the dataset price (${PRICES}) times the depth multiplier (${DEPTH}). A dataset that does not answer is an ` +
      'error (lookup_unavailable or not_ready), never an empty result.',
    input: datasetSearchInput,
    output: datasetSearchOutput,
    access: SEARCH,
    body: DatasetSearchBody,
    pathParameters: ['dataset'],
    maxArgumentBytes: SEARCH_BODY_BYTES,
    readOnly: false,
    charges: true,
    run: ({ search }, { dataset, ...body }, { principal, request, reply }) =>
      search.dataset(principal, dataset, body, request, reply),
  }),
  tool({
    name: 'search_fields',
    title: 'Query vocabulary and prices',
    description:
      'The searchable fields of each dataset (name, type, whether aggregatable, the entitlement a field needs), ' +
      'the prices and the pricing rules. Free. Read it before writing field:value queries.',
    input: noInput,
    output: fieldsOutput,
    access: SEARCH,
    readOnly: true,
    charges: false,
    run: async ({ search }) => search.fields(),
  }),
  tool({
    name: 'enrich_vulnerabilities',
    title: 'CVE/KEV findings for a host result',
    description:
      'Catalogue association of the software observed on a host with published advisories (CVE) and the KEV ' +
      'catalogue: pass the vulnerability_ref of a hosts result (raw.vulnerability_ref). Free (no search charge); ' +
      'the asset is not contacted; at most 60 calls per minute per account. A finding does not confirm ' +
      'configuration, exploitability, ownership or current state; only a complete no_match is a completed ' +
      'negative lookup, and even that is not a security assessment. Raw CPE names (cpes) need the Enterprise ' +
      'CPE entitlement.',
    input: vulnerabilitiesInput,
    output: vulnerabilitiesOutput,
    access: ENRICH,
    body: VulnerabilityEnrichmentBody,
    maxArgumentBytes: 100 * 1024,
    readOnly: true,
    charges: false,
    run: ({ enrichment }, args, { principal }) => enrichment.vulnerabilities(principal, args),
  }),
  tool({
    name: 'enrich_badges',
    title: 'Contextual badges for result items',
    description:
      'Contextual badges (known exploited, CVE count, shared edge, certificate expiry, recent registration, ...) ' +
      'for up to 50 result items, each {key, type, value} with the item type host, domain, ip, cert, whois or ' +
      'dns. Free. A badge may carry a search criterion for a related search; the optional record is context ' +
      'and never trusted as evidence. An item with status unavailable was not evaluated (not "no badges").',
    input: badgesInput,
    output: badgesOutput,
    access: ENRICH,
    body: BadgeEnrichmentBody,
    maxArgumentBytes: 256 * 1024,
    readOnly: true,
    charges: false,
    run: ({ enrichment }, args, { principal }) => enrichment.badges(principal, args),
  }),
  tool({
    name: 'credits',
    title: 'Credit balance and usage',
    description:
      "The account's credit state (monthly allocation, used this cycle, purchased balance, plan) and this " +
      "cycle's usage by category; usage_mcp is the part spent through MCP clients (a subset of usage). Free.",
    input: noInput,
    output: creditsOutput,
    access: CREDITS,
    readOnly: true,
    charges: false,
    run: async ({ credits }, _args, { principal }) => {
      const [state, usage] = await Promise.all([
        credits.creditState(principal.accountId),
        credits.usage(principal.accountId),
      ]);
      return { state, usage };
    },
  }),
  tool({
    name: 'export_estimate',
    title: 'Estimate an export',
    description:
      'How many rows an export of a query would write, the results quota before and after, whether it would be ' +
      'partial (credits or quota) and the file size. Free. Exports cost 1 credit per 100 rows written.',
    input: exportEstimateInput,
    output: exportEstimateOutput,
    access: EXPORT,
    body: ExportEstimateBody,
    pathParameters: ['search_type'],
    readOnly: true,
    charges: false,
    run: ({ exportEstimates }, { search_type, ...body }, { principal, request }) =>
      exportEstimates.estimate(principal, search_type, body, envelopeFor(principal, String(request.id))),
  }),
  tool({
    name: 'export_start',
    title: 'Start an export',
    description:
      'Start an asynchronous export of a query to a json, csv or txt file. Costs ceil(rows / 100) credits on ' +
      'the rows written; when credits or the quota cannot cover every row the export is truncated to what they ' +
      'cover. Estimate first with export_estimate; then poll export_status with the export_id.',
    input: exportStartInput,
    output: exportStartOutput,
    access: EXPORT,
    body: ExportRequestBody,
    pathParameters: ['search_type'],
    readOnly: false,
    charges: true,
    run: async ({ commands, exportPool }, { search_type, ...body }, { principal, request }) => {
      const created = await commands.execute(
        new RequestExport(principal, search_type, body, envelopeFor(principal, String(request.id))),
      );
      exportPool.nudge();
      return created;
    },
  }),
  tool({
    name: 'export_status',
    title: 'Export status and download link',
    description:
      'The export job: status (pending, processing, completed, failed, cancelled), rows written, credits ' +
      'consumed, truncation, expiry. Once completed, download_url is the file: GET it with the same ' +
      'Authorization: Bearer credential this MCP connection uses (Accept-Encoding: gzip for the stored bytes).',
    input: exportStatusInput,
    output: exportStatusOutput,
    access: EXPORT_RESULT,
    readOnly: true,
    charges: false,
    run: async ({ exportQueries, clock }, { export_id }, { principal, publicOrigin }) => {
      const view = exportQueries.view(await exportQueries.owned(principal.accountId, export_id), clock.now());
      return {
        ...view,
        download_url: view.file_available
          ? `${publicOrigin}/api/v2/common/exports/${encodeURIComponent(view.id)}/download`
          : null,
      };
    },
  }),
];
