/** Where each API keeps the conversation in a request body: its dialect's `conversationField`. */

import { dialects } from 'agent-compact/internal';
import type { WireFormat } from 'agent-compact/wire';

/** The field holding the conversation. */
export function conversationField(api: WireFormat): 'messages' | 'input' | 'contents' {
  return dialects[api].conversationField;
}

/** The conversation of a request, or `undefined` when the field is not an array. */
export function conversationOf(api: WireFormat, body: Record<string, unknown>): unknown[] | undefined {
  const value = body[conversationField(api)];
  return Array.isArray(value) ? value : undefined;
}

/** The same body with another conversation; every other field keeps its place and value. */
export function withConversation(
  api: WireFormat,
  body: Record<string, unknown>,
  conversation: unknown[],
): Record<string, unknown> {
  return { ...body, [conversationField(api)]: conversation };
}
