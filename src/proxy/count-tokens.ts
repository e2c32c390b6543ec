/**
 * `POST /v1/messages/count_tokens` and Gemini's `POST …/models/{model}:countTokens` count what the
 * proxy would send for that conversation: the session's own compacted history plus the client's
 * new messages, not the client's full history (which the usage of the real requests would then
 * contradict).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { isRecord } from 'agent-compact/internal';
import { WIRE_FORMATS, type WireFormat } from 'agent-compact/wire';
import { conversationOf, withConversation } from './request-conversation.js';
import { sessionInput } from './session-history.js';
import { sessionKeyOf } from './session-identity.js';
import type { ProxySessionStore } from './session-store.js';
import { ANTHROPIC_COUNT_TOKENS_SUFFIX } from './wire/anthropic/anthropic-proxy-wire.js';
import { fallbackCountingFormat } from './wire/proxy-routes.js';
import { proxyWires } from './wire/proxy-wires.js';

/** The format of a token counting request, or undefined for any other request. */
function countingApi(method: string, pathname: string): WireFormat | undefined {
  if (method !== 'POST') return undefined;
  return WIRE_FORMATS.find((format) => proxyWires[format].route.tokenCount?.matches(pathname));
}

/** True for a token counting request. */
export function isCountTokens(method: string, pathname: string): boolean {
  return countingApi(method, pathname) !== undefined;
}

/** The bytes to send for a count request: the client's own when the session sent nothing of its own. */
export async function countTokensPayload(
  raw: Buffer,
  headers: IncomingHttpHeaders,
  store: ProxySessionStore,
  pathname = ANTHROPIC_COUNT_TOKENS_SUFFIX,
  url?: URL,
): Promise<Buffer> {
  const api = countingApi('POST', pathname) ?? fallbackCountingFormat;
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    return raw;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return raw;
  const outer = body as Record<string, unknown>;
  // Gemini counts either `{ contents }` or a whole request under `generateContentRequest`.
  const fields = proxyWires[api].route.tokenCount?.wrappedFields ?? [];
  const wrapped = fields.find((field) => isRecord(outer[field]));
  const record = wrapped === undefined ? outer : (outer[wrapped] as Record<string, unknown>);
  const client = conversationOf(api, record);
  if (client === undefined) return raw;
  try {
    const state = await store.load(sessionKeyOf(api, record, headers, url));
    const input = sessionInput(state, client, proxyWires[api].recall.isAnswerItem);
    if (input.restarted || input.conversation === client) return raw;
    const counted = withConversation(api, record, input.conversation);
    return Buffer.from(JSON.stringify(wrapped === undefined ? counted : { ...outer, [wrapped]: counted }));
  } catch {
    // A session store that failed (or a history too deep to write): the client's request is counted.
    return raw;
  }
}
