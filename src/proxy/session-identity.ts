/**
 * Which conversation a request belongs to. Every key starts with the owner: a hash of every
 * credential the request carries (the provider and gateway key headers, bearer tokens, every
 * `?key=` and `?access_token=`; never kept in clear), so two users with different keys never share a session,
 * its archive or its recall ids.
 * Then, in order: the `x-agent-compact-session` header; the client's own session id (Claude Code's
 * `metadata.user_id`, Codex's `prompt_cache_key` or `client_metadata.session_id`) with a hash of the
 * conversation's first message, since Claude Code runs sub-agent conversations under one session
 * id; else that hash alone. Callers who share a key, or send none, are kept apart by the lineage of
 * their history (`ProxySessionState.lineage`), not by this key.
 */
import { hash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { WireFormat } from 'agent-compact/wire';
import { conversationOf } from './request-conversation.js';

/** The header that names a session outright. */
export const SESSION_HEADER = 'x-agent-compact-session';

/** Claude Code 1.x writes `user_<hash>_account_<uuid>_session_<uuid>`. */
const legacyUserIdSession = /_session_([0-9a-f-]{8,})$/i;

/** The owner of a request that sends no credential. */
export const KEYLESS_OWNER = 'key:none';

/**
 * Headers that carry a credential, by name: the providers' own, then the LLM gateways' (an agent
 * whose upstream is a gateway authenticates with these, often with no provider key beside them).
 * A list rather than a rule on names such as `*-key` or `*auth*`: those would also take
 * `idempotency-key` or a per-request signature, whose value changes on every request and would
 * split one session into many. `proxy-authorization` is the proxy's own and never forwarded.
 */
const credentialHeaders = [
  'x-api-key',
  // OpenAI, OpenRouter and most gateways: `Bearer KEY`.
  'authorization',
  // Azure OpenAI.
  'api-key',
  'x-goog-api-key',
  // LiteLLM proxy.
  'x-litellm-api-key',
  // Cloudflare AI Gateway (authenticated gateways): `Bearer TOKEN`.
  'cf-aig-authorization',
  // Helicone: `Bearer KEY`.
  'helicone-auth',
  // Portkey: its API key, and a virtual key that stands for a provider key.
  'x-portkey-api-key',
  'x-portkey-virtual-key',
  // Azure API Management.
  'ocp-apim-subscription-key',
] as const;
/**
 * Query parameters that carry a credential: Gemini clients (LiteLLM, aider) send their key as
 * `?key=`, and Google APIs take an OAuth token as `?access_token=`.
 */
const credentialParameters = ['key', 'access_token'] as const;

/**
 * The session key of a request body (already parsed); `url` is the request's own, for a key sent
 * in its query.
 */
export function sessionKeyOf(
  api: WireFormat,
  body: Record<string, unknown>,
  headers: IncomingHttpHeaders,
  url?: URL,
): string {
  const owner = ownerOf(headers, url);
  const named = headers[SESSION_HEADER];
  if (typeof named === 'string' && named.trim() !== '') return `${owner}:header:${named.trim()}`;
  const head = shortHash(firstMessageText(conversationOf(api, body)?.[0]));
  const clientId = clientSessionId(api, body);
  return clientId === undefined ? `${owner}:conversation:${head}` : `${owner}:client:${clientId}:${head}`;
}

/**
 * What names a conversation by its first message: its fingerprint, `''` without one. A message
 * nested deeper than `JSON.stringify` can write (`JSON.parse` read it) is named by its place alone:
 * such requests of one owner share a key, their lineages keep them apart, and the compaction that
 * cannot read them either sends the client's bytes. Before, the `RangeError` was a 502.
 */
function firstMessageText(first: unknown): string {
  if (first === undefined) return '';
  try {
    return fingerprintMessage(first);
  } catch (error) {
    if (error instanceof RangeError) return UNWRITABLE_FIRST_MESSAGE;
    throw error;
  }
}

/** The text a first message too deep to write is hashed as (no fingerprint starts with it). */
const UNWRITABLE_FIRST_MESSAGE = 'unwritable first message';

/** The owner part of a session key, `key:HASH` (`key:none` for a request without a credential). */
function ownerOf(headers: IncomingHttpHeaders, url?: URL): string {
  return `key:${credentialHash(headers, url)}`;
}

/** The owner part of a session key made by {@link sessionKeyOf}. */
export function ownerOfSessionKey(sessionKey: string): string {
  const end = sessionKey.indexOf(':', 'key:'.length);
  return end === -1 ? sessionKey : sessionKey.slice(0, end);
}

/**
 * A hash of every credential the request carries, `none` when it sends none; no credential is ever
 * kept. A bearer token hashes like the same key sent as `x-api-key` (SDKs send either), and one
 * credential hashes as it always did, so stored sessions keep their keys.
 */
export function credentialHash(headers: IncomingHttpHeaders, url?: URL): string {
  const tokens = new Set<string>();
  for (const name of credentialHeaders) {
    const value = headers[name];
    const token = typeof value === 'string' ? value.replace(/^bearer\s+/i, '').trim() : '';
    if (token !== '') tokens.add(token);
  }
  // Every value of a repeated parameter: the upstream may read any one of them.
  for (const name of credentialParameters) {
    for (const value of url?.searchParams.getAll(name) ?? []) {
      if (value.trim() !== '') tokens.add(value.trim());
    }
  }
  if (tokens.size === 0) return 'none';
  return shortHash(`credential\n${[...tokens].map(escapedLines).sort().join('\n')}`);
}

/**
 * A credential with its line breaks (possible only in a query value) written out, so one key is
 * never read as the two either side of its line break; a key without one hashes as it always did.
 */
function escapedLines(token: string): string {
  return token.replaceAll('\\', '\\\\').replaceAll('\n', '\\n');
}

/** The client's own session id, when it sends one. */
export function clientSessionId(api: WireFormat, body: Record<string, unknown>): string | undefined {
  return clientSessionIds[api](body);
}

type SessionIdReader = (body: Record<string, unknown>) => string | undefined;

/** Codex (and other OpenAI clients): `prompt_cache_key`, else `client_metadata.session_id`. */
const openAIClientSessionId: SessionIdReader = (body) => {
  const cacheKey = body.prompt_cache_key;
  if (typeof cacheKey === 'string' && cacheKey !== '') return cacheKey;
  const metadataId = (body.client_metadata as { session_id?: unknown } | undefined)?.session_id;
  return typeof metadataId === 'string' && metadataId !== '' ? metadataId : undefined;
};

/** Where each API's clients name their session: one reader per format, looked up instead of switched on. */
const clientSessionIds: Record<WireFormat, SessionIdReader> = {
  anthropic: (body) => {
    const userId = (body.metadata as { user_id?: unknown } | undefined)?.user_id;
    return typeof userId === 'string' ? claudeCodeSessionId(userId) : undefined;
  },
  openai: openAIClientSessionId,
  responses: openAIClientSessionId,
  // Read for the same two fields.
  gemini: openAIClientSessionId,
};

/**
 * Claude Code's session id inside `metadata.user_id`: newer versions send a JSON string
 * `{"device_id":…,"account_uuid":…,"session_id":…}`, older ones `user_…_session_<uuid>`.
 */
export function claudeCodeSessionId(userId: string): string | undefined {
  if (userId.startsWith('{')) {
    try {
      const parsed = JSON.parse(userId) as { session_id?: unknown };
      if (typeof parsed.session_id === 'string' && parsed.session_id !== '') return parsed.session_id;
    } catch {
      // Not JSON after all: fall through to the other forms.
    }
  }
  const legacy = legacyUserIdSession.exec(userId)?.[1];
  return legacy ?? (userId === '' ? undefined : userId);
}

/** Matches a `cache_control` object wherever it sits, so moving a breakpoint changes no fingerprint. */
const cacheControlPattern = /,?"cache_control":\{[^{}]*\}/g;

/**
 * Content that is one plain text block, written as the string it holds: the API reads both the
 * same, and Claude Code 2.1.328+ sends its latest system message as a block, then as a string.
 */
const singleTextPattern = /"content":\[\{"type":"text","text":("(?:[^"\\]|\\.)*")\}\]/g;

/**
 * A message as text with its cache breakpoints removed and one-text-block content written as a
 * string: equal text means the same message.
 */
export function fingerprintMessage(message: unknown): string {
  return fingerprintJson(JSON.stringify(message));
}

/** `fingerprintMessage` for a message already serialized (so a caller can read the JSON once). */
export function fingerprintJson(json: string): string {
  return json.replace(cacheControlPattern, '').replace(singleTextPattern, '"content":$1');
}

/**
 * The eight-character session id of the log line, the headers and the dashboard: the start of the
 * key's {@link shortHash} (a hash of a short key costs microseconds; nothing is kept).
 */
export function shortSessionId(sessionKey: string): string {
  return shortHash(sessionKey).slice(0, 8);
}

/** A short stable hash for keys and archive file names (SHA-256, one-shot: no hash object per call). */
export function shortHash(text: string): string {
  return hash('sha256', text, 'hex').slice(0, 16);
}
