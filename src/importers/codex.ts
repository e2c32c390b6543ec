/**
 * Importer for Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`): one
 * `{ timestamp, type, payload }` object a line.
 *
 * - `session_meta`: the first one's `base_instructions.text` becomes the system prompt.
 * - `response_item`: a Responses API item (`message`, `reasoning`, `function_call`,
 *   `function_call_output`, `custom_tool_call`, …), converted in order as a Responses input is.
 * - `event_msg` with `type: "token_count"`: `info.last_token_usage` is the usage of the latest
 *   model response, kept for the assistant turn it produced.
 * - `compacted`: Codex's own compaction. Recorded in `compactions` with the history Codex continued
 *   with (`replacement_history`); its summary item is encrypted or redacted, so `summary` is only set
 *   when `message` holds text.
 * - `turn_context` and other `event_msg` types carry nothing to replay; unknown line types are
 *   skipped with one warning per type.
 */

import type { ResponsesInputItem } from '../core/conversation/responses-types.js';
import { CompactError } from '../core/model/errors.js';
import type { SystemPrompt } from '../core/model/messages.js';
import type { ValidationProblem } from '../core/model/problems.js';
import { fromResponsesInput } from '../core/wire/responses/responses-format.js';
import { validateResponsesItem } from '../core/wire/responses/validate-responses.js';
import { finishImport } from './_finish.js';
import { isObject, type JsonObject } from './_json.js';
import type { AgentCompaction, ImportedTranscript, ImportedUsage } from './imported-transcript.js';

const knownLineTypes = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted']);

/** True when a parsed JSONL line looks like a line of a Codex rollout. */
export function isCodexRolloutLine(value: unknown): boolean {
  return (
    isObject(value) &&
    typeof value.type === 'string' &&
    isObject(value.payload) &&
    (value.type === 'session_meta' || value.type === 'response_item' || value.type === 'turn_context')
  );
}

/** A compaction seen in the file, with the number of items read before it. */
interface CompactionAt {
  compaction: AgentCompaction;
  itemsBefore: number;
}

/** What the lines say, before conversion. */
interface RolloutParts {
  instructions: string | undefined;
  items: ResponsesInputItem[];
  /** Usage and time per assistant turn (a run of items on the assistant side). */
  usage: (ImportedUsage | undefined)[];
  timestamps: (number | undefined)[];
  compactions: CompactionAt[];
  warnings: string[];
}

/**
 * Reads Codex rollout lines that are already parsed (with their 1-based line numbers).
 *
 * A `response_item` the Responses API would refuse is skipped with a warning naming its line
 * (`rollout.jsonl:12: payload.content[1]: …`).
 *
 * @throws {CompactError} `UNREADABLE_INPUT` when the file holds no `response_item`.
 * @example
 * const transcript = codexFromLines(lines, 'rollout.jsonl');
 */
export function codexFromLines(
  lines: Iterable<{ value: unknown; lineNumber: number }>,
  source?: string,
): ImportedTranscript {
  const parts = readRollout(lines, source);
  if (parts.items.length === 0) {
    throw new CompactError('no response_item lines: not a Codex rollout with a conversation', {
      code: 'UNREADABLE_INPUT',
      ...(source === undefined ? {} : { path: source }),
    });
  }
  const { messages, system } = fromResponsesInput(parts.items, { instructions: parts.instructions });
  const turns = messages.filter((message) => message.role === 'assistant').length;
  const usage = Array.from({ length: turns }, (_, turn) => parts.usage[turn]);
  const compactions = parts.compactions.map(({ compaction, itemsBefore }) => ({
    ...compaction,
    index: fromResponsesInput(parts.items.slice(0, itemsBefore)).messages.length,
  }));
  const result = finishImport({
    system: system as SystemPrompt | undefined,
    messages,
    usage,
    format: 'codex',
    source,
    compactions,
  });
  if (parts.timestamps.length === turns && result.usage.length === turns)
    result.timestamps = parts.timestamps;
  if (parts.warnings.length > 0) result.meta.warnings = [...(result.meta.warnings ?? []), ...parts.warnings];
  return result;
}

