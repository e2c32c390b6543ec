/**
 * The compaction proxy: agent-compact for any agent through its base URL (Claude Code, Codex, …).
 * `startProxy` runs it in-process; `agent-compact proxy` runs it from the command line.
 *
 * @module @agent-compact/proxy
 */

export type { ExchangeObservation, MonitoredSession } from './dashboard/monitor.js';
export type { ProxyOptions, RunningProxy } from './proxy-options.js';
export { STATS_PATH, startProxy } from './proxy-server.js';
export type { CacheTokens, FallbackReason, ProxyRequestRecord, ProxyStats } from './proxy-stats.js';
export type { ProxyTracing } from './proxy-tracing.js';
export { claudeCodeSessionId, SESSION_HEADER } from './session-identity.js';
export {
  createMemoryProxySessionStore,
  type MemoryProxySessionStoreOptions,
  type ProxySessionState,
  type ProxySessionStore,
} from './session-store.js';
