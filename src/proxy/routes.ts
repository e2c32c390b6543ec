/** Which provider API a request path belongs to, and where it goes upstream. */

import type { IncomingHttpHeaders } from 'node:http';
import { WIRE_FORMATS, type WireFormat } from 'agent-compact/wire';
import { fallbackProvider, providerRoutes } from './wire/proxy-routes.js';
import { proxyWires } from './wire/proxy-wires.js';

/** The upstream base URLs, one per provider family. */
export interface ProxyUpstreams {
  /** Where Anthropic traffic goes (`/v1/messages`, `count_tokens`, and requests with Anthropic headers). */
  anthropic: URL;
  /** Where OpenAI traffic goes (`/v1/chat/completions`, `/v1/responses`, everything else). */
  openai: URL;
  /**
   * Where Gemini traffic goes (`/v1beta/…`, `…/models/{model}:method`, and requests with a Gemini
   * key); undefined when none was given, and then such traffic is refused, never sent elsewhere.
   */
  gemini: URL | undefined;
}

/** A provider family: where its traffic goes and the shape of its errors. */
export type ProxyProvider = keyof ProxyUpstreams;

/**
 * The API a compacted route speaks, or `undefined` for a path forwarded untouched. The path may
 * carry any prefix before `/v1/…` (a gateway's `/openai/v1/chat/completions`, `/api/v1/messages`);
 * one trailing slash is ignored.
 */
export function compactedApi(method: string | undefined, pathname: string): WireFormat | undefined {
  if (method !== 'POST') return undefined;
  const path = pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
  return WIRE_FORMATS.find((format) => proxyWires[format].route.compacts(path));
}

/**
 * The provider family of any request: its path decides when it names one, so no header sends
 * `/v1/messages` (and its key) to another provider; headers only for the paths every API has.
 */
export function providerOf(
  pathname: string,
  headers: IncomingHttpHeaders,
  query: URLSearchParams = new URLSearchParams(),
): ProxyProvider {
  const route =
    providerRoutes.find((candidate) => candidate.ownsPath(pathname)) ??
    providerRoutes.find((candidate) => candidate.ownsHeaders(headers, query));
  return route?.provider ?? fallbackProvider;
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
