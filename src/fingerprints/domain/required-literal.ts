/**
 * A prefilter for Recog patterns (ADR 101): the longest run of plain ASCII characters every match must contain,
 * read from the Ruby pattern's top level (no alternation there; groups, classes and escapes other than escaped
 * punctuation end a run; a character made optional by `?`, `*`, `{0,…}` ends it too). A text whose lowercase
 * form lacks the run's lowercase form cannot match, whatever the pattern's case options (non-Unicode `i` folds an
 * ASCII letter only to its ASCII case pair), so the regular expression is not run. Null: no certain run of at
 * least MIN_LENGTH characters.
 */
const MIN_LENGTH = 3;
const QUANTIFIER = /^(?:[?*+]|\{\d*(?:,\d*)?\})[?+]?/;

export function requiredLiteral(pattern: string): string | null {
  const runs: string[] = [];
  let run = '';
  let depth = 0;
  const end = (): void => {
    if (run.length > 0) runs.push(run);
    run = '';
  };
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i]!;
    // One atom: [start, next) and, when it is a literal character, that character.
    let literal: string | null = null;
    let next = i + 1;
    if (c === '\\') {
      const escaped = pattern[i + 1];
      if (escaped === undefined || escaped === 'Q') return null;
      next = i + 2;
      if (/[^A-Za-z0-9]/.test(escaped) && escaped.charCodeAt(0) < 0x7f) literal = escaped;
    } else if (c === '[') {
      next = skipClass(pattern, i) + 1;
      if (next === 0) return null;
    } else if (c === '(') {
      depth += 1;
      end();
      i += 1;
      continue;
    } else if (c === ')') {
      depth -= 1;
      end();
      // The group's quantifier is no character of a run.
      i += 1 + (QUANTIFIER.exec(pattern.slice(i + 1))?.[0].length ?? 0);
      continue;
    } else if (c === '|') {
      if (depth === 0) return null;
    } else if (!'^$.'.includes(c) && c.charCodeAt(0) >= 0x20 && c.charCodeAt(0) < 0x7f) literal = c;
    const quantifier = QUANTIFIER.exec(pattern.slice(next));
    const after = quantifier ? next + quantifier[0].length : next;
    if (depth > 0) {
      i = after;
      continue;
    }
    if (literal === null || (quantifier && optional(quantifier[0]))) end();
    else {
      run += literal;
      if (quantifier) end(); // `a+`, `a{2,}`: the character is there, what follows it may not be next
    }
    i = after;
  }
  if (depth !== 0) return null;
  end();
  const longest = runs.reduce((best, candidate) => (candidate.length > best.length ? candidate : best), '');
  return longest.length >= MIN_LENGTH ? longest.toLowerCase() : null;
}

function optional(quantifier: string): boolean {
  return /^[?*]/.test(quantifier) || /^\{0*(?:,|\})/.test(quantifier) || quantifier.startsWith('{,');
}

/** The index of the `]` closing the class opened at `at` (Ruby: a `]` right after `[` or `[^` is literal), or -1. */
function skipClass(pattern: string, at: number): number {
  let i = at + 1;
  if (pattern[i] === '^') i += 1;
  if (pattern[i] === ']') i += 1;
  let depth = 1;
  for (; i < pattern.length; i += 1) {
    const c = pattern[i]!;
    if (c === '\\') i += 1;
    else if (c === '[') depth += 1;
    else if (c === ']') {
      depth -= 1;
      if (depth === 0) return i;
    }
  }
  return -1;
}
