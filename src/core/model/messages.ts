/**
 * The canonical message model: the Anthropic Messages API shape. Every other format converts to
 * and from it. Unknown block types are kept as {@link UnknownBlock} and pass through untouched.
 */

/**
 * Fields of a block's wire form that the canonical model has no slot for, keyed by the format that
 * put them there (`responses`: a Responses item's `id`, `status`, part `annotations`, …). Only that
 * format's converter reads them, to write the block back exactly; the layers ignore them, and a
 * block the compactor rewrites (a placeholder, a shortened text) is written without them.
 */
export type ProviderData = { [format: string]: unknown };

/** Prompt-caching marker on a block (Anthropic). */
export interface CacheControl {
  type: 'ephemeral';
  ttl?: '5m' | '1h';
}

/** Plain text. */
export interface TextBlock {
  type: 'text';
  text: string;
  cache_control?: CacheControl;
  citations?: unknown[];
  /** Wire fields kept for a lossless round trip; see {@link ProviderData}. */
  provider_data?: ProviderData;
}

/** An image, inline (base64) or by URL. */
export interface ImageBlock {
  type: 'image';
  source:
    | { type: 'base64'; media_type: string; data: string }
    | { type: 'url'; url: string }
    | { type: string; [key: string]: unknown };
  cache_control?: CacheControl;
  /** Wire fields kept for a lossless round trip; see {@link ProviderData}. */
  provider_data?: ProviderData;
}

/** Extended thinking; the signature must be sent back unchanged. */
export interface ThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature: string;
}

/** Thinking the provider encrypted. */
export interface RedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}

/** The model calls a tool. */
export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
  cache_control?: CacheControl;
  /** Wire fields kept for a lossless round trip; see {@link ProviderData}. */
  provider_data?: ProviderData;
}

/** Blocks allowed inside a tool result. */
export type ToolResultContentBlock = TextBlock | ImageBlock | UnknownBlock;

/** The answer to a {@link ToolUseBlock}, sent in the next user message. */
export interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content?: string | ToolResultContentBlock[];
  is_error?: boolean;
  cache_control?: CacheControl;
  /** Wire fields kept for a lossless round trip; see {@link ProviderData}. */
  provider_data?: ProviderData;
}

/** A block of a type this library does not model; kept as it is. */
export interface UnknownBlock {
  type: string;
  [key: string]: unknown;
}

/** Every block type this library understands. */
export type KnownBlock =
  | TextBlock
  | ImageBlock
  | ThinkingBlock
  | RedactedThinkingBlock
  | ToolUseBlock
  | ToolResultBlock;

/** The `type` of a block this library understands. */
export type KnownBlockType = KnownBlock['type'];

/** Any content block. Narrow with {@link isBlock}. */
export type ContentBlock = KnownBlock | UnknownBlock;

/** One message of the conversation. */
export interface Message {
  role: 'user' | 'assistant';
  content: string | ContentBlock[];
}

/** The system prompt: a string or text blocks. */
export type SystemPrompt = string | TextBlock[];

/** A whole conversation as sent to the provider (less tools and settings). */
export interface Conversation {
  system?: SystemPrompt;
  messages: Message[];
}

/** Token usage the provider reported for one request. */
export interface ProviderUsage {
  /** Anthropic: uncached input tokens; OpenAI Responses: the whole prompt. */
  input_tokens?: number;
  /** Anthropic: tokens written to the prompt cache. */
  cache_creation_input_tokens?: number | null;
  /** Anthropic: tokens read from the prompt cache. */
  cache_read_input_tokens?: number | null;
  /** Anthropic and OpenAI Responses: output tokens. */
  output_tokens?: number;
  /** OpenAI: the whole prompt. */
  prompt_tokens?: number;
  /** OpenAI: output tokens. */
  completion_tokens?: number;
  /** Gemini (`usageMetadata`): the whole prompt, `cachedContentTokenCount` included. */
  promptTokenCount?: number;
}

const knownTypes = new Set<string>([
  'text',
  'image',
  'thinking',
  'redacted_thinking',
  'tool_use',
  'tool_result',
]);

/**
 * Narrows a block to one known type.
 *
 * @example
 * if (isBlock(block, 'tool_use')) console.log(block.name);
 */
export function isBlock<T extends KnownBlockType>(
  block: ContentBlock,
  type: T,
): block is Extract<KnownBlock, { type: T }> {
  return block.type === type;
}

/** True for a `thinking` or `redacted_thinking` block (signed: sent back as it came, or not at all). */
export function isThinkingBlock(
  block: ContentBlock | undefined,
): block is ThinkingBlock | RedactedThinkingBlock {
  return block?.type === 'thinking' || block?.type === 'redacted_thinking';
}

/** True when the block's type is one this library models. */
export function isKnownBlock(block: ContentBlock): block is KnownBlock {
  return knownTypes.has(block.type);
}

/** The message content as a block list (a string becomes one text block). */
export function contentBlocks(message: Message): readonly ContentBlock[] {
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
}

/** Total prompt tokens of a request from the usage the provider reported, or undefined. */
export function promptTokensFromUsage(usage: ProviderUsage | undefined): number | undefined {
  const tokens = reportedPromptTokens(usage);
  // A count no provider reports (NaN, Infinity, below 0) is no count: it would anchor every next one.
  return tokens !== undefined && Number.isFinite(tokens) && tokens >= 0 ? tokens : undefined;
}

function reportedPromptTokens(usage: ProviderUsage | undefined): number | undefined {
  if (!usage) return undefined;
  if (typeof usage.prompt_tokens === 'number') return usage.prompt_tokens;
  if (typeof usage.promptTokenCount === 'number') return usage.promptTokenCount;
  if (typeof usage.input_tokens === 'number') {
    return (
      usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0)
    );
  }
  return undefined;
}
