import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { fromOpenAIMessages } from '../core/conversation/openai-format.js';
import type { OpenAIChatMessage, OpenAIContentPart } from '../core/conversation/openai-types.js';
import type { ContentBlock, Message, ToolResultBlock, ToolUseBlock } from '../core/model/messages.js';

/** A LangChain content block as this module reads it: only the fields the conversion touches are named. */
type LangChainBlock = Record<string, unknown>;

/** LangChain messages as Chat Completions messages, and what is needed to turn them back. */
export interface ChatView {
  /** The messages as Chat Completions messages, which the core reads. */
  chat: OpenAIChatMessage[];
  /**
   * The caller's messages by the key of what each reads as in the core (see `messageKey`), in
   * order: a message the compactor left as it was comes back as the caller's own object.
   */
  originals: Map<string, BaseMessage[]>;
  /** The caller's LangChain block of each image, by the JSON of the image part it was read as. */
  images: Map<string, LangChainBlock>;
  /** Message types the conversion does not know; they are read as user text and kept whole. */
  unknownTypes: string[];
}

/** `human` / `ai` (with `tool_calls`) / `tool` / `system` → Chat Completions messages. */
export function toChatView(messages: readonly BaseMessage[]): ChatView {
  const view: ChatView = { chat: [], originals: new Map(), images: new Map(), unknownTypes: [] };
  for (const message of messages) {
    const converted = toChatMessage(message, view);
    // One message alone reads as the core reads it in the conversation: a tool message as its
    // tool_result block, anything else as one message.
    const [read] = fromOpenAIMessages([converted]).messages;
    if (read) {
      for (const key of messageKeys(read)) {
        view.originals.set(key, [...(view.originals.get(key) ?? []), message]);
      }
    }
    view.chat.push(converted);
  }
  return view;
}

function toChatMessage(message: BaseMessage, view: ChatView): OpenAIChatMessage {
  const content = contentOf(message.content, view);
  switch (message.type) {
    case 'system':
      return { role: 'system', content };
    case 'human':
      return { role: 'user', content };
    case 'tool':
      return { role: 'tool', tool_call_id: (message as ToolMessage).tool_call_id, content };
    case 'ai': {
      const calls = (message as AIMessage).tool_calls ?? [];
      if (calls.length === 0) return { role: 'assistant', content };
      return {
        role: 'assistant',
        content: content === '' ? null : content,
        tool_calls: calls.map((call, index) => ({
          id: call.id ?? `call_${index}`,
          type: 'function' as const,
          function: { name: call.name, arguments: JSON.stringify(call.args ?? {}) },
        })),
      };
    }
    default:
      view.unknownTypes.push(String(message.type));
      return { role: 'user', content };
  }
}

/**
 * Text parts stay text and images become image parts, which the core counts as the images they
 * are (as JSON text, a 300 kB screenshot counted about 100,000 tokens and forced a hard
 * compaction that dropped it; one held by a file id counted a dozen); any other LangChain block
 * is kept as JSON text.
 */
function contentOf(content: BaseMessage['content'], view: ChatView): string | OpenAIContentPart[] {
  if (typeof content === 'string') return content;
  return content.map((part): OpenAIContentPart => {
    const record = part as LangChainBlock;
    if (record.type === 'text' && typeof record.text === 'string') return { type: 'text', text: record.text };
    const image = imagePartOf(record);
    if (image === undefined) return { type: 'text', text: JSON.stringify(record) };
    view.images.set(imageKey(fromOpenAIMessages([{ role: 'user', content: [image] }]).messages), record);
    return image;
  });
}

/**
 * A LangChain image block as a part the core reads as an image: an `image_url` part, or, for an
 * image held by a provider's file id, the core's own image block with a `file` source (as the
 * Responses conversion reads `input_image.file_id`), which passes through the Chat Completions
 * reading as it is.
 */
function imagePartOf(block: LangChainBlock): OpenAIContentPart | undefined {
  const fileId = imageFileIdOf(block);
  if (fileId !== undefined) return { type: 'image', source: { type: 'file', file_id: fileId } };
  const url = imageUrlOf(block);
  return url === undefined ? undefined : { type: 'image_url', image_url: { url } };
}

/** The file id of an image block held by one: `{ type: 'image', fileId }`, or the older `source_type: 'id'`. */
function imageFileIdOf(block: LangChainBlock): string | undefined {
  if (block.type !== 'image') return undefined;
  if (typeof block.fileId === 'string') return block.fileId;
  return block.source_type === 'id' && typeof block.id === 'string' ? block.id : undefined;
}

/**
 * The URL (a `data:` URL for inline bytes) of a LangChain image block: `image_url` (a string or
 * `{ url }`), the standard `{ type: 'image', url | data, mimeType }` of `@langchain/core` 1.x and
 * its older `{ type: 'image', source_type: 'url' | 'base64', url | data, mime_type }`. An image
 * held by a provider's file id has no URL (see {@link imageFileIdOf}).
 */
