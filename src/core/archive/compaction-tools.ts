import { toolResultText } from '../_internal/text.js';
import type { ToolResultBlock } from '../conversation/types.js';
import { CompactError } from '../errors.js';
import { renderMessage } from '../summary/render-message.js';
import type { ArchiveStore } from './archive-store.js';

const recallDescription =
  'Bring back an archived item by its id: a tool result, tool input or text that compaction replaced by a ' +
  'placeholder ending in "recall rN", or the history a summary replaced. Returns the original, unchanged.';
const compactDescription =
  'Compact the conversation now: the history is replaced by a dense summary. Use it at a natural break ' +
  '(a subtask done) or when the context is cluttered. Optionally say what the summary should keep in focus.';

const recallSchema = {
  type: 'object',
  properties: { id: { type: 'string', description: 'The archive id, e.g. "r17".' } },
  required: ['id'],
  additionalProperties: false,
} as const;
const compactSchema = {
  type: 'object',
  properties: { focus: { type: 'string', description: 'What the summary should keep in focus.' } },
  additionalProperties: false,
} as const;

/** The `recall` tool in Anthropic form. */
export const recallToolAnthropic = {
  name: 'recall',
  description: recallDescription,
  input_schema: recallSchema,
} as const;
/** The `compact` tool in Anthropic form. */
export const compactToolAnthropic = {
  name: 'compact',
  description: compactDescription,
  input_schema: compactSchema,
} as const;
/** The `recall` tool in OpenAI function form. */
export const recallToolOpenAI = {
  type: 'function',
  function: { name: 'recall', description: recallDescription, parameters: recallSchema },
} as const;
/** The `compact` tool in OpenAI function form. */
export const compactToolOpenAI = {
  type: 'function',
  function: { name: 'compact', description: compactDescription, parameters: compactSchema },
} as const;

/**
 * Runs the `recall` tool: the archived original as text. A tool result comes back byte-identical;
 * a replaced history comes back as a transcript.
 *
 * @example
 * if (toolUse.name === 'recall') output = await handleRecall({ archive, sessionId }, toolUse.input);
 */
export async function handleRecall(
  { archive, sessionId }: { archive: ArchiveStore; sessionId: string },
  input: unknown,
): Promise<string> {
  const id = typeof input === 'object' && input !== null ? (input as { id?: unknown }).id : undefined;
  if (typeof id !== 'string' || !/^r\d+$/.test(id.trim())) {
    throw new CompactError('recall needs an id like "r17"', { code: 'INVALID_OPTIONS', path: 'input.id' });
  }
  const item = await archive.get(sessionId, id.trim());
  if (!item)
    throw new CompactError(`no archived item "${id}" in this session`, { code: 'ARCHIVE_ITEM_NOT_FOUND' });
  if (item.kind === 'messages') return (item.messages ?? []).map(renderMessage).join('\n\n');
  const block = item.block;
  if (!block) return '';
  switch (block.type) {
    case 'tool_result':
      return toolResultText(block as ToolResultBlock);
    case 'text':
      return typeof block.text === 'string' ? block.text : '';
    case 'tool_use':
      return JSON.stringify(block.input, null, 2);
    default:
      return JSON.stringify(block);
  }
}

/** Reads the `compact` tool's input: the focus for the summary, if any. */
export function parseCompactInput(input: unknown): { focus?: string } {
  const focus =
    typeof input === 'object' && input !== null ? (input as { focus?: unknown }).focus : undefined;
  return typeof focus === 'string' && focus.trim() !== '' ? { focus: focus.trim() } : {};
}
