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
 *   by a rewind are left out; results of parallel tool calls, each logged as a child of its call's
 *   line, are kept. Without usable links every line is read in file order.
 * - Claude Code's own compactions (a `system` line with `subtype: "compact_boundary"`, then the
 *   `isCompactSummary` user line with its summary) are recorded in `compactions`: where the history
 *   was cut, the summary text and the user lines it attached before its next request. The summary
 *   line is left out of the messages (a replay compacts by itself; the `actual` strategy puts it
 *   back where Claude Code sent it). A boundary with no summary line is a warning.
 * - Line types this importer does not know are skipped with one warning per type.
 */

import { conversationFromValue, parseJsonLine } from '../core/conversation/parse-conversation.js';
import { CompactError } from '../core/model/errors.js';
import type { Message } from '../core/model/messages.js';
import { CANONICAL_FORMAT } from '../core/model/wire-format.js';
import { finishImport } from './_finish.js';
import { isObject, type JsonObject } from './_json.js';
import type { AgentCompaction, ImportedTranscript, ImportedUsage } from './imported-transcript.js';

/** Line types Claude Code writes that carry no conversation; skipped without a warning. */
const knownLineTypes = new Set([
  'user',
  'assistant',
  'system',
  'summary',
  'progress',
  'file-history-snapshot',
  'queue-operation',
  'pr-link',
  'custom-title',
]);

/** A compaction found in the file, before its place in the messages is known. */
interface CompactionMarker {
  compaction: AgentCompaction;
  /** Line of the summary, once seen. */
  summaryLine?: number;
  resolved: boolean;
}

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

/** The lines of a session that matter: messages, uuid links, compaction markers, unknown line types. */
function collectLines(lines: Iterable<{ value: unknown; lineNumber: number }>): {
  sessionLines: SessionLine[];
  links: Map<string, string | undefined>;
  markers: CompactionMarker[];
  unknownTypes: Map<string, { line: number; count: number }>;
} {
  const sessionLines: SessionLine[] = [];
  const links = new Map<string, string | undefined>();
  const markers: CompactionMarker[] = [];
  const unknownTypes = new Map<string, { line: number; count: number }>();
  for (const { value, lineNumber } of lines) {
    if (!isObject(value)) continue;
    const uuid = typeof value.uuid === 'string' ? value.uuid : undefined;
    if (uuid !== undefined) links.set(uuid, parentOf(value));
    noteUnknownType(value, lineNumber, unknownTypes);
    if (value.isSidechain !== true && isCompactBoundary(value)) {
      markers.push({ compaction: boundaryOf(value, lineNumber), resolved: false });
      continue;
    }
    if (value.type !== 'user' && value.type !== 'assistant') continue;
    const message = value.message;
    if (!isObject(message)) continue;
    if (value.type === 'assistant' && message.model === '<synthetic>') continue;
    if (value.isCompactSummary === true) {
      if (value.isSidechain !== true) recordSummary(markers, message, lineNumber);
      continue;
    }
    sessionLines.push({
      lineNumber,
      role: value.type,
      sidechain: value.isSidechain === true,
      value: message,
      raw: value,
      uuid,
    });
  }
  return { sessionLines, links, markers, unknownTypes };
}

/** Reads Claude Code session lines that are already parsed (with their 1-based line numbers). */
export function claudeCodeFromLines(
  lines: Iterable<{ value: unknown; lineNumber: number }>,
  source?: string,
): ImportedTranscript {
  const { sessionLines, links, markers, unknownTypes } = collectLines(lines);
  const hasMainChain = sessionLines.some((line) => !line.sidechain);
  const chain = hasMainChain ? sessionLines.filter((line) => !line.sidechain) : sessionLines;
  const { messages, usage, timestamps } = readBranch(activeBranch(chain, links), markers, source);
  const compactions = markers.filter((marker) => marker.resolved).map((marker) => marker.compaction);
  const result = finishImport({ messages, usage, format: 'claude-code', source, compactions });
  const warnings = [...compactionWarnings(markers, source), ...unknownTypeWarnings(unknownTypes, source)];
  if (warnings.length > 0) result.meta.warnings = [...(result.meta.warnings ?? []), ...warnings];
  if (timestamps.some((value) => value !== undefined) && result.usage.length === timestamps.length) {
    result.timestamps = timestamps;
  }
  return result;
}

/**
 * The branch's lines as messages, with usage and time per assistant message: the parts of one
 * API message joined, one call's tool results in one user message, and each compaction marker
 * resolved to the index of the first message after it.
 */
function readBranch(
  kept: readonly SessionLine[],
  markers: CompactionMarker[],
  source: string | undefined,
): { messages: Message[]; usage: (ImportedUsage | undefined)[]; timestamps: (number | undefined)[] } {
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
  let markerAt = 0;
  for (const line of kept) {
    const message = readMessage(line, source);
    // A compaction before this line starts here: the messages so far are what the agent compacted.
    while (markerAt < markers.length && markers[markerAt]!.compaction.lineNumber < line.lineNumber) {
      flushHeld();
      open = undefined;
      markers[markerAt]!.compaction.index = messages.length;
      markers[markerAt]!.resolved = true;
      markerAt++;
    }
    attachAfterSummary(markers[markerAt - 1], line, message, messages);
    const id = typeof line.value.id === 'string' ? line.value.id : undefined;
    if (line.role === 'assistant' && id !== undefined && open?.id === id) {
      heldResults = joinMessagePart(messages, open.index, message, heldResults);
      usage[usage.length - 1] = usageOf(line.value) ?? usage[usage.length - 1];
      continue;
    }
    if (line.role === 'user' && heldResults) {
      heldResults = mergeUserMessages([heldResults, message]);
      continue;
    }
    flushHeld();
    const previous = messages.at(-1);
    if (previous && onlyToolResults(previous) && onlyToolResults(message)) {
      // Results of one call's parallel tools, each on its own line: one user message.
      messages[messages.length - 1] = mergeUserMessages([previous, message]);
      continue;
    }
    messages.push(message);
    if (line.role === 'assistant') {
      usage.push(usageOf(line.value));
      timestamps.push(timestampOf(line.raw));
      open = { id, index: messages.length - 1 };
    }
  }
  flushHeld();
  return { messages, usage, timestamps };
}

