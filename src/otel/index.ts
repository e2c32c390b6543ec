/**
 * OpenTelemetry for agent-compact (optional peer `@opentelemetry/api`): a `compact` span per
 * compaction with the summarizer call as a child `chat` span, following the GenAI semantic
 * conventions, and for the proxy a span per forwarded request carrying
 * `gen_ai.conversation.compacted`. Spans go to the registered tracer provider; none registered,
 * they cost next to nothing.
 *
 * @module @agent-compact/proxy/otel
 */
import {
  type Attributes,
  type Context,
  context,
  type Span,
  SpanKind,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import type { CompactionEvent, CompactionEventHandler } from 'agent-compact';
import type { ExchangeObservation } from '../proxy/dashboard/monitor.js';
import type { ProxyTracing } from '../proxy/proxy-tracing.js';

/** The tracer's name and version. */
const TRACER_NAME = 'agent-compact';
const TRACER_VERSION = '0.1.0';

/** Options of the OpenTelemetry handlers. */
export interface OtelOptions {
  /** @default the global provider's `agent-compact` tracer */
  tracer?: Tracer;
}

/** True when an SDK registered a tracer provider (without one the API hands out no-op spans). */
export function isTracerProviderRegistered(): boolean {
  const provider = trace.getTracerProvider() as { getDelegate?: () => { constructor: { name: string } } };
  const delegate = provider.getDelegate?.() ?? provider;
  return !/^Noop/.test((delegate as { constructor: { name: string } }).constructor.name);
}

/** Spans of one conversation's compactions, opened and closed by its events. */
class CompactionSpans {
  private open: Span | undefined;
  private started = 0;

  constructor(
    private readonly tracer: Tracer,
    private readonly conversationId: string,
    private readonly parent: () => Context,
  ) {}

  handle(event: CompactionEvent): void {
    switch (event.type) {
      case 'compaction-start':
        this.open?.end();
        this.started = Date.now();
        this.open = this.tracer.startSpan(
          `compact ${event.layer}`,
          {
            kind: SpanKind.INTERNAL,
            attributes: {
              'gen_ai.operation.name': 'compact',
              'gen_ai.conversation.id': this.conversationId,
              'agent_compact.layer': event.layer,
              'agent_compact.tokens_before': event.tokensBefore,
            },
          },
          this.parent(),
        );
        return;
      case 'summary-usage':
        this.summaryCall(event.modelId, event.usage);
        return;
      case 'compaction-end':
        this.open?.setAttributes({
          'agent_compact.tokens_after': event.tokensAfter,
          'agent_compact.archived': event.archived,
        });
        this.open?.end();
        this.open = undefined;
        return;
      case 'summary-error':
      case 'fallback-used':
      case 'circuit-breaker-open':
        this.open?.addEvent(event.type, eventAttributes(event));
        return;
      default: {
        const unreachable: never = event;
        throw new Error(`unknown compaction event ${JSON.stringify(unreachable)}`);
      }
    }
  }

  /** The summarizer's call as a `chat` child of the open compaction (from its start to now). */
  private summaryCall(modelId: string, usage: { inputTokens?: number; outputTokens?: number }): void {
    const parent = this.open ? trace.setSpan(context.active(), this.open) : this.parent();
    const span = this.tracer.startSpan(
      `chat ${modelId}`,
      {
        kind: SpanKind.CLIENT,
        startTime: this.started || Date.now(),
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.request.model': modelId,
          'gen_ai.conversation.id': this.conversationId,
          ...(usage.inputTokens === undefined ? {} : { 'gen_ai.usage.input_tokens': usage.inputTokens }),
          ...(usage.outputTokens === undefined ? {} : { 'gen_ai.usage.output_tokens': usage.outputTokens }),
        },
      },
      parent,
    );
    span.end();
  }
}

function eventAttributes(event: CompactionEvent): Attributes {
  if (event.type === 'fallback-used') return { reason: event.reason };
  if (event.type === 'summary-error') return { attempt: event.attempt };
  return {};
}

/**
 * A compactor `onEvent` handler that traces the library's compactions of one conversation.
 *
 * @example
 * const compactor = createCompactor({ onEvent: createOtelEventHandler({ conversationId: 'chat-42' }) });
 */
export function createOtelEventHandler({
  tracer = trace.getTracer(TRACER_NAME, TRACER_VERSION),
  conversationId,
}: OtelOptions & { conversationId: string }): CompactionEventHandler {
  const spans = new CompactionSpans(tracer, conversationId, () => context.active());
  return (event) => spans.handle(event);
}

/**
 * The proxy's tracing: a span per compacted-API request (`gen_ai.conversation.compacted`), the
 * compactions inside it as children. Pass it as `startProxy({ tracing })`; `--otel` does.
 */
export function createOtelProxyTracing({
  tracer = trace.getTracer(TRACER_NAME, TRACER_VERSION),
}: OtelOptions = {}): ProxyTracing {
  const requests = new Map<string, { span: Span; spans: CompactionSpans }>();
  const requestOf = (sessionId: string) => {
    let open = requests.get(sessionId);
    if (!open) {
      const span = tracer.startSpan('agent-compact request', {
        kind: SpanKind.SERVER,
        attributes: { 'gen_ai.conversation.id': sessionId },
      });
      const parent = trace.setSpan(context.active(), span);
      open = { span, spans: new CompactionSpans(tracer, sessionId, () => parent) };
      requests.set(sessionId, open);
    }
    return open;
  };
  return {
    event: (sessionId, event) => requestOf(sessionId).spans.handle(event),
    observe: ({ record, model }: ExchangeObservation) => {
      const { span } = requestOf(record.session);
      requests.delete(record.session);
      span.updateName(`${record.api} ${model ?? ''}`.trim());
      span.setAttributes({
        'gen_ai.conversation.compacted': record.tokensOut < record.tokensIn && !record.fallback,
        'agent_compact.layer': record.layer,
        'agent_compact.tokens_before': record.tokensIn,
        'agent_compact.tokens_after': record.tokensOut,
        'http.response.status_code': record.status,
        ...(model ? { 'gen_ai.request.model': model } : {}),
      });
      span.end();
    },
  };
}
