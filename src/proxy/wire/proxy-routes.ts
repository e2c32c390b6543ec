/**
 * The proxy's routes, per format and per provider family: which paths a format's conversations are
 * compacted on, where it counts tokens, and how a request is told to belong to a provider. A new
 * format is one line in each table; the `Record` type makes the compiler name a format left out.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { WireFormat } from 'agent-compact/wire';
import { isGeminiCompactedPath, isGeminiPath } from '../gemini/gemini-proxy.js';

/** The path suffix of Anthropic's token counting endpoint (after any base-URL prefix). */
export const ANTHROPIC_COUNT_TOKENS_SUFFIX = '/v1/messages/count_tokens';

/** Gemini's token counting method, after any prefix. */
const geminiCountTokens = /\/models\/[^/:]+:countTokens$/;

/** A format's own token counting endpoint. */
export interface TokenCountRoute {
  /** True for the endpoint's path (after any prefix). */
  matches(pathname: string): boolean;
  /** The field a count body may carry a whole request under, instead of the conversation itself. */
  readonly wrappedField?: string;
}

/** What the proxy routes by for one format. */
export interface FormatRoute {
  /** True for a path (one trailing slash already dropped) whose conversation the proxy compacts. */
  compacts(path: string): boolean;
  /** Where the format counts tokens, if it has an endpoint for it. */
  readonly tokenCount?: TokenCountRoute;
}

/** Every format's routes, by format. */
export const formatRoutes: Readonly<Record<WireFormat, FormatRoute>> = {
  anthropic: {
    compacts: (path) => path.endsWith('/v1/messages'),
    tokenCount: {
      matches: (pathname) => pathname.replace(/\/+$/, '').endsWith(ANTHROPIC_COUNT_TOKENS_SUFFIX),
    },
  },
  openai: { compacts: (path) => path.endsWith('/v1/chat/completions') },
  responses: { compacts: (path) => path.endsWith('/v1/responses') },
  gemini: {
    compacts: isGeminiCompactedPath,
    tokenCount: {
      matches: (pathname) => geminiCountTokens.test(pathname),
      wrappedField: 'generateContentRequest',
    },
  },
};

/** The format a count request is read as when its path names none. */
export const fallbackCountingFormat: WireFormat = 'anthropic';

/** How a request is told to belong to one provider family (its upstream and error shape). */
export interface ProviderRoute {
  readonly provider: string;
  /** True for a path only this provider has (after any prefix). */
  ownsPath(pathname: string): boolean;
  /** True for headers only this provider's clients send, for the paths every API has. */
  ownsHeaders(headers: IncomingHttpHeaders): boolean;
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
    ownsHeaders: (headers) => headers['x-goog-api-key'] !== undefined,
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