function imageUrlOf(block: LangChainBlock): string | undefined {
  if (block.type === 'image_url') {
    const imageUrl = block.image_url;
    if (typeof imageUrl === 'string') return imageUrl;
    const url = isRecord(imageUrl) ? imageUrl.url : undefined;
    return typeof url === 'string' ? url : undefined;
  }
  if (block.type !== 'image' || block.source_type === 'id' || block.fileId !== undefined) return undefined;
  if (typeof block.url === 'string') return block.url;
  const mediaType = block.mimeType ?? block.mime_type ?? 'image/png';
  if (typeof mediaType !== 'string') return undefined;
  const data =
    block.data instanceof Uint8Array ? Buffer.from(block.data).toString('base64') : (block.data as unknown);
  return typeof data === 'string' ? `data:${mediaType};base64,${data}` : undefined;
}

/** The key of the one image block a one-image message reads as. */
function imageKey(messages: readonly Message[]): string {
  const content = messages[0]?.content;
  return JSON.stringify(Array.isArray(content) ? content[0] : content);
}

/**
 * The keys of a core message as LangChain messages: each tool result is a `ToolMessage` of its
 * own; the user's other blocks are one `HumanMessage`; an assistant message is one `AIMessage`.
 */
function messageKeys(message: Message): string[] {
  if (message.role === 'assistant') return [`assistant:${JSON.stringify(blocksOf(message.content))}`];
  const { results, rest } = splitUserContent(message.content);
  return [
    ...results.map((result) => `tool:${JSON.stringify(result)}`),
    ...(rest.length > 0 ? [`user:${JSON.stringify(rest)}`] : []),
  ];
}

function blocksOf(content: string | readonly ContentBlock[]): readonly ContentBlock[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}

function splitUserContent(content: string | readonly ContentBlock[]) {
  const blocks = blocksOf(content);
  return {
    results: blocks.filter((block): block is ToolResultBlock => block.type === 'tool_result'),
    rest: blocks.filter((block) => block.type !== 'tool_result'),
  };
}

/**
 * Compacted core messages → LangChain messages. A message the compactor left as it was comes back
 * as the caller's own object (ids, metadata and usage intact); the rest is written fresh, its
 * images as the caller's own LangChain blocks.
 */
export function fromCoreMessages(messages: readonly Message[], view: ChatView): BaseMessage[] {
  const unused = new Map([...view.originals].map(([key, list]) => [key, [...list]]));
  const original = (key: string) => unused.get(key)?.shift();
  return messages.flatMap((message): BaseMessage[] => {
    if (message.role === 'assistant') {
      const key = `assistant:${JSON.stringify(blocksOf(message.content))}`;
      return [original(key) ?? toAIMessage(message.content, view)];
    }
    const { results, rest } = splitUserContent(message.content);
    const written: BaseMessage[] = results.map(
      (result) =>
        original(`tool:${JSON.stringify(result)}`) ??
        new ToolMessage({ tool_call_id: result.tool_use_id, content: toolContent(result, view) }),
    );
    if (rest.length > 0) {
      written.push(
        original(`user:${JSON.stringify(rest)}`) ??
          new HumanMessage({
            content: typeof message.content === 'string' ? message.content : langChainContent(rest, view),
          }),
      );
    }
    return written;
  });
}

/** A LangChain message's content, as its constructors take it. */
type LangChainContent = BaseMessage['content'];
type LangChainBlocks = Exclude<LangChainContent, string>;

function toolContent(result: ToolResultBlock, view: ChatView): LangChainContent {
  // An error result is marked in its text, as the Chat Completions conversion reads it back.
  const prefix = result.is_error ? '[tool error] ' : '';
  const { content } = result;
  if (content === undefined || typeof content === 'string') return prefix + (content ?? '');
  const blocks = langChainContent(content, view);
  return prefix === '' ? blocks : [{ type: 'text', text: prefix.trimEnd() }, ...blocks];
}

function toAIMessage(content: string | readonly ContentBlock[], view: ChatView): AIMessage {
  if (typeof content === 'string') return new AIMessage({ content });
  const calls = content.filter((block): block is ToolUseBlock => block.type === 'tool_use');
  // Thinking has no LangChain form the Chat Completions conversion wrote either.
  const rest = content.filter(
    (block) => block.type !== 'tool_use' && block.type !== 'thinking' && block.type !== 'redacted_thinking',
  );
  const blocks = langChainContent(rest, view);
  const [first] = blocks;
  return new AIMessage({
    content:
      blocks.length === 0 ? '' : blocks.length === 1 && first?.type === 'text' ? String(first.text) : blocks,
    tool_calls: calls.map((call) => ({
      id: call.id,
      name: call.name,
      args: toolArgs(call.input),
      type: 'tool_call' as const,
    })),
  });
}

/** Core blocks as LangChain blocks: an image as the caller's block it was read from. */
function langChainContent(blocks: readonly ContentBlock[], view: ChatView): LangChainBlocks {
  return blocks.map((block): LangChainBlock => {
    if (block.type !== 'image') return { ...block };
    const source = (block as { source: Record<string, unknown> }).source;
    const caller = view.images.get(JSON.stringify(block));
    if (caller) return caller;
    const url =
      source.type === 'base64'
        ? `data:${String(source.media_type)};base64,${String(source.data)}`
        : source.url;
    return typeof url === 'string' ? { type: 'image_url', image_url: { url } } : { ...block };
  }) as LangChainBlocks;
}

function toolArgs(input: unknown): Record<string, unknown> {
  return isRecord(input) ? input : { input };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
