import type { RecogDatabase, RecogFingerprint } from './recog-database.js';
import { translateRecogPattern, UnsupportedRecogConstruct } from './recog-regex.js';
import { requiredLiteral } from './required-literal.js';

/**
 * Recog's matching, as its Ruby `Fingerprint#match` does it: the first fingerprint of a database (file order)
 * whose pattern matches gives the params: pos=0 fixed values, pos=n the n-th capture (absent when the group did
 * not take part), the database's protocol as `service.protocol` unless set, `{param}` interpolated in fixed
 * values (a missing `*.version` in a `*.cpe23` value becomes `-`, as Recog does). Pure: no I/O.
 */

/** What one fingerprint yielded for one text: Recog's result hash, absent captures left out. */
export interface FingerprintMatch {
  /** The database (file name) and the fingerprint's 1-based position in it. */
  readonly database: string;
  readonly fingerprint: number;
  readonly description: string;
  readonly params: Readonly<Record<string, string>>;
}

/** A fingerprint the matcher could not translate: never silently skipped, always listed. */
export interface UnsupportedFingerprint {
  readonly database: string;
  readonly fingerprint: number;
  readonly pattern: string;
  readonly construct: string;
  readonly reason: string;
}

class CompiledFingerprint {
  private multiLine: RegExp | undefined;

  constructor(
    readonly source: RecogFingerprint,
    private readonly singleLine: RegExp,
    private readonly groups: readonly number[],
    /** Lowercase text every match contains (required-literal.ts), or null: checked before the RegExp runs. */
    readonly literal: string | null,
  ) {}

  /** The capture groups of a match, or null. Text with a `\n` uses Ruby's line anchors, written out. */
  exec(text: string): RegExpExecArray | null {
    if (!text.includes('\n')) return this.singleLine.exec(text);
    if (!this.multiLine) {
      const translated = translateRecogPattern(this.source.pattern, this.source.flags, { singleLine: false });
      this.multiLine = new RegExp(translated.source, translated.flags);
    }
    return this.multiLine.exec(text);
  }

  capture(match: RegExpExecArray, rubyGroup: number): string | undefined {
    const group = this.groups[rubyGroup];
    return group === undefined ? undefined : match[group];
  }
}

/**
 * A database's fingerprints in file order, with an index of their required literals by first three characters:
 * a text's trigrams name the fingerprints that may match it (with those that have no literal), and only those
 * run, still in file order, so the first match is Recog's.
 */
class CompiledDatabase {
  private readonly always: Uint8Array;
  private readonly byTrigram = new Map<string, number[]>();

  constructor(
    readonly database: RecogDatabase,
    readonly fingerprints: readonly CompiledFingerprint[],
  ) {
    this.always = new Uint8Array(fingerprints.length);
    fingerprints.forEach((fingerprint, position) => {
      if (fingerprint.literal === null) this.always[position] = 1;
      else {
        const trigram = fingerprint.literal.slice(0, 3);
        const list = this.byTrigram.get(trigram) ?? [];
        list.push(position);
        this.byTrigram.set(trigram, list);
      }
    });
  }

  match(text: string): FingerprintMatch | null {
    const lower = text.toLowerCase();
    const candidates = this.always.slice();
    for (let at = 0; at + 3 <= lower.length; at += 1) {
      const list = this.byTrigram.get(lower.slice(at, at + 3));
      if (list) for (const position of list) candidates[position] = 1;
    }
    for (let position = 0; position < this.fingerprints.length; position += 1) {
      if (candidates[position] === 0) continue;
      const fingerprint = this.fingerprints[position]!;
      if (fingerprint.literal !== null && !lower.includes(fingerprint.literal)) continue;
      const found = fingerprint.exec(text);
      if (found) return resultOf(this.database, fingerprint, found);
    }
    return null;
  }
}

export class RecogMatcher {
  private readonly byName = new Map<string, CompiledDatabase>();
  private readonly byMatches = new Map<string, CompiledDatabase[]>();
  readonly unsupported: UnsupportedFingerprint[] = [];
  /** Recent (matches, text) → result: real scans repeat the same banners (`nginx`, `Apache`) endlessly. */
  private readonly memo = new Map<string, FingerprintMatch | null>();
  private readonly memoEntries: number;

