/**
 * How a request is told to belong to a provider family (its upstream and error shape). Which paths
 * a format's conversations are compacted and counted on is the format's own (`ProxyWire.route`).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { WireFormat } from 'agent-compact/wire';
import { isGeminiPath } from '../gemini/gemini-proxy.js';

/** The format a count request is read as when its path names none. */
export const fallbackCountingFormat: WireFormat = 'anthropic';

/** How a request is told to belong to one provider family (its upstream and error shape). */
export interface ProviderRoute {
  readonly provider: string;
  /** True for a path only this provider has (after any prefix). */
  ownsPath(pathname: string): boolean;
  /** True for credentials only this provider's clients send, for the paths every API has. */
  ownsHeaders(headers: IncomingHttpHeaders, query: URLSearchParams): boolean;
}

/** `/v1/messages` and everything under it (`count_tokens`, `batches`), after any prefix. */
const anthropicPath = /\/v1\/messages(\/|$)/;
/** `/v1/chat/…` and `/v1/responses…`, after any prefix. */
const openaiPath = /\/v1\/(chat\/|responses(\/|$))/;

/** The provider families in the order they are asked: paths first, then headers. */
export const providerRoutes = [
  {
    provider: 'gemini',
    ownsPath: isGeminiPath,
    // Only Gemini's clients put the key in the address (`?key=`, as LiteLLM does).
    ownsHeaders: (headers, query) => headers['x-goog-api-key'] !== undefined || query.has('key'),
  },
  {
    provider: 'anthropic',
    ownsPath: (pathname) => anthropicPath.test(pathname),
    ownsHeaders: (headers) =>
      headers['anthropic-version'] !== undefined || headers['x-api-key'] !== undefined,
  },
  {
    provider: 'openai',
    ownsPath: (pathname) => openaiPath.test(pathname),
    ownsHeaders: () => false,
  },
] as const satisfies readonly ProviderRoute[];

/** The provider of a request that neither its path nor its headers name. */
export const fallbackProvider = 'openai' satisfies (typeof providerRoutes)[number]['provider'];
