/**
 * Conversion between OpenAI Chat Completions messages and the canonical (Anthropic-shaped) model.
 *
 * What each side cannot express, and what happens to it:
 * - `system` and `developer` messages, wherever they stand, are collected in order into `system`.
 *   One string system message becomes a string; anything else becomes text blocks. The role of the
 *   first one is returned as `systemRole` and can be passed back to {@link toOpenAIMessages}.
 * - Tool call `arguments` (a JSON string) become the `input` object. Arguments that are not a JSON
 *   object are kept verbatim as `{ _raw: "<arguments>" }` and written back unchanged; empty
 *   arguments become `{}`.
 * - A run of `tool` messages becomes one user message of `tool_result` blocks; a user message that
 *   follows the run is merged into it after the results (the Anthropic API wants them together).
 *   On the way back, a single text block after the results is written as a string user message.
 * - `is_error` has no OpenAI field: an error result's text is prefixed with {@link TOOL_ERROR_PREFIX},
 *   and a tool message starting with that prefix reads back as `is_error: true`.
 * - `thinking` becomes `reasoning_content` (signatures are lost); `reasoning_content` reads back as a
 *   thinking block with an empty signature. `redacted_thinking` and `cache_control` have no OpenAI
 *   form and are dropped; a `refusal` becomes assistant text; message `name`s are dropped.
 * - Image parts with `data:` URLs become base64 image sources and back; other URLs stay URLs.
 *   Unknown parts and blocks pass through unchanged.
 */

import type {
  ContentBlock,
  ImageBlock,
  Message,
  SystemPrompt,
  TextBlock,
  ToolResultBlock,
  ToolResultContentBlock,
} from '../model/messages.js';
import type {
  OpenAIAssistantMessage,
  OpenAIChatMessage,
  OpenAIContentPart,
  OpenAISystemMessage,
  OpenAISystemRole,
  OpenAIToolCall,
} from './openai-types.js';

/** Prefix that marks a tool message whose result was an error (`is_error: true`). */
export const TOOL_ERROR_PREFIX = '[tool error] ';

/** A conversation converted from OpenAI messages. */
export interface FromOpenAIResult {
  /** All `system` and `developer` messages, in order; absent when there are none. */
  system?: SystemPrompt;
  /** The conversation without its system messages. */
  messages: Message[];
  /** The role of the first system message, so a round trip can write it back. */
  systemRole?: OpenAISystemRole;
}

/** Options of {@link toOpenAIMessages}. */
export interface ToOpenAIOptions {
  /**
   * The role the system prompt is written with.
   * @default 'system'
   */
  systemRole?: OpenAISystemRole;
}

const dataUrlPattern = /^data:([^;,]+);base64,(.*)$/s;

/**
 * Converts OpenAI Chat Completions messages to the canonical model.
 *
 * @example
 * const { system, messages } = fromOpenAIMessages([
 *   { role: 'system', content: 'Be brief.' },
 *   { role: 'user', content: 'Hi' },
 * ]);
 * // system === 'Be brief.', messages[0] === { role: 'user', content: 'Hi' }
 */
export function fromOpenAIMessages(openAIMessages: readonly OpenAIChatMessage[]): FromOpenAIResult {
  const result: FromOpenAIResult = { messages: conversationOf(openAIMessages) };
  const system = systemOf(openAIMessages);
  if (system !== undefined) {
    result.system = system.prompt;
    result.systemRole = system.role;
  }
  return result;
}

/**
 * The system and developer messages as one prompt: a string when there is one string message,
 * else its text blocks; with the role of the first.
 */