  /** Databases declaring the same `matches=` are tried by preference (higher first), then by file name. */
  constructor(databases: readonly RecogDatabase[], options: { memoEntries?: number } = {}) {
    this.memoEntries = options.memoEntries ?? 10_000;
    const ordered = [...databases].sort(
      (a, b) => (b.preference ?? 0) - (a.preference ?? 0) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
    );
    for (const database of ordered) {
      const compiled = new CompiledDatabase(database, this.compile(database));
      this.byName.set(database.name, compiled);
      const list = this.byMatches.get(database.matches) ?? [];
      list.push(compiled);
      this.byMatches.set(database.matches, list);
    }
  }

  get databases(): readonly RecogDatabase[] {
    return [...this.byName.values()].map((compiled) => compiled.database);
  }

  get fingerprintCount(): number {
    let count = 0;
    for (const compiled of this.byName.values()) count += compiled.fingerprints.length;
    return count;
  }

  /** Whether any loaded database identifies this kind of evidence. */
  handles(matches: string): boolean {
    return this.byMatches.has(matches);
  }

  /** The first match among the databases declaring `matches`. */
  match(matches: string, text: string): FingerprintMatch | null {
    // Long texts (a whole banner page) are not remembered: the memo's memory stays bounded by entries × 1 KiB.
    const remember = this.memoEntries > 0 && text.length <= MEMO_TEXT_CHARS;
    const key = remember ? `${matches}\u0000${text}` : '';
    if (remember) {
      const known = this.memo.get(key);
      if (known !== undefined) return known;
    }
    let result: FingerprintMatch | null = null;
    for (const database of this.byMatches.get(matches) ?? []) {
      result = database.match(text);
      if (result) break;
    }
    if (remember) {
      // Bounded: a full memo starts over rather than tracking recency on every hit.
      if (this.memo.size >= this.memoEntries) this.memo.clear();
      this.memo.set(key, result);
    }
    return result;
  }

  /** The first match in one database (Recog's verification runs each file's examples through that file). */
  matchIn(databaseName: string, text: string): FingerprintMatch | null {
    return this.byName.get(databaseName)?.match(text) ?? null;
  }

  hasDatabase(name: string): boolean {
    return this.byName.has(name);
  }

  private compile(database: RecogDatabase): CompiledFingerprint[] {
    const compiled: CompiledFingerprint[] = [];
    for (const fingerprint of database.fingerprints) {
      try {
        const translated = translateRecogPattern(fingerprint.pattern, fingerprint.flags, {
          singleLine: true,
        });
        let regex: RegExp;
        try {
          regex = new RegExp(translated.source, translated.flags);
        } catch (error) {
          throw new UnsupportedRecogConstruct('javascript syntax', (error as Error).message);
        }
        compiled.push(
          new CompiledFingerprint(
            fingerprint,
            regex,
            translated.groups,
            requiredLiteral(fingerprint.pattern),
          ),
        );
      } catch (error) {
        if (!(error instanceof UnsupportedRecogConstruct)) throw error;
        this.unsupported.push({
          database: database.name,
          fingerprint: fingerprint.index,
          pattern: fingerprint.pattern,
          construct: error.construct,
          reason: error.message,
        });
      }
    }
    return compiled;
  }
}

const MEMO_TEXT_CHARS = 1024;
const INTERPOLATION = /\{([^\s{}]+)\}/g;

function resultOf(
  database: RecogDatabase,
  fingerprint: CompiledFingerprint,
  match: RegExpExecArray,
): FingerprintMatch {
  const params: Record<string, string | undefined> = {};
  const templated: string[] = [];
  for (const param of fingerprint.source.params) {
    if (param.pos === 0) {
      params[param.name] = param.value;
      if (param.value.includes('{')) templated.push(param.name);
    } else params[param.name] = fingerprint.capture(match, param.pos);
  }
  if (database.protocol && params['service.protocol'] === undefined)
    params['service.protocol'] = database.protocol;
  for (const name of templated) {
    let failed = false;
    const value = params[name]!.replace(INTERPOLATION, (whole, key: string) => {
      const replacement = params[key];
      if (replacement !== undefined) return replacement;
      if (name.endsWith('.cpe23') && key.endsWith('.version')) return '-';
      // Recog raises here; an unresolvable value is left out instead of failing the whole import.
      failed = true;
      return whole;
    });
    if (failed) delete params[name];
    else params[name] = value;
  }
  const defined: Record<string, string> = {};
  for (const [key, value] of Object.entries(params)) if (value !== undefined) defined[key] = value;
  // Frozen: the memo hands the same result to every caller.
  return Object.freeze({
    database: database.name,
    fingerprint: fingerprint.source.index,
    description: fingerprint.source.description,
    params: Object.freeze(defined),
  });
}
