/**
 * Recog patterns are Ruby (Onigmo) regular expressions, also run by Recog's Java port. This translates one into
 * a JavaScript RegExp with the same meaning (ADR 101), or refuses it naming the construct it cannot express.
 *
 * - Flags: REG_ICASE → `i`; REG_DOT_NEWLINE, REG_MULTILINE and REG_LINE_ANY_CRLF all become Ruby's MULTILINE
 *   (as Recog's RegexpFactory maps them), which is "dot matches a newline".
 * - Ruby's `^`/`$` are always line anchors at `\n` only, `.` excludes only `\n`, `\s` is ASCII: each is written
 *   out. Text without a `\n` (most banners) gets a variant with plain `^`/`$`, which V8 anchors faster.
 * - `\A`, `\z`, `\Z`, `\h`, `\H`, `\e`, `\a`, `\R`, `\Q…\E`, POSIX bracket classes, `{,n}`, `(?#…)`, inline
 *   options `(?i)`/`(?m)`/`(?i-m:…)` (scoped as Onigmo scopes them), `(?'name'…)`, atomic groups and possessive
 *   quantifiers (`(?=(X))\n`, which is atomic because JS lookarounds are) are translated.
 * - With named groups, Ruby does not capture plain `(…)`: neither does the translation. Capture numbers move
 *   (atomic emulation adds groups): `groups` maps each Ruby group number to its JS one, so `pos=` params and
 *   back-references keep their meaning.
 * Unsupported (refused with UnsupportedRecogConstruct): `(?x)` extended mode, `\G`, `\K`, `\X`, `\g<…>`
 * subexpression calls, `\p{…}` properties, `\x{…}`, conditionals `(?(…)…)`, the absent operator `(?~…)`,
 * nested classes and class intersection (`[a[b]]`, `&&`), negated POSIX classes inside a larger class, and flags
 * other than the four above.
 */

export const RECOG_FLAGS: Readonly<Record<string, 'i' | 'dotall'>> = {
  REG_ICASE: 'i',
  REG_DOT_NEWLINE: 'dotall',
  REG_MULTILINE: 'dotall',
  REG_LINE_ANY_CRLF: 'dotall',
};

export interface TranslatedPattern {
  readonly source: string;
  readonly flags: string;
  /** groups[n]: the JS group number of Ruby group n (index 0 is the whole match). */
  readonly groups: readonly number[];
}

/** A pattern (or flag) JavaScript cannot express faithfully; `construct` names it for the reports. */
export class UnsupportedRecogConstruct extends Error {
  override readonly name = 'UnsupportedRecogConstruct';
  constructor(
    readonly construct: string,
    detail: string,
  ) {
    super(`${construct}: ${detail}`);
  }
}

const POSIX: Readonly<Record<string, string>> = {
  alpha: 'a-zA-Z',
  digit: '0-9',
  alnum: 'a-zA-Z0-9',
  upper: 'A-Z',
  lower: 'a-z',
  space: ' \\t\\n\\v\\f\\r',
  blank: ' \\t',
  punct: '!-\\/:-@\\[-`{-~',
  xdigit: '0-9a-fA-F',
  word: '\\w',
  cntrl: '\\x00-\\x1f\\x7f',
  print: '\\x20-\\x7e',
  graph: '\\x21-\\x7e',
  ascii: '\\x00-\\x7f',
};

const ASCII_SPACE = ' \\t\\n\\v\\f\\r';
/** A group (capturing or not) around one character atom repeated with `+`: `(.+)`, `(?:[^ ]+)`, `(\\d+)`. */
const REPEATED_ONE =
  /^(?:\uE000\d+\uE002|\(\?:)(?:\[(?:\\.|[^\]\\])*\]|\\[^\uE000-\uE002]|[^\\()[\]|\uE000-\uE002])\+\uE002?\)$/;
/** Sentinels for capture groups and back-references, numbered once the whole output is known. */
const OPEN = '\uE000';
const REF = '\uE001';
const END = '\uE002';

interface Group {
  readonly kind: 'capture' | 'plain' | 'atomic' | 'look';
  /** Where the group's text starts in the output (a quantifier after it applies from here). */
  readonly start: number;
  /** Id of the capture (or of the atomic emulation's capture). */
  readonly id?: number;
  /** Inline option scopes opened inside the group, closed with it. */
  scopes: number;
  /** Dot-matches-newline inside the group (Ruby's `m` option). */
  dotall: boolean;
  readonly outerDotall: boolean;
}

