/**
 * `POST /v1/messages/count_tokens` counts what the proxy would send for that conversation: the
 * session's own compacted history plus the client's new messages, not the client's full history
 * (which the usage of the real requests would then contradict).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { withoutRecallIds } from './recall-ids.js';
import { conversationOf, withConversation } from './request-conversation.js';
import { sessionInput } from './session-history.js';
import { sessionKeyOf } from './session-identity.js';
import type { ProxySessionStore } from './session-store.js';

/** The path suffix of Anthropic's token counting endpoint (after any base-URL prefix). */
const COUNT_TOKENS_SUFFIX = '/v1/messages/count_tokens';

/** True for a token counting request. */
export function isCountTokens(method: string, pathname: string): boolean {
  return method === 'POST' && pathname.replace(/\/+$/, '').endsWith(COUNT_TOKENS_SUFFIX);
}

/** The bytes to send for a count request: the client's own when the session sent nothing of its own. */
export async function countTokensPayload(
  raw: Buffer,
  headers: IncomingHttpHeaders,
  store: ProxySessionStore,
  recall: boolean,
): Promise<Buffer> {
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    return raw;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return raw;
  const record = body as Record<string, unknown>;
  const client = conversationOf('anthropic', record);
  if (client === undefined) return raw;
  const state = await store.load(sessionKeyOf('anthropic', record, headers));
  const input = sessionInput(state, client);
  if (input.restarted || input.conversation === client) return raw;
  const json = JSON.stringify(withConversation('anthropic', record, input.conversation));
  return Buffer.from(recall ? json : withoutRecallIds(json));
}
