/** Reading and writing OpenAI Chat Completions conversations. */

import { fromOpenAIMessages, toOpenAIMessages } from '../../conversation/openai-format.js';
import type {
  OpenAIChatMessage,
  OpenAIContentPart,
  OpenAIToolCall,
} from '../../conversation/openai-types.js';
import type { Conversation, TextBlock } from '../../model/messages.js';
import {
  describeValue,
  expectObject,
  expectString,
  isObject,
  typeName,
  unreadable,
} from '../_internal/read-helpers.js';
import { readSystem } from '../_internal/read-system.js';
import type { RawConversation } from '../dialect.js';
import type { ParsedConversation, SerializeConversationOptions } from '../parsed-conversation.js';

/** Reads OpenAI messages (a leading `system` field becomes the first system message). */
export function readOpenAIConversation({
  messages,
  system,
  layout,
  messagePath,
  source,
}: RawConversation): ParsedConversation {
  const openAIMessages = messages.map((message, index) =>
    readOpenAIMessage(message, messagePath(index), source),
  );
  const withSystem: OpenAIChatMessage[] =
    system !== undefined && system !== null
      ? [{ role: 'system', content: readSystem(system, source) as string | TextBlock[] }, ...openAIMessages]
      : openAIMessages;
  const converted = fromOpenAIMessages(withSystem);
  const conversation: Conversation = { messages: converted.messages };
  if (converted.system !== undefined) conversation.system = converted.system;
  const result: ParsedConversation = { conversation, format: 'openai', layout, openAIMessages };
  if (converted.systemRole) result.systemRole = converted.systemRole;
  return result;
}

/** `{ "messages": [...] }` or JSONL, the system prompt written as the first message. */
export function serializeOpenAI(
  conversation: Conversation,
  { jsonl = false, systemRole }: SerializeConversationOptions,
): string {
  const openAIMessages = toOpenAIMessages(conversation, systemRole ? { systemRole } : {});
  if (jsonl) return `${openAIMessages.map((message) => JSON.stringify(message)).join('\n')}\n`;
  return `${JSON.stringify({ messages: openAIMessages }, null, 2)}\n`;
}

function readOpenAIMessage(value: unknown, path: string, source: string | undefined): OpenAIChatMessage {
  const object = expectObject(value, path, source);
  const { role } = object;
  switch (role) {
    case 'system':
    case 'developer':
    case 'user':
      return { role, content: readOpenAIContent(object.content, `${path}.content`, source) };
    case 'tool':
      return {
        role,
        tool_call_id: expectString(object.tool_call_id, `${path}.tool_call_id`, source),
        content: readOpenAIContent(object.content, `${path}.content`, source),
      };
    case 'assistant': {
      const message: OpenAIChatMessage & { role: 'assistant' } = { role: 'assistant' };
      const { content } = object;
      message.content =
        content === undefined || content === null
          ? null
          : readOpenAIContent(content, `${path}.content`, source);
      if (object.tool_calls !== undefined && object.tool_calls !== null) {
        if (!Array.isArray(object.tool_calls)) {
          throw unreadable(
            `expected array, got ${typeName(object.tool_calls)}`,
            `${path}.tool_calls`,
            source,
          );
        }
        message.tool_calls = object.tool_calls.map((call, index) =>
          readToolCall(call, `${path}.tool_calls[${index}]`, source),
        );
      }
      if (typeof object.refusal === 'string') message.refusal = object.refusal;
      if (typeof object.reasoning_content === 'string') message.reasoning_content = object.reasoning_content;
      return message;
    }
    default:
      throw unreadable(
        `expected "system", "developer", "user", "assistant" or "tool", got ${describeValue(role)}`,
        `${path}.role`,
        source,
      );
  }
}

function readOpenAIContent(
  value: unknown,
  path: string,
  source: string | undefined,
): string | OpenAIContentPart[] {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value))
    throw unreadable(`expected string or array, got ${typeName(value)}`, path, source);
  return value.map((part, index) => {
    const partPath = `${path}[${index}]`;
    const object = expectObject(part, partPath, source);
    const type = expectString(object.type, `${partPath}.type`, source);
    if (type === 'text') return { type: 'text', text: expectString(object.text, `${partPath}.text`, source) };
    if (type === 'image_url') {
      const imageUrl = expectObject(object.image_url, `${partPath}.image_url`, source);
      const url = expectString(imageUrl.url, `${partPath}.image_url.url`, source);
      const detail = imageUrl.detail;
      if (detail === 'auto' || detail === 'low' || detail === 'high')
        return { type, image_url: { url, detail } };
      return { type, image_url: { url } };
    }
    return { ...object, type };
  });
}

function readToolCall(value: unknown, path: string, source: string | undefined): OpenAIToolCall {
  const object = expectObject(value, path, source);
  const id = expectString(object.id, `${path}.id`, source);
  const fn = expectObject(object.function, `${path}.function`, source);
  const name = expectString(fn.name, `${path}.function.name`, source);
  const rawArguments = fn.arguments;
  let argumentsText: string;
  if (typeof rawArguments === 'string') argumentsText = rawArguments;
  else if (rawArguments === undefined || rawArguments === null) argumentsText = '';
  else if (isObject(rawArguments)) argumentsText = JSON.stringify(rawArguments);
  else
    throw unreadable(`expected string, got ${typeName(rawArguments)}`, `${path}.function.arguments`, source);
  return { id, type: 'function', function: { name, arguments: argumentsText } };
}
