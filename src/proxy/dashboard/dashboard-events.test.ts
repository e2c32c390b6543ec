import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryArchiveStore } from '../../core/archive/memory-archive-store.js';
import { MemoryBudget } from '../memory-budget.js';
import type { ProxyRequestRecord } from '../proxy-stats.js';
import type { RequestCompaction } from '../request-compactor.js';
import { dashboardRoutes, SUBSCRIBER_BUFFER_BYTES } from './dashboard-routes.js';
import { type ExchangeObservation, ProxyMonitor } from './monitor.js';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

/** The dashboard's routes alone on 127.0.0.1, over `monitor`. */
async function serve(monitor: ProxyMonitor, budget = new MemoryBudget()) {
  const routes = dashboardRoutes(monitor, async () => ({}), budget);
  server = createServer((incoming, response) => {
    void routes(incoming, response, new URL(incoming.url ?? '/', 'http://127.0.0.1'));
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** One finished request of session `s1`, compacted by micro, with a model name `modelBytes` long. */
function observation(turn: number, modelBytes = 10): ExchangeObservation {
  const record = {
    session: 's1',
    api: 'anthropic',
    time: new Date(turn).toISOString(),
  } as ProxyRequestRecord;
  const compaction: RequestCompaction = {
    body: {},
    layer: 'micro',
    tokensBefore: 1000 + turn,
    tokensAfter: 500,
    archived: [`r${turn}`],
  };
  return {
    record: { ...record, tokensIn: 1000 + turn, tokensOut: 500, layer: 'micro', status: 200, ms: 1 },
    model: 'm'.repeat(modelBytes),
    agent: 'test',
    usage: undefined,
    compaction,
    archive: createMemoryArchiveStore(),
    archiveSessionId: 'proxy-s1',
  };
}

describe('/agent-compact/events', () => {
  it('sends each request and its compaction, never the whole lists again', async () => {
    const monitor = new ProxyMonitor();
    const port = await serve(monitor);
    const controller = new AbortController();
    const events = await fetch(`http://127.0.0.1:${port}/agent-compact/events`, {
      signal: controller.signal,
    });
    const reader = events.body!.getReader();
    for (let turn = 1; turn <= 30; turn += 1) await monitor.observe(observation(turn));
    let text = '';
    while ((text.match(/event: session/g) ?? []).length < 30) {
      text += new TextDecoder().decode((await reader.read()).value);
    }
    controller.abort();
    const updates = [...text.matchAll(/data: (.*)\n/g)].map((match) => JSON.parse(match[1]!));
    expect(updates.map((update) => update.compaction.archived)).toEqual(
      Array.from({ length: 30 }, (_, index) => [`r${index + 1}`]),
    );
    expect(updates.every((update) => !('compactions' in update) && !('requests' in update))).toBe(true);
    // The same size at the 30th request as at the first: nothing grows with the session.
    const sizes = [...text.matchAll(/data: (.*)\n/g)].map((match) => match[1]!.length);
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThan(10);
    expect(monitor.session('s1')?.compactions).toHaveLength(30);
  });

  it('disconnects a subscriber that never reads once its unsent bytes pass the cap, and uncharges it', async () => {
    const monitor = new ProxyMonitor();
    const budget = new MemoryBudget();
    const port = await serve(monitor, budget);
    // A raw socket that sends the request and never reads a byte of the answer.
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    socket.pause();
    socket.write('GET /agent-compact/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    const connections = () =>
      new Promise<number>((resolve) => server?.getConnections((_, count) => resolve(count)));
    // Updates of 64 kB each: the kernel's buffers fill, then the proxy's, then it lets go.
    const modelBytes = 64 * 1024;
    for (let turn = 0; (await connections()) > 0; turn += 1) {
      await monitor.observe(observation(turn, modelBytes));
      expect(budget.used).toBeLessThanOrEqual(SUBSCRIBER_BUFFER_BYTES + 2 * modelBytes);
      await new Promise((resolve) => setImmediate(resolve));
    }
    socket.destroy();
    expect(budget.used).toBe(0);
  });
});