/**
 * Another part of the API message at `index` joins it. Claude Code may have logged results of its
 * earlier tool_use blocks in between (it runs them one by one): they are taken out and returned
 * with the results already held, to go after the whole message.
 */
function joinMessagePart(
  messages: Message[],
  index: number,
  part: Message,
  held: Message | undefined,
): Message | undefined {
  const between = messages.splice(index + 1);
  const target = messages[index]!;
  target.content = [...blocksOf(target), ...blocksOf(part)];
  return between.length > 0 ? mergeUserMessages([...(held ? [held] : []), ...between]) : held;
}

/**
 * A user line after the latest compaction's summary, before the agent answers again: what Claude
 * Code sent beside the summary, kept with the compaction.
 */
function attachAfterSummary(
  latest: CompactionMarker | undefined,
  line: SessionLine,
  message: Message,
  messages: readonly Message[],
): void {
  if (!latest?.resolved || line.role !== 'user' || line.lineNumber <= (latest.summaryLine ?? Infinity))
    return;
  if (messages.slice(latest.compaction.index).every((sent) => sent.role !== 'assistant'))
    latest.compaction.attached.push(message);
}

/** One warning per line type the importer does not know, with its first line and count. */
function unknownTypeWarnings(
  unknownTypes: ReadonlyMap<string, { line: number; count: number }>,
  source: string | undefined,
): string[] {
  return [...unknownTypes].map(
    ([type, { line, count }]) =>
      `${source ?? 'input'}:${line}: unknown line type "${type}" skipped (${count} line${count === 1 ? '' : 's'})`,
  );
}

function isCompactBoundary(line: JsonObject): boolean {
  return line.type === 'system' && line.subtype === 'compact_boundary';
}

function boundaryOf(line: JsonObject, lineNumber: number): AgentCompaction {
  const compaction: AgentCompaction = { index: 0, lineNumber, attached: [] };
  const metadata = isObject(line.compactMetadata) ? line.compactMetadata : {};
  if (typeof metadata.trigger === 'string') compaction.trigger = metadata.trigger;
  if (typeof metadata.preTokens === 'number') compaction.preTokens = metadata.preTokens;
  return compaction;
}

/** The summary belongs to the latest boundary; a summary with no boundary before it is one of its own. */
function recordSummary(markers: CompactionMarker[], message: JsonObject, lineNumber: number): void {
  let marker = markers.at(-1);
  if (marker === undefined || marker.summaryLine !== undefined) {
    marker = { compaction: { index: 0, lineNumber, attached: [] }, resolved: false };
    markers.push(marker);
  }
  marker.summaryLine = lineNumber;
  marker.compaction.summary = summaryText(message.content);
}

function summaryText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block) => (isObject(block) && typeof block.text === 'string' ? block.text : ''))
    .filter((text) => text !== '')
    .join('\n');
}

function noteUnknownType(
  line: JsonObject,
  lineNumber: number,
  unknownTypes: Map<string, { line: number; count: number }>,
): void {
  if (typeof line.type !== 'string' || knownLineTypes.has(line.type)) return;
  const seen = unknownTypes.get(line.type);
  if (seen) seen.count++;
  else unknownTypes.set(line.type, { line: lineNumber, count: 1 });
}

function compactionWarnings(markers: readonly CompactionMarker[], source: string | undefined): string[] {
  const warnings: string[] = [];
  for (const { compaction, summaryLine, resolved } of markers) {
    const where = `${source ?? 'input'}:${compaction.lineNumber}`;
    if (summaryLine === undefined)
      warnings.push(`${where}: compact_boundary has no isCompactSummary line after it`);
    if (!resolved) warnings.push(`${where}: compaction after the last message (the session ends there)`);
  }
  return warnings;
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
  return lines.filter((line) => onBranch.has(line.uuid!) || isResultOffBranch(line, links, onBranch));
}

/**
 * Claude Code logs each result of parallel tool calls as a child of the assistant line holding its
 * call, so only the last result lies on the walked chain; the others hang off it and are kept.
 */
function isResultOffBranch(
  line: SessionLine,
  links: ReadonlyMap<string, string | undefined>,
  onBranch: ReadonlySet<string>,
): boolean {
  if (line.role !== 'user' || !Array.isArray(line.value.content)) return false;
  const parent = links.get(line.uuid!);
  if (parent === undefined || !onBranch.has(parent)) return false;
  const blocks = line.value.content as unknown[];
  return blocks.length > 0 && blocks.every((block) => isObject(block) && block.type === 'tool_result');
}

function readMessage(line: SessionLine, source: string | undefined): Message {
  const where = `${source ?? 'input'}:${line.lineNumber}`;
  try {
    const parsed = conversationFromValue([{ role: line.role, content: line.value.content }], 'array', {
      format: CANONICAL_FORMAT,
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

function onlyToolResults(message: Message): boolean {
  const blocks = blocksOf(message);
  return (
    message.role === 'user' && blocks.length > 0 && blocks.every((block) => block.type === 'tool_result')
  );
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
