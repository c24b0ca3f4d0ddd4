import { FIELDS, fieldNamed } from '../domain/datasets.js';
import { QuerySyntaxError, type Match, type QueryNode } from './ast.js';
import {
  clip,
  isSelectorField,
  normalizeMatch,
  normalizeSelector,
  parseCidr,
  parseIp,
} from './validation.js';

/**
 * The query language: a hand-written lexer and recursive-descent parser. Pure; safe on any string (every
 * refusal is a QuerySyntaxError with a 0-based position into the trimmed input, never a stack overflow).
 *
 *   query   := or EOF
 *   or      := and ( "OR" and )*
 *   and     := unary ( "AND"? unary )*           adjacent terms are joined by an implicit AND
 *   unary   := ( "NOT" | "-" ) unary | primary   "-" must touch its term: -port:22, -(a b)
 *   primary := "(" or ")" | term
 *   term    := field ":" value | word | "quoted phrase"
 *   value   := word | "quoted" | [lo TO hi] | {lo TO hi} | >n | >=n | <n | <=n
 *
 * Precedence NOT > AND > OR. AND, OR, NOT are keywords only in upper case (`and` is a word). Nested and/or of
 * the same kind are flattened. Field names are case-insensitive (normalized to lower case) and must exist in
 * the vocabulary of some dataset; values are validated and normalized for the field's type here already
 * (types do not depend on the dataset), so `port:abc` is refused for the whole request. Whether a field applies
 * to a given dataset is validation.ts's job.
 *
 * Positions are UTF-16 code-unit offsets (JavaScript string indices) into `raw.trim()`.
 */

export const MAX_QUERY_BYTES = 512;
/** Parentheses and negations (NOT, -) each count one level. */
export const MAX_QUERY_DEPTH = 32;
/** Fields, selectors, bare words and phrases. */
export const MAX_QUERY_TERMS = 64;

export function parseQuery(raw: string): QueryNode {
  if (typeof raw !== 'string') throw new QuerySyntaxError('the query must be a string', 0);
  const text = raw.trim();
  if (text === '') throw new QuerySyntaxError('empty query', 0);
  return new Parser(text).parseAll();
}

type OperatorType = 'lparen' | 'rparen' | 'and' | 'or' | 'not' | 'minus' | 'eof';

type Token =
  | { readonly type: OperatorType; readonly start: number; readonly end: number }
  | { readonly type: 'term'; readonly node: QueryNode; readonly start: number; readonly end: number };

/** A parsed expression and its extent in the text (including any parentheses around it). */
interface Parsed {
  readonly node: QueryNode;
  readonly start: number;
  readonly end: number;
}

const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_.]*$/;
const KEYWORDS: ReadonlyMap<string, 'and' | 'or' | 'not'> = new Map([
  ['AND', 'and'],
  ['OR', 'or'],
  ['NOT', 'not'],
]);

function isSpace(ch: string): boolean {
  return /\s/.test(ch);
}

class Parser {
  private readonly lexer: Lexer;
  private depth = 0;
  private terms = 0;

  constructor(text: string) {
    this.lexer = new Lexer(text);
  }

  parseAll(): QueryNode {
    const result = this.parseOr();
    const next = this.lexer.peek();
    if (next.type === 'rparen')
      throw new QuerySyntaxError('unexpected ")" without a matching "("', next.start);
    if (next.type !== 'eof') throw new QuerySyntaxError('unexpected input', next.start);
    return result.node;
  }

  private parseOr(): Parsed {
    const parts = [this.parseAnd()];
    while (this.lexer.peek().type === 'or') {
      const operator = this.lexer.next();
      if (!startsUnary(this.lexer.peek())) {
        throw new QuerySyntaxError('OR needs a term on its right', operator.start);
      }
      parts.push(this.parseAnd());
    }
    return combine('or', parts);
  }

  private parseAnd(): Parsed {
    const parts = [this.parseUnary()];
    for (;;) {
      const next = this.lexer.peek();
      if (next.type === 'and') {
        this.lexer.next();
        if (!startsUnary(this.lexer.peek())) {
          throw new QuerySyntaxError('AND needs a term on its right', next.start);
        }
        parts.push(this.parseUnary());
      } else if (startsUnary(next)) {
        parts.push(this.parseUnary());
      } else {
        break;
      }
    }
    return combine('and', parts);
  }

  private parseUnary(): Parsed {
    const next = this.lexer.peek();
    if (next.type !== 'not' && next.type !== 'minus') return this.parsePrimary();
    const operator = this.lexer.next();
    this.enter(operator.start);
    if (!startsUnary(this.lexer.peek())) {
      throw new QuerySyntaxError(
        operator.type === 'not' ? 'NOT needs a term on its right' : '"-" needs a term right after it',
        operator.start,
      );
    }
    const child = this.parseUnary();
    this.depth--;
    const span = { start: operator.start, end: child.end };
    return { node: { kind: 'not', child: child.node, span }, ...span };
  }

