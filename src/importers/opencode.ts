/**
 * opencode sessions as `opencode export <session>` writes them (checked with 1.18.33): `{ info,
 * messages: [{ info, parts }] }`. A user message's `text` parts are its text (a `synthetic` one is
 * opencode's own, such as the note it adds after a compaction); an assistant message holds one
 * model call per `step-start` … `step-finish`, whose `text` parts are its text, whose `tool` parts
 * are its calls (the `state` holds the input, and the output or error that becomes the tool_result
 * of the next user message) and whose `step-finish` carries the call's tokens.
 *
 * A compaction is a user message with a `compaction` part, then an assistant message marked
 * `summary: true` holding the summary: opencode's next request is the summary, the messages from
 * the part's `tail_start_id` on, and its note to go on.
 */
import type { ContentBlock, Message } from '../core/model/messages.js';
import { finishImport } from './_finish.js';
import { isObject, type JsonObject } from './_json.js';
import type { AgentCompaction, ImportedTranscript, ImportedUsage } from './imported-transcript.js';

/** True for an `opencode export`: session `info` with an id, and `messages` of `{ info, parts }`. */
export function isOpencodeExport(value: unknown): boolean {
  return (
    isObject(value) &&
    isObject(value.info) &&
    typeof value.info.id === 'string' &&
    Array.isArray(value.messages) &&
    value.messages.length > 0 &&
    value.messages.every(
      (message) => isObject(message) && isObject(message.info) && Array.isArray(message.parts),
    )
  );
}

/** One model call of an assistant message. */
interface Step {
  blocks: ContentBlock[];
  results: ContentBlock[];
  usage: ImportedUsage | undefined;
  /** When the call was made: the message's creation, or when the step before's last tool ended. */
  time: number | undefined;
  /** When its last tool finished. */
  toolEnd?: number;
}

/** Reads an `opencode export` (see the module comment). */
export function opencodeFromExport(value: unknown, source: string | undefined): ImportedTranscript {
  const exported = value as { messages: JsonObject[] };
  const messages: Message[] = [];
  const usage: (ImportedUsage | undefined)[] = [];
  const timestamps: (number | undefined)[] = [];
  const compactions: AgentCompaction[] = [];
  /** Where each opencode message id starts in `messages`. */
  const starts = new Map<string, number>();
  let pending: { tailStart: number; index: number; lineNumber: number } | undefined;
  exported.messages.forEach((message, position) => {
    const info = message.info as JsonObject;
    const parts = (message.parts as unknown[]).filter(isObject);
    if (typeof info.id === 'string') starts.set(info.id, messages.length);
    if (info.role === 'user') {
      const compaction = parts.find((part) => part.type === 'compaction');
      if (compaction) {
        const tail =
          typeof compaction.tail_start_id === 'string' ? starts.get(compaction.tail_start_id) : undefined;
        pending = { tailStart: tail ?? messages.length, index: messages.length, lineNumber: position + 1 };
        return;
      }
      const text = userText(parts);
      if (text !== '') messages.push({ role: 'user', content: text });
      return;
    }
    if (info.summary === true && pending) {
      compactions.push(compactionOf(pending, parts, messages));
      pending = undefined;
      return;
    }
    for (const step of steps(parts, info)) {
      messages.push({ role: 'assistant', content: step.blocks });
      usage.push(step.usage);
      timestamps.push(step.time);
      if (step.results.length > 0) messages.push({ role: 'user', content: step.results });
    }
  });
  const result = finishImport({ messages, usage, format: 'opencode', source, compactions });
  if (timestamps.some((time) => time !== undefined) && result.usage.length === timestamps.length)
    result.timestamps = timestamps;
  return result;
}

/** The compaction at `pending`: its summary, and what opencode sent after it (the kept tail). */
function compactionOf(
  pending: { tailStart: number; index: number; lineNumber: number },
  parts: JsonObject[],
  messages: readonly Message[],
): AgentCompaction {
  const summary = parts
    .flatMap((part) => (part.type === 'text' && typeof part.text === 'string' ? [part.text] : []))
    .join('\n');
  return {
    index: pending.index,
    lineNumber: pending.lineNumber,
    ...(summary === '' ? {} : { summary }),
    attached: messages.slice(pending.tailStart, pending.index),
    trigger: 'auto',
  };
}

/** The text a user typed (opencode's own synthetic notes included: they go to the model too). */
function userText(parts: readonly JsonObject[]): string {
  return parts
    .flatMap((part) => (part.type === 'text' && typeof part.text === 'string' ? [part.text] : []))
    .join('\n');
}

/** An assistant message's model calls, each from its `step-start` to its `step-finish`. */
function steps(parts: readonly JsonObject[], info: JsonObject): Step[] {
  const found: Step[] = [];
  let current: Step | undefined;
  const open = (time: number | undefined): Step => {
    current = { blocks: [], results: [], usage: undefined, time };
    found.push(current);
    return current;
  };
  const created =
    isObject(info.time) && typeof info.time.created === 'number' ? info.time.created : undefined;
  for (const part of parts) {
    if (part.type === 'step-start') {
      const before = found.at(-1);
      open(before === undefined ? created : (before.toolEnd ?? before.time));
      continue;
    }
    const step = current ?? open(created);
    if (part.type === 'text' && typeof part.text === 'string' && part.text !== '')
      step.blocks.push({ type: 'text', text: part.text });
    else if (part.type === 'tool') addTool(step, part);
    else if (part.type === 'step-finish') step.usage = usageOf(part.tokens);
  }
  return found.filter((step) => step.blocks.length > 0);
}

function addTool(step: Step, part: JsonObject): void {
  const state = isObject(part.state) ? part.state : {};
  const id = String(part.callID ?? part.id);
  step.blocks.push({
    type: 'tool_use',
    id,
    name: String(part.tool),
    input: isObject(state.input) ? state.input : {},
  });
  const failed = state.status === 'error';
  const output = failed ? state.error : state.output;
  step.results.push({
    type: 'tool_result',
    tool_use_id: id,
    content: typeof output === 'string' ? output : `(tool ${String(state.status ?? 'unfinished')})`,
    ...(failed ? { is_error: true } : {}),
  });
  if (isObject(state.time) && typeof state.time.end === 'number') step.toolEnd = state.time.end;
}

/** A step's tokens: the prompt is the new input and the cache read and written, as opencode splits it. */
function usageOf(tokens: unknown): ImportedUsage | undefined {
  if (!isObject(tokens) || typeof tokens.input !== 'number') return undefined;
  const cache = isObject(tokens.cache) ? tokens.cache : {};
  const read = typeof cache.read === 'number' ? cache.read : 0;
  const write = typeof cache.write === 'number' ? cache.write : 0;
  return {
    prompt_tokens: tokens.input + read + write,
    ...(typeof tokens.output === 'number' ? { completion_tokens: tokens.output } : {}),
  };
}
