/** What kind of Responses item or part a value is: the checks the reader and the writer share. */
import type { ResponsesContentPart, ResponsesInputItem } from '../../conversation/responses-types.js';

type JsonRecord = Record<string, unknown>;

/** The text part type of a message of `role`. */
export function textPartType(role: string): string {
  return role === 'assistant' ? 'output_text' : 'input_text';
}

/** Part types each side of a message may hold (the API rejects the others with a 400). */
const assistantPartTypes = new Set(['output_text', 'refusal']);
const inputPartTypes = new Set(['input_text', 'input_image', 'input_file', 'input_audio']);

/** The part types a message of `role` may hold. */
export function partTypesOf(role: unknown): ReadonlySet<string> {
  return role === 'assistant' ? assistantPartTypes : inputPartTypes;
}

/** A message item: a role, and string or part-list content (a `type`, when present, is `message`). */
export function isMessageItem(
  item: ResponsesInputItem,
): item is ResponsesInputItem & { role: string; content: string | ResponsesContentPart[] } {
  if (item.type !== undefined && item.type !== 'message') return false;
  const { role, content } = item as JsonRecord;
  return typeof role === 'string' && (typeof content === 'string' || Array.isArray(content));
}

/** An `input_text` part with its text. */
export function isTextPart(part: unknown): boolean {
  const record = part as JsonRecord | null;
  return (
    typeof record === 'object' &&
    record !== null &&
    record.type === 'input_text' &&
    typeof record.text === 'string'
  );
}

/** A call output: a string, or a list of parts (objects with a string type). */
export function isOutput(output: unknown): boolean {
  return typeof output === 'string' || (Array.isArray(output) && output.every(isPart));
}

function isPart(part: unknown): boolean {
  return typeof part === 'object' && part !== null && typeof (part as JsonRecord).type === 'string';
}
