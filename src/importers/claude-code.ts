/**
 * Importer for Claude Code session files (`~/.claude/projects/<project>/<session>.jsonl`, and the
 * subagent files beside them).
 *
 * - Lines of `type: "user" | "assistant"` carry an Anthropic `message`; every other line (summary,
 *   system, file-history-snapshot, …) is skipped.
 * - Claude Code writes one line per content block of a streamed reply, and when it runs the tool
 *   calls of one reply one by one it logs each result between the parts. Lines are grouped by
 *   `message.id`: one API call is one assistant message (with the usage of its last part) and the
 *   results logged between and after its parts are one user message, so the number of assistant
 *   turns equals the number of distinct assistant message ids.
 * - Each assistant turn keeps the `timestamp` of its first line (`timestamps`), so a replay can tell
 *   when the prompt cache had expired.
 * - Sidechain lines (`isSidechain: true`, a subagent's own conversation) are skipped when the file
 *   also has main-chain lines; a subagent file, which has only sidechain lines, is read whole.
 * - Assistant lines Claude Code wrote itself (`model: "<synthetic>"`, e.g. an API error notice) were
 *   never produced by a request, and are skipped.
 * - `message.usage` is kept per assistant turn. The session file does not record the system prompt.
 *
 * - Only the branch that ends at the last message is read: `parentUuid` links (and
 *   `logicalParentUuid` across a compaction boundary) are followed back from it, so turns abandoned
 *   by a rewind are left out. Without usable links every line is read in file order.
 * - Claude Code's own compaction summary (`isCompactSummary`) is skipped: the replay compacts by
 *   itself, and the summary would only repeat the history before it.
 */

import { conversationFromValue, parseJsonLine } from '../core/conversation/parse-conversation.js';
import type { Message } from '../core/conversation/types.js';
import { CompactError } from '../core/errors.js';
import { finishImport } from './_finish.js';
import { isObject, type JsonObject } from './_json.js';
import type { ImportedTranscript, ImportedUsage } from './imported-transcript.js';

/** Options of {@link importClaudeCode}. */
export interface ClaudeCodeImportOptions {
  /** The file name, put in front of error paths. */
  source?: string;
}

/** One message line of a session, as read. */
interface SessionLine {
  lineNumber: number;
  role: 'user' | 'assistant';
  sidechain: boolean;
  value: JsonObject;
  /** The whole line (for its `timestamp`). */
  raw: JsonObject;
  uuid: string | undefined;
}

/** True when a parsed JSONL line looks like a line of a Claude Code session. */
export function isClaudeCodeLine(value: unknown): boolean {
  if (!isObject(value) || typeof value.type !== 'string') return false;
  if ((value.type === 'user' || value.type === 'assistant') && isObject(value.message)) return true;
  return (
    value.type === 'summary' ||
    value.type === 'file-history-snapshot' ||
    (value.type === 'system' && typeof value.sessionId === 'string')
  );
}

/**
 * Reads a Claude Code session JSONL.
 *
 * @example
 * const { conversation, usage } = importClaudeCode(readFileSync('session.jsonl', 'utf8'));
 */
export function importClaudeCode(text: string, { source }: ClaudeCodeImportOptions = {}): ImportedTranscript {
  const values: Array<{ value: unknown; lineNumber: number }> = [];
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    values.push({ value: parseJsonLine(line, index + 1, source), lineNumber: index + 1 });
  });
  return claudeCodeFromLines(values, source);
}

