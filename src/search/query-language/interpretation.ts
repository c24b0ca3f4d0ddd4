import { fieldNamed, type Dataset } from '../domain/datasets.js';
import { QuerySyntaxError, type Match, type QueryNode, type Span } from './ast.js';
import { parseQuery } from './parser.js';
import { datasetNoun, normalizeMatch, parseCidr, parseIp } from './validation.js';

/**
 * Smart interpretation of bare words and phrases (terms without a field), per dataset. Pure.
 *
 * With `broad: false`, an unquoted word is recognized as:
 * - an IP address → hosts `ip`, vhosts `ip`, dns `value` (exact, canonical form); whois: not applicable;
 * - a CIDR block → hosts `ip`, vhosts `ip` as a CIDR match; dns and whois: not applicable (the observation index
 *   takes CIDR matches on ip fields only; dns `value` is a keyword field);
 * - a domain name (a dot, valid labels, a letter in the last label; IDN converted to punycode) → hosts
 *   `hostnames` OR `tls.san`; dns `name` exact OR suffix `.domain`; vhosts `names` OR `subject.cn`; whois `domain`;
 * - a CVE identifier (`CVE-YYYY-NNNN…`) → the hosts `cve:` selector; other datasets: not applicable;
 * - anything else → a case-insensitive contains over the dataset's text-ish fields (TEXT_FIELDS).
 * A quoted phrase is always text (quoting is the way to search "1.2.3.4" as text). With `broad: true` every
 * bare input is text. "Not applicable" throws QuerySyntaxError for that dataset only (its state is invalid_query).
 */

export interface InterpretOptions {
  readonly broad: boolean;
}

export type BareKind = 'ip' | 'cidr' | 'domain' | 'cve' | 'text';

/** The fields a bare word or phrase is searched in (case-insensitive contains). */
export const TEXT_FIELDS: Readonly<Record<Dataset, readonly string[]>> = {
  hosts: ['http.title', 'banner', 'product', 'organization'],
  dns: ['name', 'value'],
  vhosts: ['subject.cn', 'names', 'issuer.organization'],
  whois: ['domain', 'registrar', 'registrant.organization'],
};

const CVE_ID = /^CVE-\d{4}-\d{4,}$/i;

/** What a bare input is taken for. */
export function classifyBare(text: string, quoted: boolean, broad = false): BareKind {
  if (broad || quoted) return 'text';
  if (parseIp(text)) return 'ip';
  if (text.includes('/') && parseCidr(text)) return 'cidr';
  if (CVE_ID.test(text)) return 'cve';
  if (toDomain(text) !== undefined) return 'domain';
  return 'text';
}

/** Replaces every `bare` node for `dataset`; other nodes are returned as they are. */
export function interpret(ast: QueryNode, dataset: Dataset, options: InterpretOptions): QueryNode {
  switch (ast.kind) {
    case 'and':
    case 'or': {
      const children: QueryNode[] = [];
      for (const child of ast.children) {
        const replaced = interpret(child, dataset, options);
        if (replaced.kind === ast.kind) children.push(...replaced.children);
        else children.push(replaced);
      }
      return { kind: ast.kind, children, span: ast.span };
    }
    case 'not':
      return { kind: 'not', child: interpret(ast.child, dataset, options), span: ast.span };
    case 'bare':
      return interpretBare(ast, dataset, options.broad);
    default:
      return ast;
  }
}