function systemOf(
  openAIMessages: readonly OpenAIChatMessage[],
): { prompt: string | TextBlock[]; role: OpenAISystemRole } | undefined {
  const blocks: TextBlock[] = [];
  const system = openAIMessages.filter(
    (message): message is OpenAISystemMessage => message.role === 'system' || message.role === 'developer',
  );
  const [first] = system;
  if (first === undefined) return undefined;
  for (const message of system) {
    if (typeof message.content === 'string') blocks.push({ type: 'text', text: message.content });
    else for (const part of message.content) blocks.push({ type: 'text', text: partText(part) });
  }
  const onlyOneString = system.length === 1 && typeof first.content === 'string';
  return { prompt: onlyOneString ? blocks[0]!.text : blocks, role: first.role };
}

/** The other messages: tool messages join the user turn that follows them, or form their own. */
function conversationOf(openAIMessages: readonly OpenAIChatMessage[]): Message[] {
  const messages: Message[] = [];
  let pendingResults: ToolResultBlock[] | undefined;
  const flushResults = (): void => {
    if (pendingResults) messages.push({ role: 'user', content: pendingResults });
    pendingResults = undefined;
  };
  for (const message of openAIMessages) {
    switch (message.role) {
      case 'system':
      case 'developer':
        break;
      case 'tool': {
        pendingResults ??= [];
        pendingResults.push(toolResultFromMessage(message.tool_call_id, message.content));
        break;
      }
      case 'user': {
        const content = userContentFromOpenAI(message.content);
        if (pendingResults) {
          const blocks: ContentBlock[] =
            typeof content === 'string' ? [{ type: 'text', text: content }] : content;
          messages.push({ role: 'user', content: [...pendingResults, ...blocks] });
          pendingResults = undefined;
        } else {
          messages.push({ role: 'user', content });
        }
        break;
      }
      case 'assistant': {
        flushResults();
        messages.push({ role: 'assistant', content: assistantContentFromOpenAI(message) });
        break;
      }
      default: {
        const unreachable: never = message;
        throw new Error(`unknown OpenAI role in ${JSON.stringify(unreachable)}`);
      }
    }
  }
  flushResults();
  return messages;
}

/**
 * Converts a canonical conversation to OpenAI Chat Completions messages.
 *
 * @example
 * const openAIMessages = toOpenAIMessages({ system: 'Be brief.', messages });
 */
export function toOpenAIMessages(
  conversation: { system?: SystemPrompt; messages: readonly Message[] },
  { systemRole = 'system' }: ToOpenAIOptions = {},
): OpenAIChatMessage[] {
  const result: OpenAIChatMessage[] = [];
  const { system } = conversation;
  if (system !== undefined) {
    const content =
      typeof system === 'string'
        ? system
        : system.map((block): OpenAIContentPart => ({ type: 'text', text: block.text }));
    result.push({ role: systemRole, content });
  }
  for (const message of conversation.messages) {
    switch (message.role) {
      case 'user':
        result.push(...userToOpenAI(message.content));
        break;
      case 'assistant':
        result.push(assistantToOpenAI(message.content));
        break;
      default: {
        const unreachable: never = message.role;
        throw new Error(`unknown role ${String(unreachable)}`);
      }
    }
  }
  return result;
}

/** Parses tool call arguments into a tool_use input; see the module comment for the rules. */
export function parseToolArguments(argumentsText: string): unknown {
  if (argumentsText.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(argumentsText);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed;
  } catch {
    // Not JSON: kept verbatim below.
  }
  return { _raw: argumentsText };
}

/** Writes a tool_use input back as tool call arguments (the inverse of {@link parseToolArguments}). */
export function stringifyToolInput(input: unknown): string {
  if (typeof input === 'object' && input !== null && !Array.isArray(input)) {
    const keys = Object.keys(input);
    const raw = (input as { _raw?: unknown })._raw;
    if (keys.length === 1 && typeof raw === 'string') return raw;
  }
  return JSON.stringify(input ?? {});
}

function partText(part: OpenAIContentPart): string {
  const text = (part as { text?: unknown }).text;
  return typeof text === 'string' ? text : JSON.stringify(part);
}