/** Reads Claude Code session lines that are already parsed (with their 1-based line numbers). */
export function claudeCodeFromLines(
  lines: Iterable<{ value: unknown; lineNumber: number }>,
  source?: string,
): ImportedTranscript {
  const sessionLines: SessionLine[] = [];
  const links = new Map<string, string | undefined>();
  for (const { value, lineNumber } of lines) {
    if (!isObject(value)) continue;
    const uuid = typeof value.uuid === 'string' ? value.uuid : undefined;
    if (uuid !== undefined) links.set(uuid, parentOf(value));
    if (value.type !== 'user' && value.type !== 'assistant') continue;
    const message = value.message;
    if (!isObject(message)) continue;
    if (value.type === 'assistant' && message.model === '<synthetic>') continue;
    // Claude Code's own summary after /compact: the replay compacts by itself, so the summary
    // would only repeat the history that precedes it.
    if (value.isCompactSummary === true) continue;
    sessionLines.push({
      lineNumber,
      role: value.type,
      sidechain: value.isSidechain === true,
      value: message,
      raw: value,
      uuid,
    });
  }
  const hasMainChain = sessionLines.some((line) => !line.sidechain);
  const chain = hasMainChain ? sessionLines.filter((line) => !line.sidechain) : sessionLines;
  const kept = activeBranch(chain, links);

  const messages: Message[] = [];
  const usage: (ImportedUsage | undefined)[] = [];
  const timestamps: (number | undefined)[] = [];
  // The assistant message the latest assistant line belongs to, and the tool results logged
  // between its parts (one API call's results become one user message).
  let open: { id: string | undefined; index: number } | undefined;
  let heldResults: Message | undefined;
  const flushHeld = () => {
    if (heldResults) messages.push(heldResults);
    heldResults = undefined;
  };
  for (const line of kept) {
    const message = readMessage(line, source);
    const id = typeof line.value.id === 'string' ? line.value.id : undefined;
    if (line.role === 'assistant' && id !== undefined && open?.id === id) {
      // Another part of the same API message: Claude Code may have logged results of earlier
      // tool_use blocks in between (it runs them one by one); they move after the whole message.
      const between = messages.splice(open.index + 1);
      if (between.length > 0)
        heldResults = mergeUserMessages([...(heldResults ? [heldResults] : []), ...between]);
      const target = messages[open.index]!;
      target.content = [...blocksOf(target), ...blocksOf(message)];
      usage[usage.length - 1] = usageOf(line.value) ?? usage[usage.length - 1];
      continue;
    }
    if (line.role === 'user' && heldResults) {
      heldResults = mergeUserMessages([heldResults, message]);
      continue;
    }
    flushHeld();
    messages.push(message);
    if (line.role === 'assistant') {
      usage.push(usageOf(line.value));
      timestamps.push(timestampOf(line.raw));
      open = { id, index: messages.length - 1 };
    }
  }
  flushHeld();
  const result = finishImport({ messages, usage, format: 'claude-code', source });
  if (timestamps.some((value) => value !== undefined) && result.usage.length === timestamps.length) {
    result.timestamps = timestamps;
  }
  return result;
}

/** The time of a line in milliseconds since the epoch, from its ISO `timestamp`. */
function timestampOf(line: JsonObject): number | undefined {
  if (typeof line.timestamp !== 'string') return undefined;
  const time = Date.parse(line.timestamp);
  return Number.isNaN(time) ? undefined : time;
}

/** One user message with the blocks of several, in order. */
function mergeUserMessages(parts: readonly Message[]): Message {
  return { role: 'user', content: parts.flatMap((part) => blocksOf(part)) };
}
function parentOf(line: JsonObject): string | undefined {
  if (typeof line.parentUuid === 'string') return line.parentUuid;
  // A compaction boundary starts a new chain but names the line it continues.
  return typeof line.logicalParentUuid === 'string' ? line.logicalParentUuid : undefined;
}

/**
 * The lines on the branch that ends at the last message: walking `parentUuid` back from it drops
 * abandoned branches (a rewound conversation). When a line has no uuid or the walk hits a uuid the
 * file does not contain, the chain cannot be trusted and every line is kept, in file order.
 */
function activeBranch(lines: SessionLine[], links: ReadonlyMap<string, string | undefined>): SessionLine[] {
  const leaf = lines[lines.length - 1];
  if (leaf?.uuid === undefined || lines.some((line) => line.uuid === undefined)) return lines;
  const onBranch = new Set<string>();
  let current: string | undefined = leaf.uuid;
  while (current !== undefined && !onBranch.has(current)) {
    if (!links.has(current)) return lines;
    onBranch.add(current);
    current = links.get(current);
  }
  return lines.filter((line) => onBranch.has(line.uuid!));
}

function readMessage(line: SessionLine, source: string | undefined): Message {
  const where = `${source ?? 'input'}:${line.lineNumber}`;
  try {
    const parsed = conversationFromValue([{ role: line.role, content: line.value.content }], 'array', {
      format: 'anthropic',
    });
    return parsed.conversation.messages[0]!;
  } catch (error) {
    if (error instanceof CompactError && error.code === 'UNREADABLE_INPUT') {
      const message = error.message.replace(/^messages\[0\]\.content/, 'message.content');
      throw new CompactError(message, { code: 'UNREADABLE_INPUT', path: where, cause: error });
    }
    throw error;
  }
}

function blocksOf(message: Message): Exclude<Message['content'], string> {
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
}

function usageOf(message: JsonObject): ImportedUsage | undefined {
  const raw = message.usage;
  if (!isObject(raw)) return undefined;
  const usage: ImportedUsage = {};
  if (typeof raw.input_tokens === 'number') usage.input_tokens = raw.input_tokens;
  if (typeof raw.cache_creation_input_tokens === 'number') {
    usage.cache_creation_input_tokens = raw.cache_creation_input_tokens;
  }
  if (typeof raw.cache_read_input_tokens === 'number')
    usage.cache_read_input_tokens = raw.cache_read_input_tokens;
  if (typeof raw.output_tokens === 'number') usage.output_tokens = raw.output_tokens;
  return Object.keys(usage).length === 0 ? undefined : usage;
}
