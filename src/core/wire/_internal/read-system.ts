/**
 * The Anthropic system prompt and text block reader, shared: OpenAI Chat reads its leading system
 * message the same way, and a dialect never imports a sibling dialect.
 */
import type { CacheControl, SystemPrompt, TextBlock } from '../../model/messages.js';
import {
  describeValue,
  expectObject,
  expectString,
  isObject,
  type JsonObject,
  typeName,
  unreadable,
} from './read-helpers.js';

/** An Anthropic system prompt: a string or text blocks (also OpenAI's leading system message). */
export function readSystem(value: unknown, source: string | undefined): SystemPrompt {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value))
    throw unreadable(`expected string or array, got ${typeName(value)}`, 'system', source);
  return value.map((block, index) => {
    const path = `system[${index}]`;
    const object = expectObject(block, path, source);
    if (object.type !== 'text') {
      throw unreadable(`expected a text block, got ${describeValue(object.type)}`, `${path}.type`, source);
    }
    return readTextBlock(object, path, source);
  });
}

export function readTextBlock(object: JsonObject, path: string, source: string | undefined): TextBlock {
  const block: TextBlock = { type: 'text', text: expectString(object.text, `${path}.text`, source) };
  if (Array.isArray(object.citations)) block.citations = object.citations;
  return withCacheControl(block, object);
}

/** The block with a copy of a valid `cache_control` from its wire object. */
export function withCacheControl<T extends { cache_control?: CacheControl }>(
  block: T,
  object: JsonObject,
): T {
  const cacheControl = object.cache_control;
  if (isObject(cacheControl) && cacheControl.type === 'ephemeral') {
    const copy: CacheControl = { type: 'ephemeral' };
    if (cacheControl.ttl === '5m' || cacheControl.ttl === '1h') copy.ttl = cacheControl.ttl;
    block.cache_control = copy;
  }
  return block;
}