function imageFromUrl(url: string): ImageBlock {
  const match = dataUrlPattern.exec(url);
  if (match) return { type: 'image', source: { type: 'base64', media_type: match[1]!, data: match[2]! } };
  return { type: 'image', source: { type: 'url', url } };
}

function blockFromPart(part: OpenAIContentPart): ContentBlock {
  if (part.type === 'text' && typeof part.text === 'string') return { type: 'text', text: part.text };
  if (part.type === 'image_url') {
    const imageUrl = part.image_url as { url?: unknown } | undefined;
    if (typeof imageUrl?.url === 'string') return imageFromUrl(imageUrl.url);
  }
  return { ...part } as ContentBlock;
}

function userContentFromOpenAI(content: string | OpenAIContentPart[]): string | ContentBlock[] {
  return typeof content === 'string' ? content : content.map(blockFromPart);
}

function toolResultFromMessage(toolCallId: string, content: string | OpenAIContentPart[]): ToolResultBlock {
  const result: ToolResultBlock = { type: 'tool_result', tool_use_id: toolCallId };
  if (typeof content === 'string') {
    if (content.startsWith(TOOL_ERROR_PREFIX)) {
      result.content = content.slice(TOOL_ERROR_PREFIX.length);
      result.is_error = true;
    } else {
      result.content = content;
    }
    return result;
  }
  const blocks = content.map(blockFromPart) as ToolResultContentBlock[];
  const first = blocks[0];
  const firstText = first?.type === 'text' ? (first as { text?: unknown }).text : undefined;
  if (typeof firstText === 'string' && firstText.startsWith(TOOL_ERROR_PREFIX)) {
    blocks[0] = { type: 'text', text: firstText.slice(TOOL_ERROR_PREFIX.length) };
    result.is_error = true;
  }
  result.content = blocks;
  return result;
}

function assistantContentFromOpenAI(message: OpenAIAssistantMessage): string | ContentBlock[] {
  const toolCalls = message.tool_calls ?? [];
  const reasoning = typeof message.reasoning_content === 'string' ? message.reasoning_content : '';
  const refusal = typeof message.refusal === 'string' ? message.refusal : '';
  const { content } = message;
  if (typeof content === 'string' && toolCalls.length === 0 && reasoning === '' && refusal === '')
    return content;

  const blocks: ContentBlock[] = [];
  if (reasoning !== '') blocks.push({ type: 'thinking', thinking: reasoning, signature: '' });
  if (typeof content === 'string') {
    if (content !== '' || toolCalls.length === 0) blocks.push({ type: 'text', text: content });
  } else if (Array.isArray(content)) {
    for (const part of content) {
      if (part.type === 'refusal' && typeof part.refusal === 'string') {
        blocks.push({ type: 'text', text: part.refusal });
      } else {
        blocks.push(blockFromPart(part));
      }
    }
  }
  if (refusal !== '') blocks.push({ type: 'text', text: refusal });
  for (const call of toolCalls) {
    blocks.push({
      type: 'tool_use',
      id: call.id,
      name: call.function.name,
      input: parseToolArguments(call.function.arguments),
    });
  }
  return blocks;
}

function partFromBlock(block: ContentBlock): OpenAIContentPart {
  if (block.type === 'text' && typeof block.text === 'string') return { type: 'text', text: block.text };
  if (block.type === 'image') {
    const source = (block as ImageBlock).source as {
      type: string;
      media_type?: unknown;
      data?: unknown;
      url?: unknown;
    };
    if (
      source.type === 'base64' &&
      typeof source.media_type === 'string' &&
      typeof source.data === 'string'
    ) {
      return { type: 'image_url', image_url: { url: `data:${source.media_type};base64,${source.data}` } };
    }
    if (source.type === 'url' && typeof source.url === 'string') {
      return { type: 'image_url', image_url: { url: source.url } };
    }
  }
  return { ...block } as OpenAIContentPart;
}