function interpretBare(
  node: Extract<QueryNode, { kind: 'bare' }>,
  dataset: Dataset,
  broad: boolean,
): QueryNode {
  const { span } = node;
  const kind = classifyBare(node.text, node.quoted, broad);
  const notApplicable = (what: string): never => {
    throw new QuerySyntaxError(`${what} does not apply to ${datasetNoun(dataset)}`, span.start);
  };
  switch (kind) {
    case 'ip': {
      const field = ADDRESS_FIELD[dataset];
      if (!field) return notApplicable(`the IP address ${node.text}`);
      return fieldNode(field, { kind: 'exact', value: node.text }, span);
    }
    case 'cidr': {
      const field = CIDR_FIELD[dataset];
      if (!field) return notApplicable(`the CIDR block ${node.text}`);
      return fieldNode(field, { kind: 'exact', value: node.text }, span);
    }
    case 'cve':
      if (dataset !== 'hosts') return notApplicable(`the CVE identifier ${node.text}`);
      return { kind: 'selector', selector: 'cve', value: node.text.toUpperCase(), span };
    case 'domain': {
      const domain = toDomain(node.text)!;
      const exact = (field: string) => fieldNode(field, { kind: 'exact', value: domain }, span);
      switch (dataset) {
        case 'hosts':
          return anyOf([exact('hostnames'), exact('tls.san')], span);
        case 'dns':
          return anyOf(
            [exact('name'), fieldNode('name', { kind: 'suffix', value: `.${domain}` }, span)],
            span,
          );
        case 'vhosts':
          return anyOf([exact('names'), exact('subject.cn')], span);
        case 'whois':
          return exact('domain');
      }
      break;
    }
    case 'text':
      break;
  }
  const value = node.quoted ? node.text : trimStars(node.text);
  if (value === '')
    throw new QuerySyntaxError('a bare "*" matches nothing specific: use field:value', span.start);
  return anyOf(
    TEXT_FIELDS[dataset].map((field) => fieldNode(field, { kind: 'contains', value }, span)),
    span,
  );
}

const ADDRESS_FIELD: Readonly<Record<Dataset, string | undefined>> = {
  hosts: 'ip',
  vhosts: 'ip',
  dns: 'value',
  whois: undefined,
};

/** Fields of type ip: the only ones the observation index compares with a CIDR block. */
const CIDR_FIELD: Readonly<Record<Dataset, string | undefined>> = {
  hosts: 'ip',
  vhosts: 'ip',
  dns: undefined,
  whois: undefined,
};

function fieldNode(field: string, match: Match, span: Span): QueryNode {
  return { kind: 'field', field, match: normalizeMatch(fieldNamed(field)!, match, span.start), span };
}

function anyOf(children: QueryNode[], span: Span): QueryNode {
  return children.length === 1 ? children[0]! : { kind: 'or', children, span };
}

function trimStars(text: string): string {
  return text.replace(/^\*+/, '').replace(/\*+$/, '');
}

