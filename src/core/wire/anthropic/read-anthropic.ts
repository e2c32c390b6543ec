/**
 * Reading and writing Anthropic Messages conversations: known blocks keep only their known fields,
 * unknown block types pass as they are.
 */

import type {
  ContentBlock,
  Conversation,
  ImageBlock,
  Message,
  ToolResultBlock,
  ToolResultContentBlock,
  ToolUseBlock,
} from '../../model/messages.js';
import {
  describeValue,
  expectObject,
  expectString,
  typeName,
  unreadable,
} from '../_internal/read-helpers.js';
import { readSystem, readTextBlock, withCacheControl } from '../_internal/read-system.js';
import type { RawConversation } from '../dialect.js';
import type { ParsedConversation } from '../parsed-conversation.js';

/** Reads Anthropic messages and a `system` field into the canonical model. */
export function readAnthropicConversation({
  messages,
  system,
  layout,
  messagePath,
  source,
}: RawConversation): ParsedConversation {
  const conversation: Conversation = {
    messages: messages.map((message, index) => readAnthropicMessage(message, messagePath(index), source)),
  };
  if (system !== undefined && system !== null) conversation.system = readSystem(system, source);
  return { conversation, format: 'anthropic', layout };
}

/** `{ "system"?, "messages": [...] }`, or JSONL with an optional `{"system"}` first line. */
export function serializeAnthropic(
  conversation: Conversation,
  { jsonl = false }: { jsonl?: boolean },
): string {
  if (jsonl) {
    const lines = conversation.messages.map((message) => JSON.stringify(message));
    if (conversation.system !== undefined) lines.unshift(JSON.stringify({ system: conversation.system }));
    return `${lines.join('\n')}\n`;
  }
  const body: Conversation =
    conversation.system === undefined
      ? { messages: conversation.messages }
      : { system: conversation.system, messages: conversation.messages };
  return `${JSON.stringify(body, null, 2)}\n`;
}

function readAnthropicMessage(value: unknown, path: string, source: string | undefined): Message {
  const object = expectObject(value, path, source);
  const { role } = object;
  if (role !== 'user' && role !== 'assistant') {
    throw unreadable(`expected "user" or "assistant", got ${describeValue(role)}`, `${path}.role`, source);
  }
  const { content } = object;
  if (typeof content === 'string') return { role, content };
  if (!Array.isArray(content)) {
    throw unreadable(`expected string or array, got ${typeName(content)}`, `${path}.content`, source);
  }
  return {
    role,
    content: content.map((block, index) => readBlock(block, `${path}.content[${index}]`, source)),
  };
}

function readBlock(value: unknown, path: string, source: string | undefined): ContentBlock {
  const object = expectObject(value, path, source);
  const type = expectString(object.type, `${path}.type`, source);
  switch (type) {
    case 'text':
      return readTextBlock(object, path, source);
    case 'image': {
      const sourceValue = expectObject(object.source, `${path}.source`, source);
      expectString(sourceValue.type, `${path}.source.type`, source);
      const image: ImageBlock = { type: 'image', source: { ...sourceValue } as { type: string } };
      return withCacheControl(image, object);
    }
    case 'thinking': {
      const thinking = expectString(object.thinking, `${path}.thinking`, source);
      const signature =
        object.signature === undefined ? '' : expectString(object.signature, `${path}.signature`, source);
      return { type: 'thinking', thinking, signature };
    }
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: expectString(object.data, `${path}.data`, source) };
    case 'tool_use': {
      const id = expectString(object.id, `${path}.id`, source);
      const name = expectString(object.name, `${path}.name`, source);
      const input = object.input === undefined ? {} : object.input;
      const toolUse: ToolUseBlock = { type: 'tool_use', id, name, input };
      return withCacheControl(toolUse, object);
    }
    case 'tool_result': {
      const toolUseId = expectString(object.tool_use_id, `${path}.tool_use_id`, source);
      const block: ToolResultBlock = { type: 'tool_result', tool_use_id: toolUseId };
      const { content } = object;
      if (typeof content === 'string') block.content = content;
      else if (Array.isArray(content)) {
        block.content = content.map(
          (inner, index) => readBlock(inner, `${path}.content[${index}]`, source) as ToolResultContentBlock,
        );
      } else if (content !== undefined && content !== null) {
        throw unreadable(`expected string or array, got ${typeName(content)}`, `${path}.content`, source);
      }
      if (object.is_error !== undefined) {
        if (typeof object.is_error !== 'boolean') {
          throw unreadable(`expected boolean, got ${typeName(object.is_error)}`, `${path}.is_error`, source);
        }
        block.is_error = object.is_error;
      }
      return withCacheControl(block, object);
    }
    default:
      // Unknown block types pass through untouched (own keys only; `__proto__` stays a plain key).
      return { ...object, type } as ContentBlock;
  }
}