  private parsePrimary(): Parsed {
    const token = this.lexer.next();
    switch (token.type) {
      case 'term': {
        this.terms++;
        if (this.terms > MAX_QUERY_TERMS) {
          throw new QuerySyntaxError(`the query has more than ${MAX_QUERY_TERMS} terms`, token.start);
        }
        return { node: token.node, start: token.start, end: token.end };
      }
      case 'lparen': {
        this.enter(token.start);
        if (this.lexer.peek().type === 'rparen') throw new QuerySyntaxError('empty parentheses', token.start);
        const inner = this.parseOr();
        const close = this.lexer.next();
        if (close.type !== 'rparen') {
          throw new QuerySyntaxError(
            `expected ")" to close the parenthesis opened at ${token.start}`,
            close.start,
          );
        }
        this.depth--;
        return { node: inner.node, start: token.start, end: close.end };
      }
      case 'and':
        throw new QuerySyntaxError('AND needs a term on its left', token.start);
      case 'or':
        throw new QuerySyntaxError('OR needs a term on its left', token.start);
      case 'rparen':
        throw new QuerySyntaxError('unexpected ")" without a matching "("', token.start);
      default:
        throw new QuerySyntaxError('the query ends where a term was expected', token.start);
    }
  }

  private enter(position: number): void {
    this.depth++;
    if (this.depth > MAX_QUERY_DEPTH) {
      throw new QuerySyntaxError(`the query nests more than ${MAX_QUERY_DEPTH} levels deep`, position);
    }
  }
}

function startsUnary(token: Token): boolean {
  return token.type === 'term' || token.type === 'lparen' || token.type === 'not' || token.type === 'minus';
}

function combine(kind: 'and' | 'or', parts: readonly Parsed[]): Parsed {
  const first = parts[0]!;
  if (parts.length === 1) return first;
  const children: QueryNode[] = [];
  for (const part of parts) {
    if (part.node.kind === kind) children.push(...part.node.children);
    else children.push(part.node);
  }
  const span = { start: first.start, end: parts[parts.length - 1]!.end };
  return { node: { kind, children, span }, ...span };
}

// ---- lexer -------------------------------------------------------------------------------------------------

interface Word {
  /** With escapes resolved. */
  readonly text: string;
  readonly end: number;
  /** Unescaped `*`: index in `text` and offset in the query. */
  readonly stars: ReadonlyArray<{ readonly index: number; readonly at: number }>;
}

class Lexer {
  private pos = 0;
  private lookahead: Token | undefined;

  constructor(private readonly text: string) {}

  peek(): Token {
    this.lookahead ??= this.scan();
    return this.lookahead;
  }

  next(): Token {
    const token = this.peek();
    this.lookahead = undefined;
    return token;
  }

  private scan(): Token {
    const text = this.text;
    while (this.pos < text.length && isSpace(text[this.pos]!)) this.pos++;
    const start = this.pos;
    const ch = text[start];
    if (ch === undefined) return { type: 'eof', start, end: start };
    if (ch === '(' || ch === ')') {
      this.pos++;
      return { type: ch === '(' ? 'lparen' : 'rparen', start, end: start + 1 };
    }
    if (ch === '-') {
      const after = text[start + 1];
      if (after === undefined || isSpace(after) || after === ')') {
        throw new QuerySyntaxError('"-" needs a term right after it', start);
      }
      this.pos++;
      return { type: 'minus', start, end: start + 1 };
    }
    if (ch === '"') {
      const quoted = readQuoted(text, start);
      if (quoted.text === '') throw new QuerySyntaxError('empty quoted phrase ""', start);
      return this.term({ kind: 'bare', text: quoted.text, quoted: true, span: { start, end: quoted.end } });
    }
    let headEnd = start;
    while (headEnd < text.length && !isHeadStop(text[headEnd]!)) headEnd++;
    const head = text.slice(start, headEnd);
    const stop = text[headEnd];
    const keyword = KEYWORDS.get(head);
    if (keyword && stop !== ':' && stop !== '\\') {
      this.pos = headEnd;
      return { type: keyword, start, end: headEnd };
    }
    if (stop === ':') {
      const name = head.toLowerCase();
      if (isSelectorField(name) || fieldNamed(name))
        return this.term(this.fieldTerm(start, name, headEnd + 1));
      const word = readWord(text, start);
      const after = text[headEnd + 1];
      const looksLikeAddress = parseIp(word.text) !== undefined || parseCidr(word.text) !== undefined;
      if (!looksLikeAddress && after !== '/' && after !== ':') {
        if (head === '') throw new QuerySyntaxError('":" needs a field name right before it', start);
        if (FIELD_NAME.test(head)) throw new QuerySyntaxError(unknownFieldMessage(head), start);
      }
      return this.term(bareWord(word, start));
    }
    return this.term(bareWord(readWord(text, start), start));
  }

