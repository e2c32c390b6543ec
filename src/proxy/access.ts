/**
 * Who may reach the proxy. Every route: a `Host` of the proxy's own (the bound address, localhost,
 * 127.0.0.1, [::1], or a name given with `allowHosts`), so a page that rebinds its own name to
 * 127.0.0.1 is served nothing; and no foreign `Origin` or `Sec-Fetch-Site: cross-site`, so no page
 * on the web can post to it (agents on the command line send neither). The own routes: loopback
 * needs no token, any other address one, and with a token every `/agent-compact/*` route asks for
 * it (`Authorization: Bearer TOKEN`, `?token=`, or the dashboard's cookie).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';
import { CompactError } from 'agent-compact';

/** Every route of the proxy itself lives under this prefix; everything else belongs to the provider. */
export const OWN_PREFIX = '/agent-compact/';

/** Names of the local machine that only it can reach. */
const loopbackNames = new Set(['localhost', '::1', '[::1]']);

/** True for an address only this machine can reach (127.0.0.0/8, ::1, localhost). */
export function isLoopbackHost(host: string): boolean {
  if (loopbackNames.has(host.toLowerCase())) return true;
  return isIP(host) === 4 && host.startsWith('127.');
}

/** Throws when `host` would serve the network without a token to guard the proxy's own routes. */
export function assertSafeBinding(host: string, token: string | undefined): void {
  if (isLoopbackHost(host) || (token !== undefined && token !== '')) return;
  throw new CompactError(
    `refusing to listen on ${host} without a token: pass --token TOKEN (or set AGENT_COMPACT_TOKEN), or bind 127.0.0.1`,
    { code: 'INVALID_OPTIONS', path: 'host' },
  );
}

/** Bytes of a token made up for a loopback proxy that was given none (256 bits). */
const TOKEN_BYTES = 32;

/** A fresh random token, URL-safe. */
export function randomToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

/**
 * The cookie the dashboard's token is kept in after the first load; named by the port, since
 * browsers send a host's cookies to all of its ports.
 */
export function tokenCookieName(port: number): string {
  return `agent_compact_token_${port}`;
}

/** `Bearer` and the spaces after it, in any case. */
const bearerScheme = /^bearer\s+/i;

/**
 * True when the request may use an own route: no token set, or the token given as bearer, as
 * `?token=`, or in the dashboard's cookie of `port`.
 */
export function isAuthorized(
  headers: IncomingHttpHeaders,
  url: URL,
  token: string | undefined,
  port?: number,
): boolean {
  if (token === undefined || token === '') return true;
  const authorization = headers.authorization;
  // The scheme is case-insensitive (RFC 9110 §11.1): `bearer TOKEN` is the same credential.
  const bearer =
    typeof authorization === 'string' && bearerScheme.test(authorization)
      ? authorization.replace(bearerScheme, '').trim()
      : undefined;
  const cookie = port === undefined ? undefined : cookieValue(headers.cookie, tokenCookieName(port));
  return [bearer, url.searchParams.get('token') ?? undefined, cookie].some(
    (given) => given !== undefined && sameSecret(given, token),
  );
}

/**
 * The token as a cookie value: percent-encoded, so a token of your choosing with a `;`, a space or
 * a character outside Latin-1 comes back whole (a browser cuts a cookie at its first `;`).
 */
export function tokenCookieValue(token: string): string {
  return encodeURIComponent(token);
}

/** One cookie's value from a `Cookie` header, decoded as {@link tokenCookieValue} wrote it. */
function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of header?.split(';') ?? []) {
    const [key, ...value] = part.trim().split('=');
    if (key !== name) continue;
    try {
      return decodeURIComponent(value.join('='));
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** Host names a proxy always serves, besides its bound address. */
const ownHostNames = ['localhost', '127.0.0.1', '[::1]'];

/** Which `Host` values a proxy serves and which pages' origins it trusts. */
export interface HostPolicy {
  /** Host names (lower case, IPv6 in brackets) a request's `Host` may name. */
  served: ReadonlySet<string>;
  /** Host names given with `allowHosts`: a page of theirs may call the proxy from another origin. */
  allowed: ReadonlySet<string>;
}

/** The policy of a proxy bound to `boundHost`, with the extra names of `allowHosts`. */
export function hostPolicy(boundHost: string, allowHosts: readonly string[] = []): HostPolicy {
  const allowed = new Set(allowHosts.map(normalHostName));
  return {
    served: new Set([...ownHostNames.map(normalHostName), normalHostName(boundHost), ...allowed]),
    allowed,
  };
}

function normalHostName(name: string): string {
  const lower = name.trim().toLowerCase();
  return isIP(lower) === 6 ? `[${lower}]` : lower;
}

/** The host name of a `Host` value (`127.0.0.1:8787`, `[::1]:8787`, `localhost`). */
function hostNameOf(host: string): string {
  const lower = host.trim().toLowerCase();
  if (lower.startsWith('[')) return lower.slice(0, lower.indexOf(']') + 1);
  const colon = lower.lastIndexOf(':');
  return colon === -1 ? lower : lower.slice(0, colon);
}

/** `host:port` of an `Origin` header, `undefined` for `null` or anything that is not a URL. */
function originHostOf(origin: string): string | undefined {
  try {
    const url = new URL(origin);
    return url.host === '' ? undefined : url.host.toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * Why the proxy refuses a request before reading it (`undefined`: it does not): a `Host` it does
 * not serve, a foreign `Origin`, or a cross-site fetch. An origin is the proxy's own when it is the
 * request's own host (the dashboard's page), or a name given with `allowHosts`.
 */
export function accessRefusal(headers: IncomingHttpHeaders, policy: HostPolicy): string | undefined {
  const host = headers.host?.toLowerCase();
  if (host !== undefined && !policy.served.has(hostNameOf(host))) {
    return `Host "${host}" is not served here (start the proxy with --allow-host ${hostNameOf(host)} to serve it)`;
  }
  const origin = headers.origin;
  const originHost = origin === undefined ? undefined : originHostOf(origin);
  const trusted =
    originHost !== undefined && (originHost === host || policy.allowed.has(hostNameOf(originHost)));
  if (origin !== undefined && !trusted) return `Origin "${origin}" may not use the proxy`;
  if (headers['sec-fetch-site'] === 'cross-site' && !trusted) {
    return 'a cross-site request may not use the proxy';
  }
  return undefined;
}

/** Compares in constant time, so the answer's timing says nothing about the token. */
function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
