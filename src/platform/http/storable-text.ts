import type { FastifyRequest } from 'fastify';
import { ServiceError } from '../errors/service-error.js';

/** One refused field, in the shape the validation pipe reports (`details.fields`). */
export interface FieldProblem {
  readonly field: string;
  readonly problems: string[];
}

/**
 * Problems of the strings in a value that PostgreSQL cannot store: a NUL character (refused by text and jsonb)
 * or a lone UTF-16 surrogate (not Unicode; jsonb refuses its escape, text would store U+FFFD instead). Keys of
 * objects are checked like values. `path` names the value the way the validation pipe names fields.
 */
export function unstorableText(value: unknown, path: string): FieldProblem[] {
  const found: FieldProblem[] = [];
  visit(value, path, found);
  return found;
}

/**
 * The one check every route goes through (a preValidation hook, before guards, pipes and handlers): a NUL or a
 * lone surrogate anywhere in the path parameters, the query string or the JSON body is 422 invalid_input
 * naming the field, so such text never reaches a reservation, an event or a query. Headers need no check: the
 * HTTP parser refuses NUL in them and decodes them as latin1, which has no surrogates.
 */
export function refuseUnstorableText(request: FastifyRequest): void {
  const found = [
    ...unstorableText(request.params, ''),
    ...unstorableText(request.query, ''),
    ...unstorableText(request.body, ''),
  ];
  if (found.length > 0) {
    throw new ServiceError('invalid_input', 'the request is not valid', { fields: found });
  }
}

function visit(value: unknown, path: string, found: FieldProblem[]): void {
  if (typeof value === 'string') {
    const problems = textProblems(value);
    if (problems.length > 0) {
      const field = path || 'body';
      found.push({ field, problems: problems.map((problem) => `${field} ${problem}`) });
    }
    return;
  }
  if (Array.isArray(value)) {
    // JSON bodies are at most MAX_JSON_DEPTH deep, so the recursion is bounded.
    value.forEach((item, index) => visit(item, join(path, String(index)), found));
    return;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      const keyProblems = textProblems(key);
      const field = join(path, printable(key));
      if (keyProblems.length > 0) {
        found.push({ field, problems: keyProblems.map((problem) => `the property name ${problem}`) });
        continue;
      }
      visit(item, field, found);
    }
  }
}

function textProblems(text: string): string[] {
  const problems: string[] = [];
  if (text.includes('\u0000')) problems.push('must not contain a NUL character (U+0000)');
  if (!text.isWellFormed()) problems.push('must not contain a lone UTF-16 surrogate (not valid Unicode)');
  return problems;
}

/** A key as a field name the client can read back: NUL and lone surrogates spelled as \uXXXX. */
function printable(key: string): string {
  return key.toWellFormed() === key && !key.includes('\u0000')
    ? key
    : Array.from(key, (char) => {
        const code = char.codePointAt(0)!;
        return code === 0 || (code >= 0xd800 && code <= 0xdfff)
          ? `\\u${code.toString(16).padStart(4, '0')}`
          : char;
      }).join('');
}

function join(parent: string, key: string): string {
  return parent ? `${parent}.${key}` : key;
}
