import { toolResultText } from '../_internal/text.js';
import { CompactError } from '../model/errors.js';
import type { ToolResultBlock, ToolResultContentBlock } from '../model/messages.js';
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

/**
 * A tool definition in no provider's shape: name, description and JSON Schema of the input. The
 * provider shapes are `recallToolAnthropic` / `compactToolAnthropic` in `agent-compact/anthropic`
 * and `recallToolOpenAI` / `compactToolOpenAI` in `agent-compact/openai`.
 */
export interface CompactionToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: typeof recallSchema | typeof compactSchema;
}

/** The `recall` tool: brings back an archived item by id (run it with {@link handleRecall}). */
export const recallTool = {
  name: 'recall',
  description: recallDescription,
  inputSchema: recallSchema,
} as const satisfies CompactionToolDefinition;

/**
 * The `compact` tool: the model asks for a hard compaction, optionally with a focus (read it with
 * {@link parseCompactInput} and pass `{ force: 'hard', focus }` to the next `maybeCompact`).
 */
export const compactTool = {
  name: 'compact',
  description: compactDescription,
  inputSchema: compactSchema,
} as const satisfies CompactionToolDefinition;

/**
 * Runs the `recall` tool: the archived original. A tool result comes back byte-identical — as its
 * text, or as its blocks when it held images, so the model sees the images again; a replaced
 * history comes back as a transcript.
 *
 * @example
 * if (toolUse.name === 'recall') output = await handleRecall({ archive, sessionId }, toolUse.input);
 */
export async function handleRecall(
  { archive, sessionId }: { archive: ArchiveStore; sessionId: string },
  input: unknown,
): Promise<string | ToolResultContentBlock[]> {
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
    case 'tool_result': {
      const result = block as ToolResultBlock;
      const hasImages = Array.isArray(result.content) && result.content.some((part) => part.type === 'image');
      return hasImages && Array.isArray(result.content) ? result.content : toolResultText(result);
    }
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
