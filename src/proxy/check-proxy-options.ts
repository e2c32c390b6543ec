// `startProxy`'s options checked before any is used, with the compactor's own rules for the options
// it passes on: a port given as a string listened on a Unix socket of that name, `allowHosts: 'a.b'`
// was a TypeError, and a bad threshold failed every compaction one request at a time.

import { CompactError } from 'agent-compact';
import { checkOptions, type OptionRules, sharedCompactorRules } from 'agent-compact/internal';

const proxyRules: OptionRules = {
  ...sharedCompactorRules,
  upstream: 'string',
  anthropicUpstream: 'string',
  openaiUpstream: 'string',
  geminiUpstream: 'string',
  host: 'name',
  allowHosts: 'strings',
  port: 'count',
  summarizer: { methods: ['summarize'], or: ['same', 'extractive'] },
  background: 'boolean',
  store: { methods: ['load', 'save', 'delete', 'size'] },
  log: 'function',
  onRequest: 'function',
  token: 'string',
  notify: 'boolean',
  dashboard: 'boolean',
  tracing: { methods: ['event', 'observe'] },
  upstreamTimeoutMs: 'positive',
  maxBodyBytes: 'positive',
  maxMemoryBytes: 'positive',
};

/** Throws `INVALID_OPTIONS` with the option's path at the first option of the wrong shape. */
export function checkProxyOptions(options: unknown): void {
  checkOptions(options, proxyRules);
  const { port } = options as { port?: number };
  if (port !== undefined && !(Number.isInteger(port) && port <= 65_535))
    throw new CompactError(`must be a whole number from 0 to 65535, got ${port}`, {
      code: 'INVALID_OPTIONS',
      path: 'port',
    });
}
