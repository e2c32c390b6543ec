/** Which provider API a request path belongs to, and where it goes upstream. */

import type { IncomingHttpHeaders } from 'node:http';
import type { WireFormat } from '../core/model/wire-format.js';
import { isGeminiCompactedPath, isGeminiPath } from './gemini/gemini-proxy.js';

/**
 * The APIs whose conversations the proxy compacts.
 * @deprecated Use `WireFormat` (from `agent-compact/wire`): the same union under its one name.
 */
export type ProxyApi = WireFormat;

/** The upstream base URLs, one per provider family. */
export interface ProxyUpstreams {
  /** Where Anthropic traffic goes (`/v1/messages`, `count_tokens`, and requests with Anthropic headers). */
  anthropic: URL;
  /** Where OpenAI traffic goes (`/v1/chat/completions`, `/v1/responses`, everything else). */
  openai: URL;
  /** Where Gemini traffic goes (`/v1beta/models/…`). */
  gemini: URL;
}

/** A provider family: where its traffic goes and the shape of its errors. */
export type ProxyProvider = keyof ProxyUpstreams;

/** The compacted endpoints, matched at the end of the path so a base URL may carry a prefix. */
const compactedSuffixes: ReadonlyArray<readonly [string, WireFormat]> = [
  ['/v1/messages', 'anthropic'],
  ['/v1/chat/completions', 'openai'],
  ['/v1/responses', 'responses'],
];

/**
 * The API a compacted route speaks, or `undefined` for a path forwarded untouched. The path may
 * carry any prefix before `/v1/…` (a gateway's `/openai/v1/chat/completions`, `/api/v1/messages`);
 * one trailing slash is ignored.
 */
export function compactedApi(method: string | undefined, pathname: string): WireFormat | undefined {
  if (method !== 'POST') return undefined;
  const path = pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
  if (isGeminiCompactedPath(path)) return 'gemini';
  return compactedSuffixes.find(([suffix]) => path.endsWith(suffix))?.[1];
}

/** `/v1/messages` and everything under it (`count_tokens`, `batches`), after any prefix. */
const anthropicPath = /\/v1\/messages(\/|$)/;
/** `/v1/chat/…` and `/v1/responses…`, after any prefix. */
const openaiPath = /\/v1\/(chat\/|responses(\/|$))/;

/**
 * The provider family of any request: its path decides when it names one, so no header sends
 * `/v1/messages` (and its key) to another provider; headers only for the paths every API has.
 */
export function providerOf(pathname: string, headers: IncomingHttpHeaders): ProxyProvider {
  if (isGeminiPath(pathname)) return 'gemini';
  if (anthropicPath.test(pathname)) return 'anthropic';
  if (openaiPath.test(pathname)) return 'openai';
  if (headers['x-goog-api-key'] !== undefined) return 'gemini';
  return headers['anthropic-version'] !== undefined || headers['x-api-key'] !== undefined
    ? 'anthropic'
    : 'openai';
}

/**
 * The upstream URL of a request: the base URL's path, then the request's path and query. A base
 * that already ends in `/v1` (as OpenAI base URLs do) is not doubled.
 */
export function upstreamUrl(base: URL, pathAndQuery: string): URL {
  const basePath = base.pathname.replace(/\/+$/, '');
  const path =
    basePath.endsWith('/v1') && pathAndQuery.startsWith('/v1/') ? pathAndQuery.slice(3) : pathAndQuery;
  return new URL(`${base.origin}${basePath}${path}`);
}
