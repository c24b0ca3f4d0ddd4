import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { MAX_JSON_DEPTH, nestingDepthExceeds } from '../../../src/platform/http/json-body.js';
import { unstorableText } from '../../../src/platform/http/storable-text.js';

/** Nesting depth of a JSON value: objects and arrays count one level each. */
function depthOf(value: unknown): number {
  if (Array.isArray(value)) return 1 + Math.max(0, ...value.map(depthOf));
  if (typeof value === 'object' && value !== null)
    return 1 + Math.max(0, ...Object.values(value).map(depthOf));
  return 0;
}

describe('JSON depth cap', () => {
  it('counts the nesting of any JSON text exactly, brackets inside strings excluded', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 12 }), fc.integer({ min: 0, max: 14 }), (value, max) => {
        expect(nestingDepthExceeds(JSON.stringify(value), max)).toBe(depthOf(value) > max);
      }),
    );
  });

  it('refuses thousands of levels without recursing', () => {
    expect(nestingDepthExceeds('['.repeat(1_000_000), MAX_JSON_DEPTH)).toBe(true);
    expect(nestingDepthExceeds(`"${'['.repeat(100)}"`, MAX_JSON_DEPTH)).toBe(false);
    expect(nestingDepthExceeds(`["\\"${'{'.repeat(100)}"]`, MAX_JSON_DEPTH)).toBe(false);
  });
});

describe('text PostgreSQL cannot store', () => {
  it('names every string with a NUL or a lone surrogate, by its path, and nothing else', () => {
    const bad = fc.oneof(fc.constant('\u0000'), fc.constant('\ud800'), fc.constant('\udfff'));
    fc.assert(
      fc.property(fc.string(), bad, fc.string(), (before, poison, after) => {
        const value = {
          ok: `${before}${after}`.toWellFormed().replaceAll('\u0000', ''),
          list: ['x', before + poison + after],
        };
        expect(unstorableText(value, '').map((problem) => problem.field)).toEqual(['list.1']);
      }),
    );
  });

  it('accepts every well-formed string without NUL, astral characters included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        fc.pre(!text.includes('\u0000'));
        expect(unstorableText({ [text]: text, nested: [[text]] }, '')).toEqual([]);
      }),
    );
  });

  it('checks property names and spells them back readably', () => {
    expect(unstorableText({ a: { 'x\u0000y': 1 } }, '')).toEqual([
      { field: 'a.x\\u0000y', problems: ['the property name must not contain a NUL character (U+0000)'] },
    ]);
    expect(unstorableText('a\ud800', '')).toEqual([
      { field: 'body', problems: ['body must not contain a lone UTF-16 surrogate (not valid Unicode)'] },
    ]);
  });
});
