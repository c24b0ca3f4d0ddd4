/**
 * Pretty-printed JSON in a line-based format (`jq .` output, an event saved from a web page, the LeakIX sample):
 * a file whose first non-blank line is a lone `{` holds one or more JSON objects spread over lines. The import
 * reads such a file whole (it is small in practice: collectors stream compact lines) and hands each object to
 * the format as the compact line it would have been.
 */

/** Whether a file starting with `head` is pretty-printed JSON objects rather than one object a line. */
export function isPrettyPrintedJson(head: Buffer): boolean {
  const text = head.toString('utf8').replace(/^\uFEFF/, '');
  const firstLine = /^\s*([^\n]*)/.exec(text)?.[1]?.trim();
  return firstLine === '{';
}

export type JsonDocument = { line: number; text: string } | { line: number; error: string };

/**
 * The top-level objects of `text`, in order, each with the line it starts on: compact JSON text, or why it is
 * not JSON. Objects are delimited by brace depth outside strings, so one broken object does not hide the next.
 */
export function jsonDocumentsOf(text: string): JsonDocument[] {
  const documents: JsonDocument[] = [];
  let depth = 0;
  let inString = false;
  let escaped = false;
  let start = -1;
  let startLine = 1;
  let line = 1;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    if (c === '\n') line += 1;
    if (inString) {
      if (escaped) escaped = false;
      else if (c === '\\') escaped = true;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{') {
      if (depth === 0) {
        start = i;
        startLine = line;
      }
      depth += 1;
    } else if (c === '}' && depth > 0) {
      depth -= 1;
      if (depth === 0) documents.push(compact(text.slice(start, i + 1), startLine));
    } else if (depth === 0 && !/[\s,[\]\uFEFF]/.test(c)) {
      documents.push({ line, error: `unexpected ${JSON.stringify(c)} between JSON objects` });
      return documents;
    }
  }
  if (depth > 0) documents.push({ line: startLine, error: 'the JSON object starting here never ends' });
  return documents;
}

function compact(text: string, line: number): JsonDocument {
  try {
    return { line, text: JSON.stringify(JSON.parse(text)) };
  } catch (error) {
    return { line, error: `invalid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
}
