/** Reading and writing OpenAI Responses conversations: `{ "instructions"?, "input": [...] }`. */

import type { ResponsesInputItem } from '../../conversation/responses-types.js';
import type { Conversation } from '../../model/messages.js';
import type { ValidationProblem, ValidationRule } from '../../model/problems.js';
import { isObject, type JsonObject, typeName, unreadable } from '../_internal/read-helpers.js';
import type { RawConversation } from '../dialect.js';
import type { ParsedConversation } from '../parsed-conversation.js';
import { fromResponsesInput, RESPONSES_DATA_KEY, toResponsesInput } from './responses-format.js';
import { validateResponsesInput } from './validate-responses.js';

/** Item types only the Responses API has; a part type `input_*`/`output_text` is a mark too. */
const responsesItemTypes = new Set([
  'message',
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'reasoning',
  'compaction',
  'item_reference',
]);
const responsesPartTypes = new Set(['input_text', 'output_text', 'input_image', 'input_file']);

/** True for an item only the Responses API writes (an item type, or an `input_*`/`output_text` part). */
export function hasResponsesMark(item: unknown): boolean {
  if (!isObject(item)) return false;
  const { type, content } = item;
  // An Anthropic API response object is also `type: "message"`: only its parts tell them apart.
  if (
    typeof type === 'string' &&
    type !== 'message' &&
    (responsesItemTypes.has(type) || type.endsWith('_call'))
  )
    return true;
  return (
    Array.isArray(content) &&
    content.some((part) => isObject(part) && responsesPartTypes.has(String(part.type)))
  );
}

/** A JSONL first line `{"instructions": ...}` of a Responses conversation. */
export function isInstructionsLine(line: unknown): line is JsonObject {
  return isObject(line) && Object.hasOwn(line, 'instructions') && !('role' in line) && !('type' in line);
}

/** Rules that make a Responses input unreadable (pairing and placement are left to `validate`). */
const structuralRules = new Set<ValidationRule>([
  'message-not-object',
  'invalid-role',
  'invalid-content',
  'invalid-block',
  'invalid-item',
  'invalid-tool-call',
  'invalid-tool-message',
]);

/**
 * The first problem that makes Responses items unreadable: an item the converter would keep whole
 * (a call whose `arguments` or an output whose `output` has the wrong type) no longer pairs with
 * its call, and a layer could keep one without the other.
 */
export function structuralProblem(items: unknown): ValidationProblem | undefined {
  const problems: ValidationProblem[] = [];
  validateResponsesInput(items, problems);
  return problems.find((found) => structuralRules.has(found.rule));
}

/** Reads Responses items and `instructions`; a structural problem is `UNREADABLE_INPUT` at its item. */
export function readResponsesConversation({
  messages: rawItems,
  system: rawSystem,
  layout,
  messagePath,
  source,
}: RawConversation): ParsedConversation {
  const problem = structuralProblem(rawItems);
  if (problem) {
    // `input[3].call_id` → the reader's own name for item 3 (its JSONL line when known).
    const path = problem.path.replace(/^input\[(\d+)\]/, (_, index: string) => messagePath(Number(index)));
    throw unreadable(problem.message, path, source);
  }
  if (rawSystem !== undefined && rawSystem !== null && typeof rawSystem !== 'string') {
    throw unreadable(`expected a string, got ${typeName(rawSystem)}`, 'instructions', source);
  }
  const responsesInput = rawItems as ResponsesInputItem[];
  const { messages, system } = fromResponsesInput(responsesInput, {
    instructions: rawSystem as string | undefined,
  });
  const conversation: Conversation = { messages };
  if (system !== undefined) conversation.system = system;
  return { conversation, format: 'responses', layout, responsesInput };
}

/** `{ "instructions"?, "input": [...] }`, or JSONL with an optional `{"instructions"}` first line. */
export function serializeResponses(
  conversation: Conversation,
  { jsonl = false }: { jsonl?: boolean },
): string {
  const { system } = conversation;
  const input = toResponsesInput(conversation.messages, system);
  const instructions = Array.isArray(system)
    ? system
        .filter(
          (block) =>
            (block.provider_data?.[RESPONSES_DATA_KEY] as { instructions?: true } | undefined)?.instructions,
        )
        .map((block) => block.text)
        .join('\n\n')
    : '';
  if (jsonl) {
    const lines = input.map((item) => JSON.stringify(item));
    if (instructions !== '') lines.unshift(JSON.stringify({ instructions }));
    return `${lines.join('\n')}\n`;
  }
  const body = instructions === '' ? { input } : { instructions, input };
  return `${JSON.stringify(body, null, 2)}\n`;
}
