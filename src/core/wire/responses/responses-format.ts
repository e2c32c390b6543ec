/**
 * Conversion between an OpenAI Responses `input` and the canonical (Anthropic-shaped) model.
 *
 * - Items are grouped by side into canonical messages: assistant `message`s, `function_call`,
 *   `custom_tool_call`, `reasoning`, `compaction` and other tool-call items form assistant
 *   messages; user, `system` and `developer` `message`s and call outputs form user messages; an
 *   `item_reference` joins the side before it.
 * - `system` and `developer` messages at the start of the input (text only), a leading `developer`
 *   item of another type (Codex's `additional_tools`, kept whole) and `instructions`
 *   become the system prompt. Instructions are marked, so {@link toResponsesInput} leaves them to
 *   the request's `instructions` field; later system messages stay where they are, in user turns.
 * - `function_call` becomes `tool_use` (its `arguments` parsed into `input`, see
 *   {@link parseToolArguments}); `custom_tool_call` becomes `tool_use` with `input: { input }`;
 *   the outputs become `tool_result` with the output string or parts (a list that is not all parts,
 *   such as `[null]`, as its JSON, written back as it came unless compacted).
 * - `reasoning`, `compaction` and `item_reference` items (and item types this module does not
 *   model) are kept whole as blocks of their own type: `encrypted_content` is never read or changed.
 * - LOSSLESS: every field the canonical block has no slot for (item `id`, `status`, `phase`, part
 *   `annotations`, image `detail`, arguments whitespace, key order, …) is kept on the block under
 *   `provider_data.responses` ({@link ResponsesBlockData}) only when the default output would differ,
 *   so `toResponsesInput(fromResponsesInput(input).messages)` equals `input` byte for byte. A block
 *   the compactor rewrote carries no such data and is written in the default shape.
 */

import { parseToolArguments, stringifyToolInput } from '../../conversation/openai-format.js';
import type {
  ResponsesContentPart,
  ResponsesInput,
  ResponsesInputItem,
} from '../../conversation/responses-types.js';
import { CompactError } from '../../model/errors.js';
import type {
  ContentBlock,
  ImageBlock,
  Message,
  SystemPrompt,
  TextBlock,
  ToolResultBlock,
  ToolResultContentBlock,
  ToolUseBlock,
} from '../../model/messages.js';
import { isMessageItem, isOutput, isTextPart, partTypesOf, textPartType } from './responses-items.js';

/** The key under `provider_data` that holds {@link ResponsesBlockData}. */
export const RESPONSES_DATA_KEY = 'responses';

/** What a canonical block keeps of its Responses item and part, for an exact round trip. */
export interface ResponsesBlockData {
  /** The item the block starts, its content fields set to null; absent when it is the default shape. */
  item?: Record<string, unknown>;
  /** The content part the block was, its text or URL set to null; absent when it is the default shape. */
  part?: Record<string, unknown>;
  /** The message item's content was a string, not a part list. */
  stringContent?: true;
  /** The block is another part of the message item the block before it started. */
  continues?: true;
  /** The block is a whole item of a type this module does not model (written back as it is). */
  whole?: true;
  /** A whole item had no `type` (`'absent'`) or `type: null` (`'null'`), as an `item_reference` may. */
  untyped?: 'absent' | 'null';
  /** A system block read from the request's `instructions`: not written into `input`. */
  instructions?: true;
  /** A leading developer item that is not a message (Codex's `additional_tools`), written back whole. */
  systemItem?: Record<string, unknown>;
  /** A call output list that is not all parts (`[null]`), as it came; the block's content is its JSON. */
  rawOutput?: unknown[];
}

/** Options of {@link fromResponsesInput}. */
export interface FromResponsesOptions {
  /** The request's `instructions`; they become the first system block. */
  instructions?: string | null | undefined;
}

/** A conversation converted from a Responses input. */
export interface FromResponsesResult {
  /** The conversation without its leading system and developer messages. */
  messages: Message[];
  /** `instructions` and the leading system/developer messages, as text blocks; absent when none. */
  system?: SystemPrompt;
}

/** Item types kept whole as blocks of their own type (no marker needed to write them back). */
const wholeItemTypes = new Set(['reasoning', 'compaction', 'item_reference']);

