/** A scripted model server with the proxy in front of it, opened per test and closed after it. */
import { afterEach } from 'vitest';
import {
  type ScriptedModelServer,
  type ScriptedModelServerOptions,
  startScriptedModelServer,
} from '../testing/index.js';
import type { ProxyOptions, RunningProxy } from './proxy-options.js';
import { startProxy } from './proxy-server.js';
import type { ProxyRequestRecord } from './proxy-stats.js';

/** Headers every provider's route on the scripted server takes: JSON, a key in each provider's header. */
export const ANY_PROVIDER_HEADERS = {
  'content-type': 'application/json',
  'x-api-key': 'k',
  'anthropic-version': '2023-06-01',
  authorization: 'Bearer k',
  'x-goog-api-key': 'k',
};

/** What one `start` opened: the server, the proxy in front of it, and the proxy's request records. */
export interface ProxyHarness {
  server: ScriptedModelServer;
  proxy: RunningProxy;
  records: ProxyRequestRecord[];
}

/** Starts a scripted server playing `script` and a proxy in front of it with `options`. */
export type StartProxyHarness = (
  script: ScriptedModelServerOptions['script'],
  options?: Partial<ProxyOptions>,
) => Promise<ProxyHarness>;

/**
 * Registers an `afterEach` that closes what the returned `start` opened, so a test file needs no
 * module-level server and proxy of its own. Call it once at the top of a test file.
 */
export function useProxyHarness(): StartProxyHarness {
  let open: { server: ScriptedModelServer; proxy?: RunningProxy } | undefined;
  afterEach(async () => {
    await open?.proxy?.close();
    await open?.server.close();
    open = undefined;
  });
  return async (script, options = {}) => {
    const server = await startScriptedModelServer({ script });
    open = { server };
    const records: ProxyRequestRecord[] = [];
    const proxy = await startProxy({
      upstream: server.url,
      onRequest: (record) => records.push(record),
      ...options,
    });
    open.proxy = proxy;
    return { server, proxy, records };
  };
}
