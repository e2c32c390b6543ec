/**
 * The proxy's tracing hook, kept free of any tracing library: `@agent-compact/proxy/otel` implements it
 * with OpenTelemetry (`createOtelProxyTracing`), `--otel` turns that on from the command line.
 */
import type { CompactionEvent } from 'agent-compact';
import type { ExchangeObservation } from './dashboard/monitor.js';

/** Told of each session's compactor events and of every finished exchange, by short session id. */
export interface ProxyTracing {
  event(sessionId: string, event: CompactionEvent): void;
  observe(observation: ExchangeObservation): void;
}
