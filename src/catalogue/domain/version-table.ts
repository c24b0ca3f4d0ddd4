/**
 * A catalogue's versions prepared for comparison once, when it loads (ADR 105): every range bound is encoded as a
 * run of numbers in one shared array, one number per token, ordered exactly as compareTokens orders tokens; every
 * exact version's versionKey is given a small integer. Comparing an observed version with a bound is then a loop
 * over numbers, and an exact version one integer comparison: no BigInt, no token objects, no string keys per
 * criterion.
 *
 * A token's number: a pre-release word its rank (0–5); any other word 16 + its letters in base 27 (a–z as 1–26,
 * up to 11 letters, so text order is number order); a number 6e15 + its value. So at one position numbers sort
 * after words, revision words after pre-release words, as compareTokens has it. A version with a longer word or a
 * number beyond 3e15 cannot be encoded exactly: it keeps its tokens and is compared by compareTokens.
 */
import { compareTokens, preReleaseRank, type Token, tokenize, versionKey } from './version.js';

const WORD_BASE = 16;
const NUMBER_BASE = 6e15;
const LARGEST_NUMBER = 3e15;
const LONGEST_WORD = 11;

/** An observed version, encoded once per evaluation. */
export interface EncodedVersion {
  readonly tokens: readonly Token[];
  /** Null when a token cannot be encoded exactly: compared by its tokens. */
  readonly codes: Float64Array | null;
  /** The catalogue's integer for its versionKey, or NO_VERSION_KEY when no exact criterion has it. */
  readonly keyId: number;
}

/** The key id of an observed version no exact criterion of the catalogue names (never a criterion's). */
export const NO_VERSION_KEY = -2;

/** The tokens as numbers (see above), or null when one cannot be encoded exactly. */
function encode(tokens: readonly Token[]): number[] | null {
  const codes: number[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.kind === 'number') {
      if (token.value > LARGEST_NUMBER) return null;
      codes.push(NUMBER_BASE + Number(token.value));
      continue;
    }
    const rank = preReleaseRank(tokens, i);
    if (rank !== null) {
      codes.push(rank);
      continue;
    }
    if (token.value.length > LONGEST_WORD) return null;
    let code = 0;
    for (let j = 0; j < LONGEST_WORD; j++)
      code = code * 27 + (j < token.value.length ? token.value.charCodeAt(j) - 96 : 0);
    codes.push(WORD_BASE + code);
  }
  return codes;
}

/** compareTokens over two encoded runs: `left[leftStart..leftEnd)` against `right[rightStart..rightEnd)`. */
function compareCodes(
  left: Float64Array,
  leftStart: number,
  leftEnd: number,
  right: Float64Array,
  rightStart: number,
  rightEnd: number,
): number {
  const leftLength = leftEnd - leftStart;
  const rightLength = rightEnd - rightStart;
  const common = leftLength < rightLength ? leftLength : rightLength;
  for (let i = 0; i < common; i++) {
    const x = left[leftStart + i]!;
    const y = right[rightStart + i]!;
    if (x !== y) return x < y ? -1 : 1;
  }
  // One ran out: zeros are padding, a pre-release word makes the longer one earlier, anything else later.
  const [rest, from, end, sign] =
    leftLength < rightLength
      ? [right, rightStart + common, rightEnd, -1]
      : [left, leftStart + common, leftEnd, 1];
  for (let j = from; j < end; j++) {
    const code = rest[j]!;
    if (code === NUMBER_BASE) continue;
    return code < WORD_BASE ? -sign : sign;
  }
  return 0;
}

export class VersionTable {
  private codes = new Float64Array(4096);
  private used = 0;
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  /** Every bound's tokens, for the versions that cannot be encoded (theirs or the bound's). */
  private readonly tokens: (readonly Token[])[] = [];
  private readonly boundIds = new Map<string, number>();
  private readonly keyIds = new Map<string, number>();

  /** The id of a range bound (throws, as tokenize does, for a bound that is not a string). */
  bound(text: string): number {
    let id = this.boundIds.get(text);
    if (id !== undefined) return id;
    const tokens = tokenize(text);
    const codes = encode(tokens);
    id = this.tokens.push(tokens) - 1;
    if (codes === null) {
      // Never compared by codes: an empty run marks it.
      this.starts.push(-1);
      this.ends.push(-1);
    } else {
      if (this.used + codes.length > this.codes.length) {
        const grown = new Float64Array(Math.max(this.codes.length * 2, this.used + codes.length));
        grown.set(this.codes.subarray(0, this.used));
        this.codes = grown;
      }
      this.codes.set(codes, this.used);
      this.starts.push(this.used);
      this.used += codes.length;
      this.ends.push(this.used);
    }
    this.boundIds.set(text, id);
    return id;
  }

  /** After the catalogue is compiled: no more bounds are given, so their texts and the array's slack go. */
  seal(): void {
    this.boundIds.clear();
    this.codes = this.codes.slice(0, this.used);
  }

  /** The integer of an exact version's versionKey: equal for two versions exactly when compareVersions is 0. */
  exact(text: string): number {
    const key = versionKey(text);
    let id = this.keyIds.get(key);
    if (id === undefined) this.keyIds.set(key, (id = this.keyIds.size));
    return id;
  }

  /** An observed version's text, prepared for comparisons with this catalogue's versions. */
  observe(text: string): EncodedVersion {
    const tokens = tokenize(text);
    const codes = encode(tokens);
    return {
      tokens,
      codes: codes === null ? null : Float64Array.from(codes),
      keyId: this.keyIds.get(versionKey(text)) ?? NO_VERSION_KEY,
    };
  }

  /** The sign of compareTokens(version, the bound's tokens). */
  compare(version: EncodedVersion, bound: number): number {
    const start = this.starts[bound]!;
    if (version.codes === null || start < 0) return compareTokens(version.tokens, this.tokens[bound]!);
    return compareCodes(version.codes, 0, version.codes.length, this.codes, start, this.ends[bound]!);
  }
}
