/**
 * The dashboard's routes: the page at `/agent-compact/`, sessions as JSON, one session's export,
 * an archived item in full, and `/agent-compact/events` (server-sent events) for live updates.
 */
import type { ServerResponse } from 'node:http';
import type { MemoryBudget } from '../memory-budget.js';
import { type OwnRouteHandler, writeJson } from '../own-routes.js';
import { errorSummary } from '../provider-errors.js';
import { dashboardPage } from './dashboard-page.js';
import type { ProxyMonitor } from './monitor.js';

/** `/agent-compact/sessions/ID`, `/…/ID/export` and `/…/ID/items/ITEM`. */
const sessionPath = /^\/agent-compact\/sessions\/([^/]+)(?:\/(export)|\/items\/([^/]+))?$/;
/** A comment line now and then keeps idle proxies and browsers from closing the event stream. */
const KEEPALIVE_MS = 15_000;
/**
 * Unsent bytes one subscriber may have before it is disconnected: a browser that reads keeps none,
 * and an update is a few hundred bytes (a summary a few kB), so 1 MiB is thousands of updates
 * behind. Its page reloads the sessions when its event stream reconnects.
 */
export const SUBSCRIBER_BUFFER_BYTES = 1024 * 1024;
let subscribers = 0;

/** The dashboard's handler over `monitor`; `stats` reads the proxy's totals. */
export function dashboardRoutes(
  monitor: ProxyMonitor,
  stats: () => Promise<unknown>,
  budget: MemoryBudget,
): OwnRouteHandler {
  return async (incoming, response, url) => {
    if (incoming.method !== 'GET') return false;
    const path = url.pathname;
    if (path === '/agent-compact/' || path === '/agent-compact') {
      const state = { stats: await stats(), sessions: monitor.all() };
      response.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        // Everything is inline; nothing may load from elsewhere.
        'content-security-policy':
          "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:",
      });
      response.end(dashboardPage(state));
      return true;
    }
    if (path === '/agent-compact/sessions') {
      writeJson(response, 200, monitor.list());
      return true;
    }
    if (path === '/agent-compact/events') {
      streamEvents(response, monitor, budget);
      return true;
    }
    const match = sessionPath.exec(path);
    if (!match) return false;
    const [, id = '', exportFlag, itemId] = match;
    const sessionId = decoded(id);
    const decodedItem = itemId === undefined ? '' : decoded(itemId);
    if (sessionId === undefined || decodedItem === undefined) {
      writeJson(response, 400, { error: `agent-compact: malformed escape in ${path}` });
      return true;
    }
    const session = monitor.session(sessionId);
    if (!session) return false;
    if (itemId !== undefined) {
      let item: unknown;
      try {
        item = await monitor.item(session.id, decodedItem);
      } catch (error) {
        // The archive's failure, not the proxy's: a 503 that says so (its first line, no stack).
        writeJson(response, 503, { error: `agent-compact: archive unavailable: ${errorSummary(error)}` });
        return true;
      }
      if (item === undefined) return false;
      writeJson(response, 200, item);
      return true;
    }
    writeJson(
      response,
      200,
      session,
      exportFlag ? { 'content-disposition': `attachment; filename="agent-compact-${session.id}.json"` } : {},
    );
    return true;
  };
}

/** A path segment's text; `undefined` when its `%` escapes are malformed (a 400, not a 502). */
function decoded(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/**
 * One `session` event per finished request, with what changed (see `SessionUpdate`), until the
 * browser goes away. What it has not read yet is charged to the budget; past
 * {@link SUBSCRIBER_BUFFER_BYTES}, or evicted by the budget, it is disconnected.
 */
function streamEvents(response: ServerResponse, monitor: ProxyMonitor, budget: MemoryBudget): void {
  response.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-store',
    connection: 'keep-alive',
  });
  subscribers += 1;
  const key = `subscriber:${subscribers}`;
  const disconnect = () => response.destroy();
  const send = (text: string) => {
    if (response.destroyed) return;
    response.write(text);
    if (response.writableLength > SUBSCRIBER_BUFFER_BYTES) return disconnect();
    budget.charge(key, response.writableLength, disconnect);
  };
  send(': connected\n\n');
  const stop = monitor.subscribe((update) => send(`event: session\ndata: ${JSON.stringify(update)}\n\n`));
  // A subscriber that reads is the most recently used again.
  response.on('drain', () => budget.charge(key, response.writableLength, disconnect));
  const keepalive = setInterval(() => send(': keepalive\n\n'), KEEPALIVE_MS);
  keepalive.unref();
  response.on('close', () => {
    stop();
    clearInterval(keepalive);
    budget.release(key);
  });
}
