/** Internal: reads a JSONL file line by line, so a large file is never held whole. */
import { createInterface } from 'node:readline';
import { parseJsonLine } from '../core/conversation/parse-conversation.js';
import { utf8FileStream } from './_utf8-text.js';

/**
 * Each non-empty line of a JSONL file, parsed, with its 1-based line number and the bytes read so far (a leading byte-order
 * mark is dropped). A line that is not JSON, or not UTF-8, throws `UNREADABLE_INPUT` naming `source:LINE`; with
 * `warnings`, a line of JSON objects back to back is read as each of them, with a warning.
 */
export async function* jsonFileLines(
  path: string,
  source: string,
  warnings?: string[],
): AsyncGenerator<{ value: unknown; lineNumber: number; bytesRead: number }> {
  const { file: stream, text } = utf8FileStream(path, source);
  const lines = createInterface({ input: text, crlfDelay: Infinity });
  let lineNumber = 0;
  try {
    for await (const rawLine of lines) {
      lineNumber += 1;
      const line = lineNumber === 1 && rawLine.charCodeAt(0) === 0xfeff ? rawLine.slice(1) : rawLine;
      if (line.trim() === '') continue;
      // What the stream has read so far (a chunk ahead of this line): enough for a progress bar.
      const { bytesRead } = stream;
      if (warnings === undefined)
        yield { value: parseJsonLine(line, lineNumber, source), lineNumber, bytesRead };
      else
        for (const value of parseJsonLineValues(line, lineNumber, source, warnings))
          yield { value, lineNumber, bytesRead };
    }
  } finally {
    lines.close();
    text.destroy();
    stream.destroy();
  }
}

/**
 * One JSONL line as values: normally one; a line holding JSON objects back to back (a writer that
 * lost a newline) is read as each of them, with a warning naming the line. Any other broken line
 * throws `UNREADABLE_INPUT` naming `source:LINE`.
 */
export function parseJsonLineValues(
  line: string,
  lineNumber: number,
  source: string | undefined,
  warnings: string[],
): unknown[] {
  try {
    return [JSON.parse(line)];
  } catch {
    const pieces = splitTopLevelObjects(line);
    if (pieces.length > 1) {
      try {
        const values = pieces.map((piece) => JSON.parse(piece) as unknown);
        warnings.push(
          `${source ?? 'input'}:${lineNumber}: ${values.length} JSON objects on one line, read as ${values.length} lines`,
        );
        return values;
      } catch {
        // Not whole objects after all: report the line as broken below.
      }
    }
    return [parseJsonLine(line, lineNumber, source)];
  }
}

/** The top-level `{…}` spans of a text, found by brace depth outside strings. */
function splitTopLevelObjects(text: string): string[] {
  const pieces: string[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (inString) {
      if (char === '\\') index++;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char === '{') {
      if (depth === 0) start = index;
      depth++;
    } else if (char === '}') {
      depth--;
      if (depth === 0 && start !== -1) pieces.push(text.slice(start, index + 1));
      if (depth < 0) return [];
    } else if (depth === 0 && char !== undefined && char.trim() !== '') return [];
  }
  return depth === 0 ? pieces : [];
}

/** Every non-empty line of a JSONL text as values (see {@link parseJsonLineValues}). */
export function jsonTextLines(
  text: string,
  source: string | undefined,
  warnings: string[],
): Array<{ value: unknown; lineNumber: number }> {
  const values: Array<{ value: unknown; lineNumber: number }> = [];
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    for (const value of parseJsonLineValues(line, index + 1, source, warnings))
      values.push({ value, lineNumber: index + 1 });
  });
  return values;
}
