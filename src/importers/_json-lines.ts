/** Internal: reads a JSONL file line by line, so a large file is never held whole. */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseJsonLine } from '../core/conversation/parse-conversation.js';

/**
 * Each non-empty line of a JSONL file, parsed, with its 1-based line number (a leading byte-order
 * mark is dropped). A line that is not JSON throws `UNREADABLE_INPUT` naming `source:LINE`.
 */
export async function* jsonFileLines(
  path: string,
  source: string,
): AsyncGenerator<{ value: unknown; lineNumber: number }> {
  const stream = createReadStream(path, { encoding: 'utf8' });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let lineNumber = 0;
  try {
    for await (const rawLine of lines) {
      lineNumber += 1;
      const line = lineNumber === 1 && rawLine.charCodeAt(0) === 0xfeff ? rawLine.slice(1) : rawLine;
      if (line.trim() !== '') yield { value: parseJsonLine(line, lineNumber, source), lineNumber };
    }
  } finally {
    lines.close();
    stream.destroy();
  }
}