export function translateRecogPattern(
  pattern: string,
  recogFlags: readonly string[],
  options: { singleLine: boolean },
): TranslatedPattern {
  let ignoreCase = false;
  let dotall = false;
  for (const flag of recogFlags) {
    const meaning = RECOG_FLAGS[flag];
    if (!meaning) throw new UnsupportedRecogConstruct(`flag ${flag}`, 'not a Recog regular expression flag');
    if (meaning === 'i') ignoreCase = true;
    else dotall = true;
  }
  if (/[\uE000-\uE002]/.test(pattern))
    throw new UnsupportedRecogConstruct(
      'private-use characters',
      'U+E000..U+E002 are reserved by the translator',
    );
  const named = /(?<!\\)\(\?(?:<[A-Za-z_]|')/.test(pattern);
  const { singleLine } = options;

  let out = '';
  let nextId = 1;
  /** Ruby group number → capture id, in the order Ruby numbers them. */
  const rubyGroups: number[] = [];
  const names = new Map<number, string>();
  const root: Group = { kind: 'plain', start: 0, scopes: 0, dotall, outerDotall: dotall };
  const stack: Group[] = [root];
  let atomStart = -1;
  let i = 0;
  const current = (): Group => stack[stack.length - 1]!;
  const emitAtom = (text: string): void => {
    atomStart = out.length;
    out += text;
  };
  const unsupported = (construct: string): never => {
    throw new UnsupportedRecogConstruct(construct, `at offset ${i} of ${JSON.stringify(pattern)}`);
  };

  while (i < pattern.length) {
    const c = pattern[i]!;
    if (c === '\\') {
      i = translateEscape(pattern, i, {
        singleLine,
        emitAtom,
        emitAnchor: (text) => {
          atomStart = -1;
          out += text;
        },
        backReference: (n) => {
          const id = rubyGroups[n - 1];
          if (id === undefined) unsupported(`back-reference \\${n} before its group`);
          emitAtom(`${REF}${id}${END}`);
        },
        unsupported,
      });
      continue;
    }
    if (c === '[') {
      const { text, next } = translateClass(pattern, i, unsupported);
      emitAtom(text);
      i = next;
      continue;
    }
    if (c === '(') {
      const group = current();
      if (pattern.startsWith('(?#', i)) {
        const close = pattern.indexOf(')', i);
        if (close < 0) unsupported('unterminated comment group');
        i = close + 1;
        continue;
      }
      const start = out.length;
      const open = (kind: Group['kind'], text: string, id?: number, inner = group.dotall): void => {
        stack.push({
          kind,
          start,
          ...(id !== undefined ? { id } : {}),
          scopes: 0,
          dotall: inner,
          outerDotall: group.dotall,
        });
        out += text;
        atomStart = -1;
      };
      if (pattern[i + 1] !== '?') {
        if (named) open('plain', '(?:');
        else {
          const id = nextId++;
          rubyGroups.push(id);
          open('capture', `${OPEN}${id}${END}`, id);
        }
        i += 1;
        continue;
      }
      const rest = pattern.slice(i + 2);
      const lookaround = /^(?:=|!|<=|<!)/.exec(rest);
      if (lookaround) {
        open('look', `(?${lookaround[0]}`);
        i += 2 + lookaround[0].length;
        continue;
      }
      if (rest.startsWith(':')) {
        open('plain', '(?:');
        i += 3;
        continue;
      }
      if (rest.startsWith('>')) {
        const id = nextId++;
        open('atomic', `(?=${OPEN}${id}${END}`, id);
        i += 3;
        continue;
      }
      const name = /^(?:<([A-Za-z_]\w*)>|'([A-Za-z_]\w*)')/.exec(rest);
      if (name) {
        const id = nextId++;
        rubyGroups.push(id);
        names.set(id, name[1] ?? name[2]!);
        open('capture', `${OPEN}${id}${END}`, id);
        i += 2 + name[0].length;
        continue;
      }
      const inline = /^([imx]*)(?:-([imx]*))?([:)])/.exec(rest);
      if (inline && (inline[1] || inline[2])) {
        const on = inline[1] ?? '';
        const off = inline[2] ?? '';
        if (on.includes('x') || off.includes('x')) unsupported('extended mode (?x)');
        const caseOn = on.includes('i');
        const caseOff = off.includes('i');
        const inner = on.includes('m') ? true : off.includes('m') ? false : group.dotall;
        const modifier = caseOn || caseOff ? `(?${caseOn ? 'i' : ''}${caseOff ? '-i' : ''}:` : '(?:';
        i += 2 + inline[0].length;
        if (inline[3] === ':') {
          open('plain', modifier, undefined, inner);
          continue;
        }
        // `(?i)`: to the end of the enclosing group. At the very start it is the whole pattern's option.
        if (stack.length === 1 && out === '' && !caseOff) {
          if (caseOn) ignoreCase = true;
          group.dotall = inner;
          continue;
        }
        out += modifier;
        group.scopes += 1;
        group.dotall = inner;
        atomStart = -1;
        continue;
      }
      if (rest.startsWith('(')) unsupported('conditional group (?(…)…)');
      if (rest.startsWith('~')) unsupported('absent operator (?~…)');
      return unsupported(`group (?${rest.slice(0, 2)}`);
    }
    if (c === ')') {
      if (stack.length === 1) unsupported('unbalanced )');
      const group = stack.pop()!;
      out += ')'.repeat(group.scopes);
      if (group.kind === 'atomic') out += `${END}))${REF}${group.id!}${END}`;
      else if (group.kind === 'capture') out += `${END})`;
      else out += ')';
      atomStart = group.start;
      i += 1;
      continue;
    }
    const quantifier = /^(?:[*+?]|\{(\d*)(?:(,)(\d*))?\})/.exec(pattern.slice(i));
    if (quantifier && !(quantifier[0].startsWith('{') && quantifier[1] === '' && quantifier[3] === '')) {
      if (atomStart < 0) unsupported('quantifier without an atom');
      let text = quantifier[0];
      if (text.startsWith('{,')) text = `{0,${quantifier[3]}}`;
      i += quantifier[0].length;
      if (
        (text === '*' || text === '+') &&
        !'?+'.includes(pattern[i] ?? '') &&
        REPEATED_ONE.test(out.slice(atomStart))
      ) {
        // `(c+)*` is `(c+)?` and `(c+)+` is `(c+)`, captures included, for a one-character atom c: what the
        // inner loop leaves, the outer cannot take. Written as is, V8 backtracks exponentially on it.
        if (text === '*') out += '?';
        continue;
      }
      if (pattern[i] === '?') {
        text += '?';
        i += 1;
      } else if (pattern[i] === '+' && text.startsWith('{')) {
        // Ruby reads `X{n,m}+` as `(?:X{n,m})+` (only Java's syntax makes it possessive).
        out = `${out.slice(0, atomStart)}(?:${out.slice(atomStart)}${text})`;
        continue;
      } else if (pattern[i] === '+') {
        // Possessive: the quantified atom, once, as an atomic group.
        const id = nextId++;
        out = `${out.slice(0, atomStart)}(?=${OPEN}${id}${END}${out.slice(atomStart)}${text}${END}))${REF}${id}${END}`;
        i += 1;
        continue;
      }
      out += text;
      continue;
    }
    if (c === '{') {
      emitAtom('\\{');
      i += 1;
      continue;
    }
    if (c === '.') {
      emitAtom(current().dotall ? '[\\s\\S]' : '[^\\n]');
      i += 1;
      continue;
    }
    if (c === '^' || c === '$') {
      atomStart = -1;
      out += singleLine ? c : c === '^' ? '(?<![^\\n])' : '(?![^\\n])';
      i += 1;
      continue;
    }
    if (c === '|') {
      atomStart = -1;
      out += c;
      i += 1;
      continue;
    }
    emitAtom(c);
    i += 1;
  }
  if (stack.length !== 1) unsupported('unterminated group');
  out += ')'.repeat(root.scopes);
  return number(out, ignoreCase ? 'i' : '', rubyGroups, names);
}

/** Replaces the sentinels by JS groups numbered in order of appearance. */
function number(
  marked: string,
  flags: string,
  rubyGroups: readonly number[],
  names: ReadonlyMap<number, string>,
): TranslatedPattern {
  const jsNumber = new Map<number, number>();
  let count = 0;
  let source = marked.replace(new RegExp(`${OPEN}(\\d+)${END}`, 'g'), (_, id: string) => {
    jsNumber.set(Number(id), ++count);
    const name = names.get(Number(id));
    return name ? `(?<${name}>` : '(';
  });
  source = source.replace(
    new RegExp(`${REF}(\\d+)${END}`, 'g'),
    (_, id: string) => `(?:\\${jsNumber.get(Number(id))!})`,
  );
  // What is left are the closing sentinels of groups, which carry no number.
  source = source.replaceAll(`${END})`, ')');
  return { source, flags, groups: [0, ...rubyGroups.map((id) => jsNumber.get(id)!)] };
}

interface EscapeSink {
  readonly singleLine: boolean;
  emitAtom(text: string): void;
  emitAnchor(text: string): void;
  backReference(n: number): void;
  unsupported(construct: string): never;
}

function translateEscape(pattern: string, at: number, sink: EscapeSink): number {
  const c = pattern[at + 1];
  if (c === undefined) return sink.unsupported('trailing backslash');
  switch (c) {
    case 'A':
      sink.emitAnchor(sink.singleLine ? '^' : '(?<![\\s\\S])');
      return at + 2;
    case 'z':
      sink.emitAnchor(sink.singleLine ? '$' : '(?![\\s\\S])');
      return at + 2;
    case 'Z':
      sink.emitAnchor(sink.singleLine ? '$' : '(?=\\n?(?![\\s\\S]))');
      return at + 2;
    case 'h':
      sink.emitAtom('[0-9a-fA-F]');
      return at + 2;
    case 'H':
      sink.emitAtom('[^0-9a-fA-F]');
      return at + 2;
    case 's':
      sink.emitAtom(`[${ASCII_SPACE}]`);
      return at + 2;
    case 'S':
      sink.emitAtom(`[^${ASCII_SPACE}]`);
      return at + 2;
    case 'e':
      sink.emitAtom('\\x1b');
      return at + 2;
    case 'a':
      sink.emitAtom('\\x07');
      return at + 2;
    case 'R':
      sink.emitAtom('(?:\\r\\n|[\\n\\v\\f\\r\\x85\\u2028\\u2029])');
      return at + 2;
    case 'Q': {
      const end = pattern.indexOf('\\E', at + 2);
      const literal = pattern.slice(at + 2, end < 0 ? undefined : end);
      for (const char of literal) sink.emitAtom(char.replace(/[\\^$.*+?()[\]{}|/]/, '\\$&'));
      return end < 0 ? pattern.length : end + 2;
    }
    case 'E':
      return at + 2;
    case 'k': {
      const reference = /^\\k(?:<([^>]+)>|'([^']+)')/.exec(pattern.slice(at));
      if (!reference) return sink.unsupported('\\k without a group name');
      const target = reference[1] ?? reference[2]!;
      if (/^\d+$/.test(target)) sink.backReference(Number(target));
      else sink.emitAtom(`\\k<${target}>`);
      return at + reference[0].length;
    }
    case 'G':
    case 'K':
    case 'X':
      return sink.unsupported(`\\${c}`);
    case 'g':
      return sink.unsupported('subexpression call \\g<…>');
    case 'p':
    case 'P':
      return sink.unsupported(`character property \\${c}{…}`);
    case 'x':
      if (pattern[at + 2] === '{') return sink.unsupported('\\x{…}');
      {
        const hex = /^\\x[0-9a-fA-F]{1,2}/.exec(pattern.slice(at))?.[0] ?? '\\x';
        sink.emitAtom(hex.length === 3 ? `\\x0${hex[2]}` : hex);
        return at + hex.length;
      }
    default:
      if (c >= '1' && c <= '9') {
        const digits = /^\d+/.exec(pattern.slice(at + 1))![0];
        sink.backReference(Number(digits));
        return at + 1 + digits.length;
      }
      if (c === 'b' || c === 'B') {
        sink.emitAnchor(`\\${c}`);
        return at + 2;
      }
      sink.emitAtom(`\\${c}`);
      return at + 2;
  }
}