  private term(node: QueryNode): Token {
    this.pos = node.span.end;
    return { type: 'term', node, start: node.span.start, end: node.span.end };
  }

  /** `name:` has been read; the value starts at `at`. */
  private fieldTerm(start: number, name: string, at: number): QueryNode {
    const text = this.text;
    const selector = isSelectorField(name) ? name : undefined;
    const code = selector ? 'invalid_cve_selector' : 'invalid_query';
    const ch = text[at];
    if (ch === undefined || isSpace(ch) || ch === ')') {
      throw new QuerySyntaxError(`"${name}" needs a value right after ":"`, at, code);
    }
    if (ch === '(') {
      throw new QuerySyntaxError(
        `"${name}:(…)" groups are not supported: write ${name}:a OR ${name}:b`,
        at,
        code,
      );
    }
    let raw: Match;
    let end: number;
    if (ch === '"') {
      const quoted = readQuoted(text, at);
      if (quoted.text === '') throw new QuerySyntaxError(`"${name}" needs a value, "" is empty`, at, code);
      if (selector) return this.selectorNode(selector, quoted.text, start, at, quoted.end);
      raw = { kind: 'exact', value: quoted.text };
      end = quoted.end;
    } else if (ch === '[' || ch === '{' || ch === '>' || ch === '<') {
      if (selector) {
        throw new QuerySyntaxError(`${selector}: does not take a range or a comparison`, at, code);
      }
      const ordered = ch === '[' || ch === '{' ? readRange(text, at) : readComparison(text, at);
      raw = ordered.match;
      end = ordered.end;
    } else {
      const word = readWord(text, at);
      if (selector) return this.selectorNode(selector, word.text, start, at, word.end);
      raw = wordMatch(name, word, at);
      end = word.end;
    }
    const definition = fieldNamed(name)!;
    const match = normalizeMatch(definition, raw, at);
    return { kind: 'field', field: name, match, span: { start, end } };
  }

  private selectorNode(
    selector: 'cve' | 'kev',
    value: string,
    start: number,
    at: number,
    end: number,
  ): QueryNode {
    return {
      kind: 'selector',
      selector,
      value: normalizeSelector(selector, value, at),
      span: { start, end },
    };
  }
}

/** The run that may be a field name or a keyword stops at spaces, parentheses, quotes, colons and escapes. */
function isHeadStop(ch: string): boolean {
  return ch === ':' || ch === '(' || ch === ')' || ch === '"' || ch === '\\' || isSpace(ch);
}

/** An unquoted word: up to a space, a parenthesis or a quote; `\x` takes x literally (also `\*`). */
function readWord(text: string, start: number): Word {
  let out = '';
  const stars: Array<{ index: number; at: number }> = [];
  let i = start;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '(' || ch === ')' || ch === '"' || isSpace(ch)) break;
    if (ch === '\\') {
      const escaped = text[i + 1];
      if (escaped === undefined)
        throw new QuerySyntaxError('"\\" at the end of the query escapes nothing', i);
      out += escaped;
      i += 2;
      continue;
    }
    if (ch === '*') stars.push({ index: out.length, at: i });
    out += ch;
    i++;
  }
  return { text: out, end: i, stars };
}

/** `"..."` starting at `start`; `\"` and `\\` are escapes, any other backslash is kept as typed. */
function readQuoted(text: string, start: number): { text: string; end: number } {
  let out = '';
  let i = start + 1;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '"') return { text: out, end: i + 1 };
    if (ch === '\\' && (text[i + 1] === '"' || text[i + 1] === '\\')) {
      out += text[i + 1];
      i += 2;
      continue;
    }
    out += ch;
    i++;
  }
  throw new QuerySyntaxError(`unterminated quote: the phrase opened at ${start} needs a closing "`, start);
}

function bareWord(word: Word, start: number): QueryNode {
  if (word.stars.length === word.text.length) {
    throw new QuerySyntaxError('a bare "*" matches nothing specific: use field:value', start);
  }
  return { kind: 'bare', text: word.text, quoted: false, span: { start, end: word.end } };
}