function toolMessageContent(block: ToolResultBlock): string | OpenAIContentPart[] {
  const prefix = block.is_error ? TOOL_ERROR_PREFIX : '';
  const { content } = block;
  if (content === undefined) return prefix;
  if (typeof content === 'string') return prefix + content;
  const parts = content.map(partFromBlock);
  if (prefix === '') return parts;
  const first = parts[0];
  if (first?.type === 'text' && typeof first.text === 'string') {
    parts[0] = { type: 'text', text: prefix + first.text };
    return parts;
  }
  return [{ type: 'text', text: prefix.trimEnd() }, ...parts];
}

/**
 * A tool message's content without its images (the API accepts only text in `role: "tool"`), and
 * the images, labelled with the call they came from, for the user message that follows.
 */
function splitToolImages(
  toolUseId: string,
  content: string | OpenAIContentPart[],
): { content: string | OpenAIContentPart[]; images: OpenAIContentPart[] } {
  if (typeof content === 'string' || !content.some((part) => part.type === 'image_url')) {
    return { content, images: [] };
  }
  const images = content.filter((part) => part.type === 'image_url');
  const text = content.filter((part) => part.type !== 'image_url');
  const note = `[${images.length} image(s) of this result follow in the next user message]`;
  return {
    content: [...text, { type: 'text', text: note }],
    images: [{ type: 'text', text: `Images from the result of tool call ${toolUseId}:` }, ...images],
  };
}

function userToOpenAI(content: string | ContentBlock[]): OpenAIChatMessage[] {
  if (typeof content === 'string') return [{ role: 'user', content }];
  const result: OpenAIChatMessage[] = [];
  const parts: OpenAIContentPart[] = [];
  const carriedImages: OpenAIContentPart[] = [];
  for (const block of content) {
    if (block.type === 'tool_result') {
      const toolResult = block as ToolResultBlock;
      const split = splitToolImages(toolResult.tool_use_id, toolMessageContent(toolResult));
      result.push({ role: 'tool', tool_call_id: toolResult.tool_use_id, content: split.content });
      carriedImages.push(...split.images);
    } else {
      parts.push(partFromBlock(block));
    }
  }
  parts.unshift(...carriedImages);
  const [onlyPart] = parts;
  if (
    result.length > 0 &&
    parts.length === 1 &&
    onlyPart?.type === 'text' &&
    typeof onlyPart.text === 'string'
  ) {
    // A user message that followed tool messages was merged into their results; write it back as
    // the plain string it most likely was.
    result.push({ role: 'user', content: onlyPart.text });
  } else if (parts.length > 0 || result.length === 0) {
    result.push({ role: 'user', content: parts });
  }
  return result;
}

function assistantToOpenAI(content: string | ContentBlock[]): OpenAIAssistantMessage {
  if (typeof content === 'string') return { role: 'assistant', content };
  const parts: OpenAIContentPart[] = [];
  const toolCalls: OpenAIToolCall[] = [];
  const reasoning: string[] = [];
  for (const block of content) {
    if (block.type === 'tool_use') {
      const toolUse = block as { id: string; name: string; input: unknown };
      toolCalls.push({
        id: toolUse.id,
        type: 'function',
        function: { name: toolUse.name, arguments: stringifyToolInput(toolUse.input) },
      });
    } else if (block.type === 'thinking') {
      reasoning.push(String((block as { thinking?: unknown }).thinking ?? ''));
    } else if (block.type === 'redacted_thinking') {
      // Encrypted thinking has no OpenAI form.
    } else {
      parts.push(partFromBlock(block));
    }
  }
  const message: OpenAIAssistantMessage = { role: 'assistant', content: null };
  const onlyText = parts.every((part) => part.type === 'text');
  if (parts.length === 1 && onlyText) message.content = (parts[0] as { text: string }).text;
  else if (parts.length > 0) message.content = parts;
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  if (reasoning.length > 0) message.reasoning_content = reasoning.join('\n\n');
  if (message.content === null && toolCalls.length === 0) message.content = '';
  return message;
}