export type Side = Message['role'];
type JsonRecord = Record<string, unknown>;

/**
 * Converts a Responses `input` (a string or items) to the canonical model. Items of any shape are
 * kept (unknown or malformed ones whole, as blocks of their own type); only input that is not a
 * string or an array of objects throws.
 *
 * @throws {CompactError} `UNREADABLE_INPUT` with the path (`input`, `input[3]`).
 * @example
 * const { system, messages } = fromResponsesInput(
 *   [{ role: 'user', content: 'List the files' }],
 *   { instructions: 'You are a coding agent.' },
 * );
 */
export function fromResponsesInput(
  input: ResponsesInput,
  { instructions }: FromResponsesOptions = {},
): FromResponsesResult {
  const system: TextBlock[] = [];
  if (typeof instructions === 'string') {
    system.push(withData({ type: 'text', text: instructions }, { instructions: true }));
  }
  const items = itemsOf(input);
  const messages: Message[] = [];
  const customCalls = new Set<string>();
  let leading = true;
  for (const item of items) {
    if (leading) {
      const blocks = systemBlocksOf(item);
      if (blocks) {
        system.push(...blocks);
        continue;
      }
      leading = false;
    }
    const side = sideOf(item, messages.at(-1)?.role);
    const last = messages.at(-1);
    const blocks = blocksOfItem(item, side, customCalls);
    if (last && last.role === side) (last.content as ContentBlock[]).push(...blocks);
    else messages.push({ role: side, content: blocks });
  }
  const result: FromResponsesResult = { messages: messages.map(plainStringMessage) };
  if (system.length > 0) result.system = system;
  return result;
}

/**
 * Converts a canonical conversation to Responses `input` items. System blocks read from
 * `instructions` are left out (they belong in the request's `instructions`); other system text is
 * written as `developer` messages first.
 *
 * @example
 * const input = toResponsesInput(messages, system);
 * await client.responses.create({ model, instructions, input });
 */
export function toResponsesInput(messages: readonly Message[], system?: SystemPrompt): ResponsesInputItem[] {
  const items: ResponsesInputItem[] = [];
  const callTypes = new Map<string, string>();
  if (typeof system === 'string') items.push({ role: 'developer', content: system });
  else if (system) {
    const written = system.filter((block) => !dataOf(block)?.instructions);
    writeBlocks(written, 'developer', items, callTypes);
  }
  for (const message of messages) {
    if (typeof message.content === 'string') items.push({ role: message.role, content: message.content });
    else writeBlocks(message.content, message.role, items, callTypes);
  }
  return items;
}

/** The Responses data a block carries, if any. */
export function responsesDataOf(block: ContentBlock): ResponsesBlockData | undefined {
  return dataOf(block);
}

// ---------------------------------------------------------------------------------------------
// Reading

/** The input as items; anything but a string or an array of objects is `UNREADABLE_INPUT`. */
/** @internal Shared with `responses-file-paths.ts`. */
export function itemsOf(input: unknown): readonly ResponsesInputItem[] {
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  if (!Array.isArray(input)) {
    throw new CompactError('input must be a string or an array of items', {
      code: 'UNREADABLE_INPUT',
      path: 'input',
    });
  }
  input.forEach((item: unknown, index) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      throw new CompactError('item must be an object', { code: 'UNREADABLE_INPUT', path: `input[${index}]` });
    }
  });
  return input as ResponsesInputItem[];
}

/** @internal Shared with `responses-file-paths.ts`. */
export function sideOf(item: ResponsesInputItem, previous: Side | undefined): Side {
  const type = typeof item.type === 'string' ? item.type : undefined;
  if (type === undefined || type === 'message') {
    if (!('role' in item) && type === undefined) return previous ?? 'user';
    return (item as { role?: unknown }).role === 'assistant' ? 'assistant' : 'user';
  }
  if (type === 'item_reference') return previous ?? 'user';
  if (type.endsWith('_output') || type === 'mcp_approval_response') return 'user';
  return 'assistant';
}

/**
 * A leading system/developer message of text parts only, as system blocks; a leading system or
 * developer item of another type as one block whose text is its JSON (counted as sent); else undefined.
 */
