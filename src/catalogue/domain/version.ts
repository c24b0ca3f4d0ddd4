/**
 * Ordering of real-world version strings, as NVD version ranges need it:
 * `1.2.10 > 1.2.9`, `2.0-beta9 < 2.0 < 2.0.1`, `8.9p1 > 8.9`, `1.1.1t > 1.1.1k > 1.1.1`, `9.0.0.1 > 9.0.0`,
 * `2021-06-01 < 2021-12-01`, `1.0 == 1.0.0`, `v2 == 2`.
 *
 * A version is split into numeric and alphabetic tokens (separators `.`, `-`, `_`, `+`, `~`, space). Numbers
 * compare numerically; a pre-release word (dev, snapshot, alpha, a<N>, beta, b<N>, milestone m<N>, pre, preview,
 * rc, cr) sorts before the release it precedes; any other word (p1, t, update2, h3, r18) is a later revision and
 * sorts after it. A number is later than a word in the same position (`1.0.1 > 1.0.rc1`, `1.1.1.1 > 1.1.1t`).
 */
export type Token =
  { readonly kind: 'number'; readonly value: bigint } | { readonly kind: 'word'; readonly value: string };

const PRE_RELEASE_RANK: Readonly<Record<string, number>> = {
  dev: 0,
  snapshot: 0,
  alpha: 1,
  a: 1,
  beta: 2,
  b: 2,
  m: 3,
  milestone: 3,
  pre: 4,
  preview: 4,
  rc: 5,
  cr: 5,
};

const cache = new Map<string, readonly Token[]>();

export function tokenize(version: string): readonly Token[] {
  const cached = cache.get(version);
  if (cached) return cached;
  const tokens: Token[] = [];
  const text = version
    .trim()
    .toLowerCase()
    .replace(/^v(?=\d)/, '');
  const pattern = /(\d+)|([a-z]+)/g;
  let match: RegExpExecArray | null;
  while ((match = pattern.exec(text)) !== null) {
    if (match[1] !== undefined) tokens.push({ kind: 'number', value: BigInt(match[1]) });
    else tokens.push({ kind: 'word', value: match[2]! });
  }
  if (cache.size > 50_000) cache.clear();
  cache.set(version, tokens);
  return tokens;
}

/** A word is a pre-release marker when listed; single letters a/b/m only when a number follows (`2.0a1`). */
export function preReleaseRank(tokens: readonly Token[], index: number): number | null {
  const token = tokens[index];
  if (!token || token.kind !== 'word') return null;
  const rank = PRE_RELEASE_RANK[token.value];
  if (rank === undefined) return null;
  if (token.value.length === 1) return tokens[index + 1]?.kind === 'number' ? rank : null;
  return rank;
}

/** Negative when a < b, 0 when equal, positive when a > b. */
export function compareVersions(a: string, b: string): number {
  return compareTokens(tokenize(a), tokenize(b));
}

/** compareVersions over versions tokenized once (a catalogue's range bounds are tokenized when it loads). */
export function compareTokens(left: readonly Token[], right: readonly Token[]): number {
  const length = Math.max(left.length, right.length);
  for (let i = 0; i < length; i++) {
    const x = left[i];
    const y = right[i];
    if (x === undefined || y === undefined) {
      // One ran out: the rest of the other decides. Zeros are padding; a pre-release word makes it earlier;
      // anything else (a further number, a revision word) makes it later.
      const rest = x === undefined ? right : left;
      const sign = x === undefined ? -1 : 1;
      for (let j = i; j < rest.length; j++) {
        const token = rest[j]!;
        if (token.kind === 'number' && token.value === 0n) continue;
        if (preReleaseRank(rest, j) !== null) return -sign;
        return sign;
      }
      return 0;
    }
    if (x.kind === 'number' && y.kind === 'number') {
      if (x.value !== y.value) return x.value < y.value ? -1 : 1;
      continue;
    }
    const xPre = preReleaseRank(left, i);
    const yPre = preReleaseRank(right, i);
    if (x.kind === 'word' && y.kind === 'word') {
      if (xPre !== null || yPre !== null) {
        if (xPre === null) return 1; // a revision word is later than a pre-release word
        if (yPre === null) return -1;
        if (xPre !== yPre) return xPre - yPre;
        continue;
      }
      if (x.value !== y.value) return x.value < y.value ? -1 : 1;
      continue;
    }
    // number against word: the number is later.
    return x.kind === 'number' ? 1 : -1;
  }
  return 0;
}

export function versionsEqual(a: string, b: string): boolean {
  return compareVersions(a, b) === 0;
}

/**
 * A key equal for two versions exactly when compareVersions finds them equal: tokens compare one by one (numbers
 * by value, a pre-release word by its rank, any other word by its text) and zeros at the end are padding.
 */
export function versionKey(version: string): string {
  const tokens = tokenize(version);
  let end = tokens.length;
  while (end > 0) {
    const token = tokens[end - 1]!;
    if (token.kind !== 'number' || token.value !== 0n) break;
    end--;
  }
  let key = '';
  for (let i = 0; i < end; i++) {
    const token = tokens[i]!;
    if (token.kind === 'number') key += `n${token.value}.`;
    else {
      const rank = preReleaseRank(tokens, i);
      key += rank === null ? `w${token.value}.` : `p${rank}.`;
    }
  }
  return key;
}
