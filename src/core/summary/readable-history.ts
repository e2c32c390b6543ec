import type {
  ContentBlock,
  ImageBlock,
  Message,
  TextBlock,
  ToolResultBlock,
  ToolResultContentBlock,
} from '../model/messages.js';
import { SAME_MODEL_PROVIDER, type SummaryModel } from './summary-model.js';

/** Stands in for a message whose every block was unreadable, so the history stays valid. */
export const UNREADABLE_CONTENT_TEXT = '[encrypted or signed content omitted]';

/**
 * The history as a summarizer may read it: nothing opaque or signed leaves for another model.
 * `thinking` (signed), `redacted_thinking` (encrypted) and OpenAI `reasoning` / `item_reference`
 * items are dropped; a provider `compaction`
 * block becomes the text of its readable summary (its `encrypted_content` stays behind); blocks of
 * other unknown types that carry `encrypted_content`, `data` or a `signature` are dropped. What a
 * summarizer API may not take — an OpenAI `input_file`, an image by file id, any other block type
 * this library does not model, also inside a tool result — becomes a short text stand-in
 * (`[file: report.pdf]`, see {@link blockStandIn}). Pure: messages with nothing to change are the
 * same objects.
 */
export function readableHistory(messages: readonly Message[]): Message[] {
  return messages.map((message) => {
    if (typeof message.content === 'string' || !message.content.some(needsRewrite)) return message;
    const content = message.content.flatMap(readableBlock);
    return {
      ...message,
      content: content.length > 0 ? content : [{ type: 'text', text: UNREADABLE_CONTENT_TEXT }],
    };
  });
}

/**
 * The history a summarizer gets: as the agent sent it for the agent's own model (its request then
 * shares the agent's cached prefix, thinking blocks and all), {@link readableHistory} for any other.
 */
export function historyForSummarizer(
  messages: readonly Message[],
  summarizer: Pick<SummaryModel, 'provider'>,
): readonly Message[] {
  return summarizer.provider === SAME_MODEL_PROVIDER ? messages : readableHistory(messages);
}

function needsRewrite(block: ContentBlock): boolean {
  return readableBlock(block)[0] !== block;
}

function readableBlock(block: ContentBlock): ContentBlock[] {
  switch (block.type) {
    case 'thinking':
    case 'redacted_thinking':
    // OpenAI Responses: reasoning is the model's private thinking like `thinking` (its summary
    // included), and an item reference points at a stored item the summarizer cannot see.
    case 'reasoning':
    case 'item_reference':
      return [];
    case 'compaction': {
      const summary = (block as { content?: unknown }).content;
      const text: TextBlock = { type: 'text', text: `[earlier summary by the provider]\n${String(summary)}` };
      return typeof summary === 'string' && summary !== '' ? [text] : [];
    }
    case 'text':
    case 'tool_use':
      return [block];
    case 'image':
      return [readableImage(block as ImageBlock)];
    case 'tool_result':
      return [readableToolResult(block as ToolResultBlock)];
    default:
      return isOpaque(block) ? [] : [{ type: 'text', text: blockStandIn(block) }];
  }
}

/** An image by base64 data or URL goes as it is; one by a provider's file id, as its stand-in. */
function readableImage(block: ImageBlock): ContentBlock {
  const { type } = block.source;
  return type === 'base64' || type === 'url' ? block : { type: 'text', text: blockStandIn(block) };
}

function readableToolResult(block: ToolResultBlock): ToolResultBlock {
  if (!Array.isArray(block.content)) return block;
  const content = block.content.map(readableResultPart);
  return content.every((part, index) => part === block.content![index]) ? block : { ...block, content };
}

function readableResultPart(part: ToolResultContentBlock): ToolResultContentBlock {
  if (part.type === 'text') return part;
  if (part.type === 'image') return readableImage(part as ImageBlock) as ToolResultContentBlock;
  return { type: 'text', text: blockStandIn(part) };
}

/** Fields that name what a block holds, in the order a reader would pick them. */
const nameFields = ['filename', 'title', 'name', 'file_id', 'file_url', 'url'] as const;

/**
 * A short text that stands in for a block a summarizer cannot read or an API cannot take:
 * `[file: report.pdf]` for an OpenAI `input_file`, `[image: file-abc]` for an image by file id,
 * `[web_search_call]` for a block that names nothing.
 */
export function blockStandIn(block: ContentBlock): string {
  const record = block as Record<string, unknown>;
  const source = typeof record.source === 'object' && record.source !== null ? record.source : {};
  const label = block.type === 'input_file' ? 'file' : block.type.replace(/^input_/, '');
  for (const holder of [record, source as Record<string, unknown>]) {
    const name = nameFields.map((field) => holder[field]).find((value) => typeof value === 'string');
    if (typeof name === 'string' && !name.startsWith('data:')) return `[${label}: ${name}]`;
  }
  return `[${label}]`;
}

/** A block of a type this library does not model that carries data only its provider can read. */
function isOpaque(block: ContentBlock): boolean {
  return ['encrypted_content', 'data', 'signature'].some((key) => Object.hasOwn(block, key));
}
