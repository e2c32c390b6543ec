/**
 * The OpenAI Chat Completions message shape, declared here so the core needs no SDK. Structurally
 * compatible with the `openai` package's `ChatCompletionMessageParam`.
 */

/** A content part of an OpenAI message. */
export type OpenAIContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string; detail?: 'auto' | 'low' | 'high' } }
  | { type: string; [key: string]: unknown };

/** A function tool call on an assistant message. */
export interface OpenAIToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface OpenAISystemMessage {
  role: 'system' | 'developer';
  content: string | OpenAIContentPart[];
  name?: string;
}

export interface OpenAIUserMessage {
  role: 'user';
  content: string | OpenAIContentPart[];
  name?: string;
}

export interface OpenAIAssistantMessage {
  role: 'assistant';
  content?: string | OpenAIContentPart[] | null;
  tool_calls?: OpenAIToolCall[];
  refusal?: string | null;
  name?: string;
  /** Reasoning text some OpenAI-compatible servers return; kept so thinking survives a round trip. */
  reasoning_content?: string;
}

export interface OpenAIToolMessage {
  role: 'tool';
  tool_call_id: string;
  content: string | OpenAIContentPart[];
}

/** One OpenAI Chat Completions message. */
export type OpenAIChatMessage =
  | OpenAISystemMessage
  | OpenAIUserMessage
  | OpenAIAssistantMessage
  | OpenAIToolMessage;

/** The role OpenAI system instructions are written with. */
export type OpenAISystemRole = 'system' | 'developer';
