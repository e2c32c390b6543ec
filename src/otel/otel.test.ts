import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { createCompactor } from '../core/compactor.js';
import type { SummaryModel } from '../core/summary/summary-model.js';
import { anthropicLoop, toolCallingScript } from '../proxy/agent-loops.test-utils.js';
import { useProxyHarness } from '../proxy/proxy-harness.test-utils.js';
import { createOtelEventHandler, createOtelProxyTracing, isTracerProviderRegistered } from './index.js';

const startProxyOver = useProxyHarness();

function memoryTracer() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, tracer: provider.getTracer('test') };
}

describe('@agent-compact/proxy/otel', () => {
  it('is off by itself: no tracer provider is registered in tests', () => {
    expect(isTracerProviderRegistered()).toBe(false);
  });

  it('proxy: a span per request with gen_ai.conversation.compacted, compact spans as children with a chat child', async () => {
    const { exporter, tracer } = memoryTracer();
    const { proxy, records } = await startProxyOver(toolCallingScript, {
      thresholds: { mid: 1500, hard: 2500 },
      summarizer: 'same',
      tracing: createOtelProxyTracing({ tracer }),
    });
    await anthropicLoop(proxy.url, { turns: 12 });
    const spans = exporter.getFinishedSpans();
    const requests = spans.filter((span) => span.attributes['gen_ai.conversation.compacted'] !== undefined);
    expect(requests).toHaveLength(records.length);
    expect(requests.map((span) => span.attributes['gen_ai.conversation.compacted'])).toEqual(
      records.map((record) => record.tokensOut < record.tokensIn),
    );
    expect(requests.some((span) => span.attributes['gen_ai.conversation.compacted'] === true)).toBe(true);
    const compactions = spans.filter((span) => span.attributes['gen_ai.operation.name'] === 'compact');
    const hard = compactions.find((span) => span.attributes['agent_compact.layer'] === 'hard');
    expect(hard).toBeDefined();
    expect(hard!.attributes['gen_ai.conversation.id']).toBe(records[0]!.session);
    expect(Number(hard!.attributes['agent_compact.tokens_after'])).toBeLessThan(
      Number(hard!.attributes['agent_compact.tokens_before']),
    );
    const parentIds = new Set(requests.map((span) => span.spanContext().spanId));
    expect(parentIds.has(hard!.parentSpanContext?.spanId ?? '')).toBe(true);
    const chat = spans.find(
      (span) =>
        span.attributes['gen_ai.operation.name'] === 'chat' &&
        span.parentSpanContext?.spanId === hard!.spanContext().spanId,
    );
    expect(chat?.attributes['gen_ai.request.model']).toBeDefined();
  });

  it("library: the compactor's events become compact spans with the summarizer's chat span", async () => {
    const { exporter, tracer } = memoryTracer();
    const summarizer: SummaryModel = {
      specificationVersion: 'v1',
      provider: 'test',
      modelId: 'summary-test',
      async summarize() {
        return { text: '## Task\nsummary', usage: { inputTokens: 100, outputTokens: 20 } };
      },
    };
    const compactor = createCompactor({
      thresholds: { mid: 400, hard: 800 },
      summarizer,
      onEvent: createOtelEventHandler({ tracer, conversationId: 'chat-42' }),
    });
    const messages = Array.from({ length: 20 }, (_, index) => ({
      role: index % 2 === 0 ? ('user' as const) : ('assistant' as const),
      content: `turn ${index} ${'words and more words '.repeat(30)}`,
    }));
    await compactor.maybeCompact(messages);
    const spans = exporter.getFinishedSpans();
    const compact = spans.filter((span) => span.attributes['gen_ai.operation.name'] === 'compact');
    expect(compact.length).toBeGreaterThan(0);
    expect(compact.every((span) => span.attributes['gen_ai.conversation.id'] === 'chat-42')).toBe(true);
  });
});