/** @internal Shared with `responses-file-paths.ts`. */
export function systemBlocksOf(item: ResponsesInputItem): TextBlock[] | undefined {
  const role = (item as { role?: unknown }).role;
  if (role !== 'system' && role !== 'developer') return undefined;
  if (!isMessageItem(item)) {
    if (typeof item.type !== 'string') return undefined;
    return [withData({ type: 'text', text: JSON.stringify(item) }, { systemItem: item as JsonRecord })];
  }
  const { content } = item;
  if (Array.isArray(content) && (content.length === 0 || !content.every(isTextPart))) return undefined;
  return blocksOfMessage(item, 'developer') as TextBlock[];
}

/** `customCalls`: the call ids of custom tool calls read so far (their outputs default to custom). */
/** @internal Shared with `responses-file-paths.ts`. */
export function blocksOfItem(item: ResponsesInputItem, side: Side, customCalls: Set<string>): ContentBlock[] {
  const type = item.type;
  if (isMessageItem(item)) {
    const empty = Array.isArray(item.content) && item.content.length === 0;
    return empty ? [wholeBlock(item)] : blocksOfMessage(item, side);
  }
  if (type === 'function_call' && typeof item.arguments === 'string') {
    // The latest call of an id decides its output's default type, as in the writer.
    customCalls.delete(String(item.call_id));
    return [functionCallBlock(item)];
  }
  if (type === 'custom_tool_call' && typeof item.input === 'string') {
    customCalls.add(String(item.call_id));
    return [customCallBlock(item)];
  }
  // Any list: an output kept whole would not pair with its call, and a layer could keep one alone.
  const output = item.output;
  if (
    (type === 'function_call_output' || type === 'custom_tool_call_output') &&
    (typeof output === 'string' || Array.isArray(output))
  ) {
    return [outputBlock(item, customCalls.has(String(item.call_id)))];
  }
  return [wholeBlock(item)];
}

function blocksOfMessage(
  item: ResponsesInputItem & { content: unknown; role: string },
  side: Side | 'developer',
) {
  const envelope = { ...item, content: null };
  if (typeof item.content === 'string') {
    const fallback = { role: side, content: null };
    return [
      withData(
        { type: 'text', text: item.content },
        { ...itemData(envelope, fallback), stringContent: true },
      ),
    ];
  }
  const fallback = { type: 'message', role: side, content: null };
  const parts = item.content as ResponsesContentPart[];
  return parts.map((part, index) => {
    const block = blockFromPart(part, item.role);
    return index === 0
      ? mergeData(block, itemData(envelope, fallback))
      : mergeData(block, { continues: true });
  });
}

function functionCallBlock(item: JsonRecord): ToolUseBlock {
  const argumentsText = item.arguments as string;
  const input = parseToolArguments(argumentsText);
  const exact = stringifyToolInput(input) === argumentsText;
  const envelope = { ...item, arguments: exact ? null : argumentsText };
  const fallback = { type: 'function_call', call_id: item.call_id, name: item.name, arguments: null };
  const block: ToolUseBlock = { type: 'tool_use', id: String(item.call_id), name: String(item.name), input };
  return withData(block, itemData(envelope, fallback));
}

function customCallBlock(item: JsonRecord): ToolUseBlock {
  // Always marked: without it the call would be written back as a function_call.
  const block: ToolUseBlock = {
    type: 'tool_use',
    id: String(item.call_id),
    name: String(item.name),
    input: { input: item.input },
  };
  return withData(block, { item: { ...item, input: null } });
}

function outputBlock(item: JsonRecord, answersCustomCall: boolean): ToolResultBlock {
  const { output } = item;
  const block: ToolResultBlock = { type: 'tool_result', tool_use_id: String(item.call_id) };
  const parts = isOutput(output);
  block.content = !parts
    ? JSON.stringify(output)
    : typeof output === 'string'
      ? output
      : (output as ResponsesContentPart[]).map(
          (part) => blockFromPart(part, 'user') as ToolResultContentBlock,
        );
  const envelope = { ...item, output: null };
  // The writer answers a custom call with a custom output unless the block says otherwise.
  const type = answersCustomCall ? 'custom_tool_call_output' : 'function_call_output';
  const fallback = { type, call_id: item.call_id, output: null };
  const data = itemData(envelope, fallback);
  if (!parts) data.rawOutput = output as unknown[];
  return withData(block, data);
}

