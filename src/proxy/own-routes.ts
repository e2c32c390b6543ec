/**
 * The proxy's own routes under `/agent-compact/`: the stats, and whatever else the proxy serves
 * itself (the dashboard adds its own). A token, when set, guards every one of them; the dashboard's
 * address carries it once, and the page trades it for a cookie no script can read.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isAuthorized, OWN_PREFIX, tokenCookieName, tokenCookieValue } from './access.js';

/** The dashboard's page, the one address a person opens with `?token=`. */
const DASHBOARD_PATHS = new Set([OWN_PREFIX, OWN_PREFIX.slice(0, -1)]);

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
  const port = incoming.socket.localPort;
  if (!isAuthorized(incoming.headers, url, token, port)) {
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
  if (token && port !== undefined && isTokenExchange(incoming, url)) {
    return redirectWithCookie(response, url, tokenCookieName(port), token);
  }
  for (const handler of handlers) {
    if (await handler(incoming, response, url)) return;
  }
  writeJson(response, 404, { error: `agent-compact: no route ${url.pathname}` });
}

/** The dashboard's page opened with `?token=` (already checked): traded for a cookie. */
function isTokenExchange(incoming: IncomingMessage, url: URL): boolean {
  return incoming.method === 'GET' && DASHBOARD_PATHS.has(url.pathname) && url.searchParams.has('token');
}

/**
 * Keeps the token in an HttpOnly, SameSite=Strict cookie and sends the browser to the address
 * without it, so it is in no link, history entry or `Referer` after the first load.
 */
function redirectWithCookie(response: ServerResponse, url: URL, name: string, token: string): void {
  const search = new URLSearchParams(url.search);
  search.delete('token');
  const query = search.toString();
  response.writeHead(303, {
    location: `${OWN_PREFIX}${query === '' ? '' : `?${query}`}`,
    'set-cookie': `${name}=${tokenCookieValue(token)}; Path=${OWN_PREFIX.slice(0, -1)}; HttpOnly; SameSite=Strict`,
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
  });
  response.end();
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
