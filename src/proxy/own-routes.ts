/**
 * The proxy's own routes under `/agent-compact/`: the stats, and whatever else the proxy serves
 * itself (the dashboard adds its own). A token, when set, guards every one of them.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isAuthorized, OWN_PREFIX } from './access.js';

/** Serves one own route; resolves `false` when the path is not one it knows. */
export type OwnRouteHandler = (
  incoming: IncomingMessage,
  response: ServerResponse,
  url: URL,
) => Promise<boolean> | boolean;

/** True for a path the proxy answers itself, never forwarded upstream. */
export function isOwnPath(pathname: string): boolean {
  return pathname === OWN_PREFIX.slice(0, -1) || pathname.startsWith(OWN_PREFIX);
}

/** Checks the token, then asks each handler in turn; 404 when none knows the path. */
export async function serveOwnRoute(
  incoming: IncomingMessage,
  response: ServerResponse,
  url: URL,
  { token, handlers }: { token: string | undefined; handlers: readonly OwnRouteHandler[] },
): Promise<void> {
  if (!isAuthorized(incoming.headers, url, token)) {
    writeJson(
      response,
      401,
      { error: 'agent-compact: missing or wrong token' },
      {
        'www-authenticate': 'Bearer realm="agent-compact"',
      },
    );
    return;
  }
  for (const handler of handlers) {
    if (await handler(incoming, response, url)) return;
  }
  writeJson(response, 404, { error: `agent-compact: no route ${url.pathname}` });
}

/** Writes a JSON answer that no cache keeps (it may carry a session's content). */
export function writeJson(
  response: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, {
    'content-type': 'application/json',
    'cache-control': 'no-store',
    ...headers,
  });
  response.end(JSON.stringify(value));
}