function wholeBlock(item: ResponsesInputItem): ContentBlock {
  const type = item.type;
  if (typeof type === 'string' && wholeItemTypes.has(type)) return { ...item, type };
  const data: ResponsesBlockData = { whole: true };
  if (type === undefined) data.untyped = 'absent';
  else if (type === null) data.untyped = 'null';
  const fallbackType = 'role' in item ? 'message' : 'item_reference';
  return withData({ ...item, type: typeof type === 'string' ? type : fallbackType }, data);
}

function blockFromPart(part: ResponsesContentPart, role: string): ContentBlock {
  if ((part.type === 'input_text' || part.type === 'output_text') && typeof part.text === 'string') {
    const fallback = { type: textPartType(role), text: null };
    return withData({ type: 'text', text: part.text }, partData({ ...part, text: null }, fallback));
  }
  if (part.type === 'input_image' && typeof part.image_url === 'string') {
    const fallback = { type: 'input_image', detail: 'auto', image_url: null };
    return withData(imageFromUrl(part.image_url), partData({ ...part, image_url: null }, fallback));
  }
  if (part.type === 'input_image' && typeof part.file_id === 'string') {
    const image: ImageBlock = { type: 'image', source: { type: 'file', file_id: part.file_id } };
    const fallback = { type: 'input_image', detail: 'auto', file_id: null };
    return withData(image, partData({ ...part, file_id: null }, fallback));
  }
  return { ...part };
}

const dataUrlPattern = /^data:([^;,]+);base64,(.*)$/s;

function imageFromUrl(url: string): ImageBlock {
  const match = dataUrlPattern.exec(url);
  if (match) return { type: 'image', source: { type: 'base64', media_type: match[1]!, data: match[2]! } };
  return { type: 'image', source: { type: 'url', url } };
}

/** A user/assistant message that is one plain `{ role, content: "…" }` item reads as string content. */
function plainStringMessage(message: Message): Message {
  const [only] = message.content as ContentBlock[];
  if (message.content.length !== 1 || only?.type !== 'text') return message;
  const data = dataOf(only);
  const plain = data?.stringContent === true && Object.keys(data).length === 1;
  const keys = Object.keys(only);
  return plain && keys.length === 3 ? { role: message.role, content: String(only.text) } : message;
}

// ---------------------------------------------------------------------------------------------
// Writing

interface OpenMessage {
  role: string;
  content: ResponsesContentPart[];
}

function writeBlocks(
  blocks: readonly ContentBlock[],
  side: Side | 'developer',
  items: ResponsesInputItem[],
  callTypes: Map<string, string>,
): void {
  let open: OpenMessage | undefined;
  for (const block of blocks) {
    const data = dataOf(block);
    if (data?.systemItem) {
      open = undefined;
      items.push(data.systemItem as ResponsesInputItem);
    } else if (block.type === 'tool_use') {
      open = undefined;
      const call = callItem(block as ToolUseBlock, data);
      callTypes.set(String(call.call_id), String(call.type));
      items.push(call as ResponsesInputItem);
    } else if (block.type === 'tool_result') {
      open = undefined;
      items.push(outputItem(block as ToolResultBlock, data, callTypes) as ResponsesInputItem);
    } else if (wholeItemTypes.has(block.type) || data?.whole) {
      open = undefined;
      items.push(wholeItem(block, data));
    } else if (data?.continues && open) {
      open.content.push(partFromBlock(block, open.role));
    } else if (data?.stringContent && block.type === 'text') {
      open = undefined;
      const envelope = data.item ?? { role: side, content: null };
      items.push({ ...envelope, content: String(block.text) } as ResponsesInputItem);
    } else {
      const envelope = data?.item ?? { type: 'message', role: side, content: null };
      const role = String(envelope.role);
      const message = { ...envelope, content: [partFromBlock(block, role)] } as ResponsesInputItem &
        OpenMessage;
      items.push(message);
      open = { role, content: message.content };
    }
  }
}

