/** Which provider API a request path belongs to, and where it goes upstream. */
import type { IncomingHttpHeaders } from 'node:http';

/** The three APIs whose conversations the proxy compacts. */
export type ProxyApi = 'anthropic' | 'openai' | 'responses';

/** The upstream base URLs, one per provider family. */
export interface ProxyUpstreams {
  /** Where Anthropic traffic goes (`/v1/messages`, `count_tokens`, and requests with Anthropic headers). */
  anthropic: URL;
  /** Where OpenAI traffic goes (`/v1/chat/completions`, `/v1/responses`, everything else). */
  openai: URL;
}

/** The API a compacted route speaks, or `undefined` for a path forwarded untouched. */
export function compactedApi(method: string | undefined, pathname: string): ProxyApi | undefined {
  if (method !== 'POST') return undefined;
  switch (pathname) {
    case '/v1/messages':
      return 'anthropic';
    case '/v1/chat/completions':
      return 'openai';
    case '/v1/responses':
      return 'responses';
    default:
      return undefined;
  }
}

/** The provider family of any request: its path first, then its headers. */
export function providerOf(pathname: string, headers: IncomingHttpHeaders): 'anthropic' | 'openai' {
  if (pathname.startsWith('/v1/messages')) return 'anthropic';
  if (pathname.startsWith('/v1/chat/') || pathname.startsWith('/v1/responses')) return 'openai';
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
