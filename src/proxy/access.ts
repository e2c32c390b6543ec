/**
 * Who may reach the proxy's own routes: loopback needs nothing, any other address a token, and
 * with a token every `/agent-compact/*` route asks for it (`Authorization: Bearer TOKEN` or `?token=`).
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';
import { CompactError } from '../core/errors.js';

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

/** True when the request may use an own route: no token set, or the token given as bearer or query. */
export function isAuthorized(headers: IncomingHttpHeaders, url: URL, token: string | undefined): boolean {
  if (token === undefined || token === '') return true;
  const authorization = headers.authorization;
  const bearer =
    typeof authorization === 'string' && authorization.startsWith('Bearer ')
      ? authorization.slice('Bearer '.length).trim()
      : undefined;
  const given = bearer ?? url.searchParams.get('token') ?? '';
  return sameSecret(given, token);
}

/** Compares in constant time, so the answer's timing says nothing about the token. */
function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