function callItem(block: ToolUseBlock, data: ResponsesBlockData | undefined): JsonRecord {
  const envelope = data?.item ?? { type: 'function_call', call_id: null, name: null, arguments: null };
  if (envelope.type === 'custom_tool_call') {
    const input = block.input as { input?: unknown } | undefined;
    const text = typeof input?.input === 'string' ? input.input : stringifyToolInput(block.input);
    return { ...envelope, call_id: block.id, name: block.name, input: text };
  }
  const original = envelope.arguments;
  const unchanged =
    typeof original === 'string' &&
    JSON.stringify(parseToolArguments(original)) === JSON.stringify(block.input);
  const argumentsText = unchanged ? original : stringifyToolInput(block.input);
  return { ...envelope, call_id: block.id, name: block.name, arguments: argumentsText };
}

function outputItem(
  block: ToolResultBlock,
  data: ResponsesBlockData | undefined,
  callTypes: ReadonlyMap<string, string>,
): JsonRecord {
  const custom = callTypes.get(block.tool_use_id) === 'custom_tool_call';
  const type = custom ? 'custom_tool_call_output' : 'function_call_output';
  const envelope = data?.item ?? { type, call_id: null, output: null };
  const { content } = block;
  const raw = data?.rawOutput;
  // An unusual output list the compactor left as it was goes back as it came.
  const output =
    raw !== undefined && content === JSON.stringify(raw)
      ? raw
      : content === undefined
        ? ''
        : typeof content === 'string'
          ? content
          : content.map((inner) => partFromBlock(inner, 'user'));
  return { ...envelope, call_id: block.tool_use_id, output };
}

function wholeItem(block: ContentBlock, data: ResponsesBlockData | undefined): ResponsesInputItem {
  const { provider_data: _data, ...item } = block as JsonRecord;
  if (data?.untyped === 'absent') delete item.type;
  else if (data?.untyped === 'null') item.type = null;
  return item as ResponsesInputItem;
}

function partFromBlock(block: ContentBlock, role: string): ResponsesContentPart {
  const data = dataOf(block);
  const shape = (envelope: JsonRecord, key: string, value: unknown) =>
    ({ ...envelope, [key]: value }) as ResponsesContentPart;
  if (block.type === 'text' && typeof block.text === 'string') {
    return shape(data?.part ?? { type: textPartType(role), text: null }, 'text', block.text);
  }
  if (block.type === 'image') {
    const source = (block as ImageBlock).source as JsonRecord;
    if (source.type === 'file' && typeof source.file_id === 'string') {
      return shape(
        data?.part ?? { type: 'input_image', detail: 'auto', file_id: null },
        'file_id',
        source.file_id,
      );
    }
    const url =
      source.type === 'base64'
        ? `data:${String(source.media_type)};base64,${String(source.data)}`
        : source.url;
    return shape(data?.part ?? { type: 'input_image', detail: 'auto', image_url: null }, 'image_url', url);
  }
  const { provider_data: _data, ...part } = block as JsonRecord;
  if (partTypesOf(role).has(block.type)) return part as ResponsesContentPart;
  // A block of another format (Anthropic thinking, a document): its JSON, as text, since the API
  // refuses a part it does not know.
  return { type: textPartType(role), text: JSON.stringify(part) } as ResponsesContentPart;
}

// ---------------------------------------------------------------------------------------------
// Helpers

/** `{ item }` when the item's envelope is not the default one the writer would produce. */
function itemData(envelope: JsonRecord, fallback: JsonRecord): ResponsesBlockData {
  return JSON.stringify(envelope) === JSON.stringify(fallback) ? {} : { item: envelope };
}

function partData(envelope: JsonRecord, fallback: JsonRecord): ResponsesBlockData {
  return JSON.stringify(envelope) === JSON.stringify(fallback) ? {} : { part: envelope };
}

function dataOf(block: ContentBlock): ResponsesBlockData | undefined {
  const providerData = (block as { provider_data?: unknown }).provider_data;
  if (typeof providerData !== 'object' || providerData === null) return undefined;
  return (providerData as Record<string, ResponsesBlockData | undefined>)[RESPONSES_DATA_KEY];
}

function withData<T extends ContentBlock>(block: T, data: ResponsesBlockData): T {
  if (Object.keys(data).length === 0) return block;
  return { ...block, provider_data: { [RESPONSES_DATA_KEY]: data } };
}

function mergeData(block: ContentBlock, data: ResponsesBlockData): ContentBlock {
  const existing = dataOf(block);
  return withData(block, { ...data, ...existing });
}
