/** Where each API keeps the conversation in a request body: `messages`, or `input` for Responses. */
import type { ProxyApi } from './routes.js';

/** The field holding the conversation. */
export function conversationField(api: ProxyApi): 'messages' | 'input' | 'contents' {
  if (api === 'gemini') return 'contents';
  return api === 'responses' ? 'input' : 'messages';
}

/** The conversation of a request, or `undefined` when the field is not an array. */
export function conversationOf(api: ProxyApi, body: Record<string, unknown>): unknown[] | undefined {
  const value = body[conversationField(api)];
  return Array.isArray(value) ? value : undefined;
}

/** The same body with another conversation; every other field keeps its place and value. */
export function withConversation(
  api: ProxyApi,
  body: Record<string, unknown>,
  conversation: unknown[],
): Record<string, unknown> {
  return { ...body, [conversationField(api)]: conversation };
}
