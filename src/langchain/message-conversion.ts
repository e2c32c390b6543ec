import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import type {
  OpenAIAssistantMessage,
  OpenAIChatMessage,
  OpenAIContentPart,
  OpenAIToolMessage,
  OpenAIUserMessage,
} from '../core/conversation/openai-types.js';

/** LangChain messages as Chat Completions messages, and what is needed to turn them back. */
export interface ChatView {
  chat: OpenAIChatMessage[];
  /** The caller's message of each Chat Completions message, by that message's JSON. */
  originals: Map<string, BaseMessage>;
  /** Message types the conversion does not know; they are read as user text and kept whole. */
  unknownTypes: string[];
}

/** `human` / `ai` (with `tool_calls`) / `tool` / `system` → Chat Completions messages. */
export function toChatView(messages: readonly BaseMessage[]): ChatView {
  const view: ChatView = { chat: [], originals: new Map(), unknownTypes: [] };
  for (const message of messages) {
    const converted = toChatMessage(message, view);
    view.originals.set(JSON.stringify(converted), message);
    view.chat.push(converted);
  }
  return view;
}

function toChatMessage(message: BaseMessage, view: ChatView): OpenAIChatMessage {
  const content = contentOf(message.content);
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

/** Text and image parts stay parts; any other LangChain block is kept as JSON text. */
function contentOf(content: BaseMessage['content']): string | OpenAIContentPart[] {
  if (typeof content === 'string') return content;
  return content.map((part): OpenAIContentPart => {
    const record = part as Record<string, unknown>;
    if (record.type === 'text' && typeof record.text === 'string') return { type: 'text', text: record.text };
    if (record.type === 'image_url') return record as unknown as OpenAIContentPart;
    return { type: 'text', text: JSON.stringify(record) };
  });
}

/**
 * Compacted Chat Completions messages → LangChain messages. A message the compactor left as it was
 * comes back as the caller's own object (ids, metadata and usage intact); the rest is written fresh.
 */
export function fromChatView(chat: readonly OpenAIChatMessage[], view: ChatView): BaseMessage[] {
  return chat.flatMap((message) => {
    const original = view.originals.get(JSON.stringify(message));
    if (original) return [original];
    if (message.role === 'system' || message.role === 'developer') return [];
    return [toLangChainMessage(message as ConversationMessage)];
  });
}

type ConversationMessage = OpenAIUserMessage | OpenAIAssistantMessage | OpenAIToolMessage;

function toLangChainMessage(message: ConversationMessage): BaseMessage {
  const content = (message.content ?? '') as string | { type: 'text'; text: string }[];
  switch (message.role) {
    case 'tool':
      return new ToolMessage({ tool_call_id: message.tool_call_id, content });
    case 'assistant':
      return new AIMessage({
        content,
        tool_calls: (message.tool_calls ?? []).map((call) => ({
          id: call.id,
          name: call.function.name,
          args: parseArguments(call.function.arguments),
          type: 'tool_call' as const,
        })),
      });
    default:
      return new HumanMessage({ content });
  }
}

function parseArguments(text: string): Record<string, unknown> {
  try {
    const parsed = JSON.parse(text) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : { input: parsed };
  } catch {
    return { input: text };
  }
}
