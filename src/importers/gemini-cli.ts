/**
 * Gemini CLI saved chats (`~/.gemini/tmp/<project>/chats/session-*.jsonl`, one record per line, or
 * the older `session-*.json` with a `messages` array): `user` records become user messages,
 * `gemini` records assistant messages with their `toolCalls` as tool_use blocks, each call's
 * `result` the tool_result of the next user message; `tokens.input` is the turn's prompt usage.
 *
 * The records are folded as the CLI's own loader (`loadConversationRecord`, 0.61) folds them: the
 * CLI appends a message again each time it changes (its tool results, its token counts arrive
 * later), so a record replaces the earlier one with its `id` in place; `{ "$rewindTo": id }` drops
 * that message and every later one; `{ "$set": { "messages": [...] } }` replaces them all.
 */
import type { ContentBlock, Message } from '../core/model/messages.js';
import { finishImport } from './_finish.js';
import { isObject, type JsonObject } from './_json.js';
import type { ImportedTranscript, ImportedUsage } from './imported-transcript.js';

/** True for one Gemini CLI chat record (`type: "user" | "gemini"` with `content`). */
export function isGeminiCliRecord(value: unknown): boolean {
  return (
    isObject(value) && (value.type === 'user' || value.type === 'gemini') && Object.hasOwn(value, 'content')
  );
}

/** True for a whole saved chat: `{ sessionId, messages: [records] }`. */
export function isGeminiCliChat(value: unknown): boolean {
  return (
    isObject(value) &&
    typeof value.sessionId === 'string' &&
    Array.isArray(value.messages) &&
    value.messages.some(isGeminiCliRecord)
  );
}

/** Reads the records of a Gemini CLI chat (other lines, such as a session header, are skipped). */
export function geminiCliFromRecords(
  values: readonly unknown[],
  source: string | undefined,
): ImportedTranscript {
  const messages: Message[] = [];
  const usage: (ImportedUsage | undefined)[] = [];
  for (const record of foldRecords(values)) {
    const { type, content } = record;
    if (type === 'user') {
      // A turn of function responses only (written back from the model's history) repeats the
      // results the calls' records already hold.
      if (onlyFunctionResponses(content)) continue;
      messages.push({ role: 'user', content: textOf(content) || '(empty)' });
      continue;
    }
    const { blocks, results } = modelTurn(record as JsonObject);
    if (blocks.length === 0) continue;
    messages.push({ role: 'assistant', content: blocks });
    usage.push(usageOf((record as JsonObject).tokens));
    if (results.length > 0) messages.push({ role: 'user', content: results });
  }
  return finishImport({ messages, usage, format: 'gemini-cli', source });
}

/** The chat's message records, in order, as the CLI loads them (see the module comment). */
function foldRecords(values: readonly unknown[]): JsonObject[] {
  const byId = new Map<string, JsonObject>();
  const add = (record: unknown) => {
    if (!isGeminiCliRecord(record)) return;
    const value = record as JsonObject;
    byId.set(typeof value.id === 'string' ? value.id : `#${byId.size}`, value);
  };
  for (const value of values) {
    if (!isObject(value)) continue;
    if (typeof value.$rewindTo === 'string') {
      rewind(byId, value.$rewindTo);
    } else if (isObject(value.$set) && Array.isArray(value.$set.messages)) {
      byId.clear();
      value.$set.messages.forEach(add);
    } else if (isGeminiCliChat(value)) {
      (value.messages as unknown[]).forEach(add);
    } else {
      add(value);
    }
  }
  return [...byId.values()];
}

/** Drops the message `id` and every later one; an unknown id drops them all, as the CLI does. */
function rewind(byId: Map<string, JsonObject>, id: string): void {
  if (!byId.has(id)) {
    byId.clear();
    return;
  }
  let found = false;
  for (const key of [...byId.keys()]) {
    found ||= key === id;
    if (found) byId.delete(key);
  }
}

function onlyFunctionResponses(content: unknown): boolean {
  return (
    Array.isArray(content) &&
    content.length > 0 &&
    content.every((part) => isObject(part) && isObject(part.functionResponse))
  );
}

function modelTurn(record: JsonObject): { blocks: ContentBlock[]; results: ContentBlock[] } {
  const blocks: ContentBlock[] = [];
  const results: ContentBlock[] = [];
  const text = textOf(record.content);
  if (text !== '') blocks.push({ type: 'text', text });
  const calls = Array.isArray(record.toolCalls) ? record.toolCalls.filter(isObject) : [];
  calls.forEach((call, index) => {
    const id = typeof call.id === 'string' ? call.id : `gemini_cli_${String(record.id)}_${index}`;
    blocks.push({
      type: 'tool_use',
      id,
      name: String(call.name),
      input: isObject(call.args) ? call.args : {},
    });
    results.push({
      type: 'tool_result',
      tool_use_id: id,
      content: resultText(call.result),
      ...(call.status === 'error' ? { is_error: true } : {}),
    });
  });
  return { blocks, results };
}

/** A call's `result`: `functionResponse` parts, their `output` (or the response's JSON). */
function resultText(result: unknown): string {
  const parts = Array.isArray(result) ? result : [result];
  return parts
    .map((part) => {
      const response =
        isObject(part) && isObject(part.functionResponse) ? part.functionResponse.response : part;
      if (isObject(response) && typeof response.output === 'string') return response.output;
      if (isObject(response) && typeof response.error === 'string') return response.error;
      return typeof response === 'string' ? response : JSON.stringify(response ?? null);
    })
    .join('\n');
}

/** Content as text: a string, or the text of its parts. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  const parts = Array.isArray(content) ? content : [content];
  return parts
    .map((part) =>
      isObject(part) && typeof part.text === 'string' && part.thought !== true ? part.text : '',
    )
    .join('');
}

function usageOf(tokens: unknown): ImportedUsage | undefined {
  if (!isObject(tokens) || typeof tokens.input !== 'number') return undefined;
  return {
    prompt_tokens: tokens.input,
    ...(typeof tokens.output === 'number' ? { completion_tokens: tokens.output } : {}),
  };
}
