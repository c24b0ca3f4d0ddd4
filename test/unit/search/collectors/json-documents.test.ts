import { describe, expect, it } from '@jest/globals';
import {
  isPrettyPrintedJson,
  jsonDocumentsOf,
} from '../../../../src/search/data/collectors/json-documents.js';

const pretty = (value: unknown) => JSON.stringify(value, null, 2);

describe('isPrettyPrintedJson', () => {
  it('is a first non-blank line that is a lone `{`, after a byte order mark and blank lines', () => {
    expect(isPrettyPrintedJson(Buffer.from('{\n  "a": 1\n}\n'))).toBe(true);
    expect(isPrettyPrintedJson(Buffer.from('\ufeff\n  \n  {  \r\n  "a": 1\n}'))).toBe(true);
    expect(isPrettyPrintedJson(Buffer.from('{"a": 1}\n{"a": 2}\n'))).toBe(false);
    expect(isPrettyPrintedJson(Buffer.from('[\n  {\n'))).toBe(false);
    expect(isPrettyPrintedJson(Buffer.from(''))).toBe(false);
  });
});

describe('jsonDocumentsOf', () => {
  it('splits several pretty objects in a row, each compacted with the line it starts on', () => {
    const text = `${pretty({ a: 1, nested: { b: [1, 2] } })}\n${pretty({ c: 'x' })}\n\n${pretty({ d: null })}\n`;
    expect(jsonDocumentsOf(text)).toEqual([
      { line: 1, text: '{"a":1,"nested":{"b":[1,2]}}' },
      { line: 10, text: '{"c":"x"}' },
      { line: 14, text: '{"d":null}' },
    ]);
  });

  it('ignores braces and escaped quotes inside strings', () => {
    const value = { title: 'a } b { c', quote: 'say "}" then {', slash: 'ends with \\', after: '{' };
    const text = `${pretty(value)}\n${pretty({ next: true })}`;
    const documents = jsonDocumentsOf(text);
    expect(documents).toEqual([
      { line: 1, text: JSON.stringify(value) },
      { line: 7, text: '{"next":true}' },
    ]);
    expect(JSON.parse((documents[0] as { text: string }).text)).toEqual(value);
  });

  it('reports a broken object and goes on with the good one after it', () => {
    const text = '{\n  "a": 1,\n  "b": \n}\n{\n  "c": 2\n}\n';
    const [broken, good, ...rest] = jsonDocumentsOf(text);
    expect(broken).toEqual({ line: 1, error: expect.stringMatching(/^invalid JSON: /) as unknown as string });
    expect(good).toEqual({ line: 5, text: '{"c":2}' });
    expect(rest).toEqual([]);
  });

  it('accepts commas, brackets and blanks between objects, and stops at other text there', () => {
    expect(jsonDocumentsOf('[\n{\n"a": 1\n},\n{\n"a": 2\n}\n]\n')).toEqual([
      { line: 2, text: '{"a":1}' },
      { line: 5, text: '{"a":2}' },
    ]);
    expect(jsonDocumentsOf('{\n"a": 1\n}\nnot json\n{\n"a": 2\n}\n')).toEqual([
      { line: 1, text: '{"a":1}' },
      { line: 4, error: 'unexpected "n" between JSON objects' },
    ]);
  });

  it('reports an object that never ends at the line it starts on', () => {
    expect(jsonDocumentsOf('{\n"a": 1\n}\n\n{\n  "b": {\n    "c": "}"\n  }\n')).toEqual([
      { line: 1, text: '{"a":1}' },
      { line: 5, error: 'the JSON object starting here never ends' },
    ]);
    expect(jsonDocumentsOf('')).toEqual([]);
  });
});
