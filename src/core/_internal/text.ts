import type { ContentBlock, ToolResultBlock } from '../model/messages.js';

/** The text of a tool result: its string content or its text blocks joined by newlines. */
export function toolResultText(block: ToolResultBlock): string {
  const { content } = block;
  if (content === undefined) return '';
  if (typeof content === 'string') return content;
  return content
    .map((part) => (part.type === 'text' && typeof part.text === 'string' ? part.text : `[${part.type}]`))
    .join('\n');
}

/** The text of one block for display and search (tool inputs as JSON). */
export function blockText(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return typeof block.text === 'string' ? block.text : '';
    case 'thinking':
      return typeof block.thinking === 'string' ? block.thinking : '';
    case 'tool_use':
      return `${String(block.name)} ${safeJson(block.input)}`;
    case 'tool_result':
      return toolResultText(block as ToolResultBlock);
    default:
      return '';
  }
}

/** JSON.stringify that never throws (cycles, BigInt) and never returns undefined. */
export function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '';
  }
}

/**
 * `text.slice(0, end)`, one character shorter when `end` falls between the two halves of a
 * surrogate pair (an emoji, a rare CJK character): half a pair is invalid UTF-16, and a provider
 * refuses the whole request that holds one (Anthropic: "no low surrogate in string").
 */
export function sliceHead(text: string, end: number): string {
  const cut =
    end > 0 && end < text.length && isLowSurrogate(text, end) && isHighSurrogate(text, end - 1)
      ? end - 1
      : end;
  return text.slice(0, Math.max(0, cut));
}

/** `text.slice(start)`, one character later when `start` falls between the two halves of a surrogate pair. */
export function sliceTail(text: string, start: number): string {
  const from =
    start > 0 && start < text.length && isLowSurrogate(text, start) && isHighSurrogate(text, start - 1)
      ? start + 1
      : start;
  return text.slice(from);
}

function isHighSurrogate(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  return code >= 0xdc00 && code <= 0xdfff;
}

/** One line, at most `max` characters, with an ellipsis when cut. */
export function shortenLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${sliceHead(line, max - 1)}…`;
}

/** What `errorLine` says of a thrown value it cannot read. */
const UNREADABLE_THROWN_VALUE = 'it threw a value that could not be read';

/**
 * An error's message on one line of at most 200 characters, for an event's reason. Never throws:
 * a model may throw anything (a Proxy, a throwing `message` getter, an object `String` refuses),
 * and the fallback that reason explains must still happen.
 */
export function errorLine(error: unknown): string {
  try {
    return shortenLine(String(error instanceof Error ? error.message : error), 200);
  } catch {
    return UNREADABLE_THROWN_VALUE;
  }
}

/**
 * Extensions of the files an agent's prose names (`manual_commit_hooks.go`, `config.yaml`), as a
 * regular expression alternation: what makes a word in a sentence or a report a file name.
 */
export const PROSE_FILE_EXTENSIONS =
  'ts|tsx|js|jsx|mjs|py|go|rs|java|kt|rb|php|cs|swift|c|h|cc|cpp|md|json|ya?ml|toml|sh|sql';

/**
 * `text` on one line within `max` characters, keeping how it starts and how it ends: the middle of
 * a long command goes, so its program and options stay and so does the file it reads or the pipe
 * it ends in. Cutting the end alone left forty `sed -n '1,220p' $(go env GOMODCACHE)/github.com/…`
 * lines that all read the same.
 *
 * @example
 * shortenMiddle("sed -n '1,80p' $(go env GOMODCACHE)/github.com/go-git/go-git/v5/plumbing/format/packfile/encoder.go", 60)
 * // "sed -n '1,80p' $(go env GOMODCACHE)/gith…packfile/encoder.go"
 */
export function shortenMiddle(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line.length <= max) return line;
  const tail = Math.floor((max - 1) / 3);
  const head = Math.max(0, max - 1 - tail);
  return `${sliceHead(line, head)}…${sliceTail(line, line.length - tail)}`;
}

/** A path within `max` characters, cut from its start so its file name stays: `…/strategy/cleanup.go`. */
export function pathTail(path: string, max: number): string {
  const line = path.replace(/\s+/g, ' ').trim();
  if (line.length <= max) return line;
  // `slice(-0)` is the whole line: a budget of one character is the mark alone.
  return max <= 1 ? '…' : `…${sliceTail(line, line.length - (max - 1))}`;
}

/** The first `items` that fit in `chars` characters joined by `, ` (the first whatever its length). */
export function fittingItems(items: readonly string[], chars: number): string[] {
  const kept: string[] = [];
  let length = 0;
  for (const item of items) {
    length += item.length + (kept.length > 0 ? 2 : 0);
    if (kept.length > 0 && length > chars) break;
    kept.push(item);
  }
  return kept;
}

/** `3.1k` style figures for placeholders. */
export function formatCount(value: number): string {
  if (value < 1000) return String(value);
  if (value < 100_000) return `${(value / 1000).toFixed(1).replace(/\.0$/, '')}k`;
  return `${Math.round(value / 1000)}k`;
}

/** The last part of a path: `src/app.ts` → `app.ts`. */
export function fileName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** Number of lines in a text (a trailing newline does not start a new line). */
export function countLines(text: string): number {
  if (text.length === 0) return 0;
  let lines = 1;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) {
    if (index < text.length - 1) lines++;
  }
  return lines;
}

const reservedTags = [
  'context_summary',
  'session_ledger',
  'identity',
  'latest_request',
  'working_set',
  'file',
  'function_calls',
  'invoke',
  'tool_use',
  'tool_result',
];
const reservedTagPattern = new RegExp(`<(/?)(${reservedTags.join('|')})\\b`, 'gi');

/**
 * Escapes text that imitates the tags compaction writes (`<context_summary>`, `<identity>`, a
 * files-back `<file path=…>`) or
 * tool-call markup, so tool output or a model's summary cannot forge them.
 */
export function escapeReservedTags(text: string): string {
  return text.replace(reservedTagPattern, (_match, slash: string, name: string) => `&lt;${slash}${name}`);
}