/** One bracket class from `[` to its `]`, with Ruby's escapes and POSIX classes written out. */
function translateClass(
  pattern: string,
  at: number,
  unsupported: (construct: string) => never,
): { text: string; next: number } {
  let i = at + 1;
  let text = '[';
  if (pattern[i] === '^') {
    text += '^';
    i += 1;
  }
  // A `]` first in the class is a literal in Ruby.
  if (pattern[i] === ']') {
    text += '\\]';
    i += 1;
  }
  while (i < pattern.length) {
    const c = pattern[i]!;
    if (c === ']') return { text: `${text}]`, next: i + 1 };
    if (c === '[') {
      const posix = /^\[:(\^?)([a-z]+):\]/.exec(pattern.slice(i));
      if (!posix) return unsupported('nested character class');
      const ranges = POSIX[posix[2]!];
      if (!ranges) return unsupported(`POSIX class [:${posix[2]}:]`);
      if (posix[1]) {
        // [[:^alpha:]] alone is [^a-zA-Z]; inside a larger class JS cannot subtract it.
        if (text === '[' && pattern[i + posix[0].length] === ']')
          return { text: `[^${ranges}]`, next: i + posix[0].length + 1 };
        return unsupported(`negated POSIX class [:^${posix[2]}:] inside a class`);
      }
      text += ranges;
      i += posix[0].length;
      continue;
    }
    if (c === '&' && pattern[i + 1] === '&') return unsupported('class intersection &&');
    if (c === '\\') {
      const e = pattern[i + 1];
      if (e === undefined) return unsupported('trailing backslash');
      if (e === 'h') text += '0-9a-fA-F';
      else if (e === 's') text += ASCII_SPACE;
      else if (e === 'e') text += '\\x1b';
      else if (e === 'a') text += '\\x07';
      else if (e === 'H' || e === 'p' || e === 'P' || e === 'R' || e === 'X')
        return unsupported(`\\${e} inside a class`);
      else text += `\\${e}`;
      i += 2;
      continue;
    }
    text += c;
    i += 1;
  }
  return unsupported('unterminated character class');
}