const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;
const TOP_LABEL = /^(?=.*[a-z])[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** A domain name in lower-case ASCII (IDN labels as punycode, one trailing dot dropped), or undefined. */
export function toDomain(text: string): string | undefined {
  let name = text.endsWith('.') ? text.slice(0, -1) : text;
  if (!name.includes('.') || name.length > 253 || /[\s/?#@:[\]\\%*]/.test(name)) return undefined;
  if (/[^\x20-\x7e]/.test(name)) {
    try {
      name = new URL(`http://${name}/`).hostname;
    } catch {
      return undefined;
    }
  }
  name = name.toLowerCase();
  const labels = name.split('.');
  if (labels.length < 2 || name.length > 253) return undefined;
  const top = labels[labels.length - 1]!;
  if (!TOP_LABEL.test(top)) return undefined;
  return labels.slice(0, -1).every((label) => LABEL.test(label)) ? name : undefined;
}

// ---- descriptions ------------------------------------------------------------------------------------------

const KIND_LABEL: Readonly<Record<BareKind, string>> = {
  ip: 'IP address',
  cidr: 'CIDR block',
  domain: 'domain name',
  cve: 'CVE identifier',
  text: 'text',
};

/**
 * Short human text of how the bare words and phrases of `raw` are searched in `dataset`, e.g.
 * `8.8.8.8 (IP address): value is 8.8.8.8`. Fielded terms are matched as written and not described.
 * Throws QuerySyntaxError when `raw` does not parse.
 */
export function describeInterpretation(
  raw: string,
  dataset: Dataset,
  options: InterpretOptions = { broad: false },
): string {
  const bares: Array<Extract<QueryNode, { kind: 'bare' }>> = [];
  const walk = (node: QueryNode): void => {
    if (node.kind === 'bare') bares.push(node);
    else if (node.kind === 'and' || node.kind === 'or') node.children.forEach(walk);
    else if (node.kind === 'not') walk(node.child);
  };
  walk(parseQuery(raw));
  if (bares.length === 0) return 'every term names its field: matched as written';
  return bares
    .map((bare) => {
      const label = `${bare.quoted ? `"${bare.text}"` : bare.text} (${KIND_LABEL[classifyBare(bare.text, bare.quoted, options.broad)]})`;
      try {
        return `${label}: ${describeNode(interpretBare(bare, dataset, options.broad))}`;
      } catch (error) {
        if (!(error instanceof QuerySyntaxError)) throw error;
        return `${label}: not applicable to ${datasetNoun(dataset)} (invalid_query)`;
      }
    })
    .join('; ');
}

/** The interpretation rules of one dataset, for the docs and the fields endpoint. */
export function interpretationRules(dataset: Dataset): string {
  const address = ADDRESS_FIELD[dataset];
  const block = CIDR_FIELD[dataset];
  const parts = [
    address ? `an IP address searches ${address}` : 'an IP address does not apply',
    block ? `a CIDR block searches ${block}` : 'a CIDR block does not apply',
    `a domain name searches ${DOMAIN_RULE[dataset]}`,
    dataset === 'hosts' ? 'a CVE identifier is the cve: selector' : 'a CVE identifier does not apply',
    `any other word or "quoted phrase" is a case-insensitive contains over ${TEXT_FIELDS[dataset].join(', ')}`,
  ];
  return `${parts.join('; ')}. broad=true treats every bare input as text.`;
}

const DOMAIN_RULE: Readonly<Record<Dataset, string>> = {
  hosts: 'hostnames or tls.san (exact)',
  dns: 'name, exact or as a parent domain (*.domain)',
  vhosts: 'names or subject.cn (exact)',
  whois: 'domain (exact)',
};

function describeNode(node: QueryNode): string {
  switch (node.kind) {
    case 'or':
      return node.children.map(describeNode).join(', or ');
    case 'selector':
      return `hosts associated in the catalogue with ${node.value}`;
    case 'field':
      return `${node.field} ${describeMatch(node.match)}`;
    default:
      return node.kind;
  }
}

function describeMatch(match: Match): string {
  switch (match.kind) {
    case 'exact':
      return `is ${String(match.value)}`;
    case 'prefix':
      return `starts with ${match.value}`;
    case 'suffix':
      return `ends with ${match.value}`;
    case 'contains':
      return `contains "${match.value}"`;
    case 'cidr':
      return `is in ${match.network}/${match.prefixLength}`;
    case 'range':
      return 'is in a range';
  }
}

// ---- AST facts ---------------------------------------------------------------------------------------------

/**
 * Every vocabulary field the query references, in order of first appearance, negated branches included (a
 * filter under NOT still filters on the field). Selectors and bare words are not fields: run it on the parsed
 * AST for the user's own fields, or on an interpreted AST for everything a dataset will read.
 */
export function collectFields(ast: QueryNode): string[] {
  const seen = new Set<string>();
  const walk = (node: QueryNode): void => {
    switch (node.kind) {
      case 'and':
      case 'or':
        node.children.forEach(walk);
        break;
      case 'not':
        walk(node.child);
        break;
      case 'field':
        seen.add(node.field);
        break;
      default:
        break;
    }
  };
  walk(ast);
  return [...seen];
}

/** A favicon search (priced 5 credits): the query filters on favicon.hash anywhere, negations included. */
export function usesFavicon(ast: QueryNode): boolean {
  return collectFields(ast).includes('favicon.hash');
}