function readRollout(lines: Iterable<{ value: unknown; lineNumber: number }>, source?: string): RolloutParts {
  const parts: RolloutParts = {
    instructions: undefined,
    items: [],
    usage: [],
    timestamps: [],
    compactions: [],
    warnings: [],
  };
  const unknown = new Map<string, { line: number; count: number }>();
  let onAssistantSide = false;
  for (const { value, lineNumber } of lines) {
    if (!isObject(value) || typeof value.type !== 'string') {
      parts.warnings.push(
        `${source ?? 'input'}:${lineNumber}: not a rollout line ({ type, payload }), skipped`,
      );
      continue;
    }
    const payload = isObject(value.payload) ? value.payload : {};
    switch (value.type) {
      case 'session_meta':
        parts.instructions ??= instructionsOf(payload);
        break;
      case 'response_item':
        onAssistantSide = addItem(parts, value, `${source ?? 'input'}:${lineNumber}`, onAssistantSide);
        break;
      case 'event_msg': {
        const usage = payload.type === 'token_count' ? usageOf(payload.info) : undefined;
        const turn = parts.timestamps.length - 1;
        if (usage && turn >= 0) parts.usage[turn] = usage;
        break;
      }
      case 'compacted':
        parts.compactions.push({
          compaction: compactionOf(payload, lineNumber),
          itemsBefore: parts.items.length,
        });
        onAssistantSide = false;
        break;
      default: {
        if (knownLineTypes.has(value.type)) break;
        const seen = unknown.get(value.type);
        if (seen) seen.count++;
        else unknown.set(value.type, { line: lineNumber, count: 1 });
      }
    }
  }
  for (const [type, { line, count }] of unknown) {
    parts.warnings.push(
      `${source ?? 'input'}:${line}: unknown line type "${type}" skipped (${count} line${count === 1 ? '' : 's'})`,
    );
  }
  return parts;
}

/**
 * Adds a `response_item` line's item, or a warning when the API would refuse it; returns the side
 * the items are on after it (a new run of assistant-side items is the next assistant turn).
 */
function addItem(parts: RolloutParts, line: JsonObject, where: string, onAssistantSide: boolean): boolean {
  const problem = itemProblem(line.payload);
  if (problem !== undefined) {
    parts.warnings.push(`${where}: ${problem}; item skipped`);
    return onAssistantSide;
  }
  const item = line.payload as JsonObject;
  const assistant = isAssistantSide(item, onAssistantSide);
  if (assistant && !onAssistantSide) parts.timestamps.push(timestampOf(line));
  parts.items.push(item as ResponsesInputItem);
  return assistant;
}

/**
 * What is wrong with an item whose shape the Responses API would refuse (`payload.content[1]: part
 * must be …`), or undefined. One broken line is skipped with a warning naming it, as a line that is
 * not a rollout line is: the rest of a long session still imports.
 */
function itemProblem(item: unknown): string | undefined {
  const problems: ValidationProblem[] = [];
  validateResponsesItem(item, 'payload', problems);
  const [first] = problems;
  return first === undefined ? undefined : `${first.path}: ${first.message}`;
}

/** The side `fromResponsesInput` puts an item on (outputs of tools are the user's side). */
function isAssistantSide(item: JsonObject, previous: boolean): boolean {
  const type = typeof item.type === 'string' ? item.type : undefined;
  if (type === undefined || type === 'message') return item.role === 'assistant';
  if (type === 'item_reference') return previous;
  return !(type.endsWith('_output') || type === 'mcp_approval_response');
}

function instructionsOf(payload: JsonObject): string | undefined {
  const base = payload.base_instructions;
  if (typeof base === 'string') return base;
  return isObject(base) && typeof base.text === 'string' ? base.text : undefined;
}

function compactionOf(payload: JsonObject, lineNumber: number): AgentCompaction {
  const compaction: AgentCompaction = { index: 0, lineNumber, attached: [] };
  if (typeof payload.message === 'string' && payload.message.trim() !== '')
    compaction.summary = payload.message;
  if (Array.isArray(payload.replacement_history)) {
    const items = payload.replacement_history.filter(isObject) as ResponsesInputItem[];
    const { messages } = fromResponsesInput(items);
    compaction.replacementHistory = messages;
  }
  return compaction;
}

function timestampOf(line: JsonObject): number | undefined {
  if (typeof line.timestamp !== 'string') return undefined;
  const time = Date.parse(line.timestamp);
  return Number.isNaN(time) ? undefined : time;
}

/** `last_token_usage` as transcript usage: `input_tokens` is the whole prompt, cached tokens in details. */
function usageOf(info: unknown): ImportedUsage | undefined {
  if (!isObject(info) || !isObject(info.last_token_usage)) return undefined;
  const last = info.last_token_usage;
  if (typeof last.input_tokens !== 'number') return undefined;
  const usage: ImportedUsage = { input_tokens: last.input_tokens };
  if (typeof last.output_tokens === 'number') usage.output_tokens = last.output_tokens;
  if (typeof last.cached_input_tokens === 'number') {
    usage.prompt_tokens_details = { cached_tokens: last.cached_input_tokens };
  }
  return usage;
}