/** Wildcards: `abc*` prefix, `*abc` suffix, `*abc*` contains (text fields only); `*` elsewhere is refused. */
function wordMatch(name: string, word: Word, at: number): Match {
  const { text, stars } = word;
  if (stars.length === 0) return { kind: 'exact', value: text };
  if (stars.length === text.length) {
    throw new QuerySyntaxError(
      `"${name}:*" would match any value: give a value or a prefix such as abc*`,
      at,
    );
  }
  const last = text.length - 1;
  const internal = stars.find((star) => star.index !== 0 && star.index !== last);
  if (internal) {
    throw new QuerySyntaxError('wildcards are only allowed at the start or end of a value', internal.at);
  }
  const leading = stars.some((star) => star.index === 0);
  const trailing = stars.some((star) => star.index === last);
  const core = text.slice(leading ? 1 : 0, trailing ? last : text.length);
  if (leading && trailing) {
    const type = fieldNamed(name)?.type;
    if (type === 'keyword') {
      throw new QuerySyntaxError(
        `"${name}" takes prefix (abc*) and suffix (*abc) wildcards; *abc* (contains) is only for text fields such as http.title and banner`,
        at,
      );
    }
    return { kind: 'contains', value: core };
  }
  return leading ? { kind: 'suffix', value: core } : { kind: 'prefix', value: core };
}

function skipSpaces(text: string, i: number): number {
  while (i < text.length && isSpace(text[i]!)) i++;
  return i;
}

function readBound(text: string, start: number): { text: string; end: number } {
  let i = start;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === ']' || ch === '}' || ch === '(' || ch === ')' || isSpace(ch)) break;
    i++;
  }
  return { text: text.slice(start, i), end: i };
}

/** `[lo TO hi]`, `{lo TO hi}` (exclusive), mixed brackets allowed; `*` is an open end. */
function readRange(text: string, at: number): { match: Match; end: number } {
  let i = skipSpaces(text, at + 1);
  const lower = readBound(text, i);
  if (lower.text === '') throw new QuerySyntaxError(`the range opened at ${at} needs a lower bound`, i);
  i = skipSpaces(text, lower.end);
  const to = text[i + 2];
  if (
    i === lower.end ||
    !text.startsWith('TO', i) ||
    (to !== undefined && !isSpace(to) && to !== ']' && to !== '}')
  ) {
    throw new QuerySyntaxError(`expected "TO" between the bounds of the range opened at ${at}`, i);
  }
  i = skipSpaces(text, i + 2);
  const upper = readBound(text, i);
  if (upper.text === '') throw new QuerySyntaxError(`the range opened at ${at} needs an upper bound`, i);
  i = skipSpaces(text, upper.end);
  const close = text[i];
  if (close !== ']' && close !== '}') {
    throw new QuerySyntaxError(`expected "]" or "}" to close the range opened at ${at}`, i);
  }
  const lowerInclusive = text[at] === '[';
  const upperInclusive = close === ']';
  const match: Match = {
    kind: 'range',
    ...(lower.text === '*' ? {} : { lower: { value: lower.text, inclusive: lowerInclusive } }),
    ...(upper.text === '*' ? {} : { upper: { value: upper.text, inclusive: upperInclusive } }),
  };
  return { match, end: i + 1 };
}

/** `>n`, `>=n`, `<n`, `<=n`. */
function readComparison(text: string, at: number): { match: Match; end: number } {
  const operator =
    text.startsWith('>=', at) || text.startsWith('<=', at) ? text.slice(at, at + 2) : text[at]!;
  const valueAt = at + operator.length;
  const word = readWord(text, valueAt);
  if (word.text === '') throw new QuerySyntaxError(`"${operator}" needs a value right after it`, valueAt);
  const inclusive = operator.length === 2;
  const bound = { value: word.text, inclusive };
  const match: Match = operator.startsWith('>')
    ? { kind: 'range', lower: bound }
    : { kind: 'range', upper: bound };
  return { match, end: word.end };
}

// ---- unknown fields ----------------------------------------------------------------------------------------

const KNOWN_NAMES: readonly string[] = [...FIELDS.map((field) => field.name), 'cve', 'kev'];

function unknownFieldMessage(head: string): string {
  const suggestion = suggestField(head);
  return suggestion
    ? `unknown field "${clip(head)}" (did you mean "${suggestion}"?)`
    : `unknown field "${clip(head)}"`;
}

/**
 * The closest known name: one edit away (adjacent transpositions count one), else a dotted name ending in it
 * (`title` → `http.title`), else two edits away for names longer than four characters.
 */
export function suggestField(name: string): string | undefined {
  if (name.length > 64) return undefined;
  const lower = name.toLowerCase();
  const limit = lower.length <= 4 ? 1 : 2;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of KNOWN_NAMES) {
    const distance = editDistance(lower, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  if (best !== undefined && bestDistance <= 1) return best;
  const dotted = KNOWN_NAMES.find((candidate) => candidate.endsWith(`.${lower}`));
  if (dotted) return dotted;
  return best !== undefined && bestDistance <= limit ? best : undefined;
}

/** Optimal string alignment distance (Levenshtein plus adjacent transpositions). */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, d[i - 2]![j - 2]! + 1);
      }
      d[i]![j] = value;
    }
  }
  return d[rows - 1]![cols - 1]!;
}
