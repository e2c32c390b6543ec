/**
 * The `agent-compact` strategy: this library's compactor, replayed on the replay's clock.
 *
 * Summary calls take time the offline summarizer does not: the summarizer is wrapped so each answer
 * arrives only when the replay's clock reaches the call's start plus its duration under the latency
 * model. A foreground hard compaction keeps the step waiting, and the clock moves on to the answer —
 * that wait is the step's blocked time. With `hard: { background: true }` the summary starts and
 * the step returns at once; the compactor swaps it in on the first request after the answer arrived,
 * and only a request over the hard threshold before then waits for the rest.
 *
 * The offline stand-in summarizer answers for the agent's own model, as the proxy's default (`same`)
 * summarizer does: its request carries the history as the agent sent it, thinking blocks included,
 * as the peers' stand-in calls do.
 *
 * Every request is passed its time (`now`), so the compactor sees an expired prompt cache. A
 * `CONTEXT_OVERFLOW` (the compactor refusing to summarize twice in a row) sends the history as it
 * is, as an agent that catches the error would, and is counted.
 */

import type { CompactorOptions, Message, SummaryModel } from 'agent-compact';
import { CompactError, createCompactor } from 'agent-compact';
import { SAME_MODEL_PROVIDER } from 'agent-compact/internal';
import { createRequestTokenCounter, type RequestTokenCounter } from '../prompt-cache.js';
import type { ReplayStrategy, ReplayStrategyOptions, StrategyStep } from '../replay-strategy.js';
import { callSeconds, defaultLatencyModel, type LatencyModel } from '../timing.js';

/** Microtask turns to wait for a compactor that is not waiting on a summary before giving up on the clock. */
const IDLE_FLUSHES = 20;

/** A summary model whose answers arrive on a virtual clock. */
interface VirtualTimeSummaryModel extends SummaryModel {
  /** Moves the clock to `seconds` (never back) and releases the answers due by then. */
  advanceTo(seconds: number): void;
  /** The clock, seconds. */
  readonly now: number;
  /** When the next answer is due, or undefined when none is on its way. */
  nextDue(): number | undefined;
}

function createVirtualTimeSummaryModel(
  inner: SummaryModel,
  { latency, tokens }: { latency: LatencyModel; tokens: RequestTokenCounter },
): VirtualTimeSummaryModel {
  let now = 0;
  const due: Array<{ at: number; release: () => void }> = [];
  return {
    specificationVersion: 'v1',
    // The offline stand-in answers for the agent's own model (its calls are priced as that model's),
    // as the proxy's default summarizer is: it gets the history as the agent sent it.
    provider: inner.provider === 'extractive' ? SAME_MODEL_PROVIDER : inner.provider,
    modelId: inner.modelId,
    async summarize(request, options) {
      const startedAt = now;
      const result = await inner.summarize(request, options);
      const outputTokens = result.usage?.outputTokens ?? tokens.counter.countText(result.text);
      const inputTokens = tokens.request(request);
      const seconds = callSeconds({ inputTokens, outputTokens }, latency);
      await new Promise<void>((release) => due.push({ at: startedAt + seconds, release }));
      return result;
    },
    advanceTo(seconds) {
      now = Math.max(now, seconds);
      for (let index = due.length - 1; index >= 0; index--) {
        if (due[index]!.at <= now) due.splice(index, 1)[0]!.release();
      }
    },
    get now() {
      return now;
    },
    nextDue() {
      return due.length === 0 ? undefined : Math.min(...due.map((entry) => entry.at));
    },
  };
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

/** agent-compact as a replay strategy (see the module comment). */
export function createAgentCompactStrategy(options: ReplayStrategyOptions): ReplayStrategy {
  const summarizer = createVirtualTimeSummaryModel(options.summarizer, {
    latency: options.latency ?? defaultLatencyModel,
    tokens: options.tokens ?? createRequestTokenCounter(options.counter),
  });
  const compactor = createCompactor(compactorOptionsOf(options, summarizer));

  return {
    name: 'agent-compact',
    thresholds: compactor.thresholds,
    async step(messages, { system, usage, time }) {
      summarizer.advanceTo(time);
      await flush();
      try {
        const { step, blocked } = await onClock(summarizer, async () => {
          const result = await compactor.maybeCompact(messages, {
            ...(system === undefined ? {} : { system }),
            ...(usage === undefined ? {} : { usage }),
            now: time * 1000,
          });
          return { messages: [...result.messages], layer: result.layer };
        });
        return { ...step, blockedSeconds: blocked };
      } catch (error) {
        if (!CompactError.isInstance(error) || error.code !== 'CONTEXT_OVERFLOW') throw error;
        return { messages: [...messages] as Message[], layer: 'none', blockedSeconds: 0, overflow: true };
      }
    },
  };
}

/**
 * The compactor's options: the replayed settings (`--compactor`), the replay's thresholds and window
 * over them, and the replay's cache lifetime where they name none.
 */
function compactorOptionsOf(options: ReplayStrategyOptions, summarizer: SummaryModel): CompactorOptions {
  const compactorOptions: CompactorOptions = {
    ...options.agentCompact,
    counter: options.counter,
    summarizer,
  };
  // The replay's cache lifetime, unless the settings replayed name their own.
  if (compactorOptions.cacheTtlSeconds === undefined && options.cacheTtlSeconds !== undefined) {
    compactorOptions.cacheTtlSeconds = options.cacheTtlSeconds;
  }
  if (options.mid !== undefined || options.hard !== undefined) {
    compactorOptions.thresholds = {
      ...(options.mid === undefined ? {} : { mid: options.mid }),
      ...(options.hard === undefined ? {} : { hard: options.hard }),
    };
  }
  if (options.window !== undefined) compactorOptions.contextWindow = options.window;
  return compactorOptions;
}

/**
 * Runs one call on the virtual clock: while the call waits, moves the clock to the next summary
 * due and releases it. Returns the call's outcome and the seconds it waited for summaries.
 */
async function onClock(
  summarizer: VirtualTimeSummaryModel,
  run: () => Promise<StrategyStep>,
): Promise<{ step: StrategyStep; blocked: number }> {
  let outcome: { step: StrategyStep } | { error: unknown } | undefined;
  const work = run().then(
    (step) => {
      outcome = { step };
    },
    (error: unknown) => {
      outcome = { error };
    },
  );
  let blocked = 0;
  let idle = 0;
  await flush();
  while (!outcome && idle < IDLE_FLUSHES) {
    const next = summarizer.nextDue();
    if (next === undefined) idle++;
    else {
      blocked += Math.max(0, next - summarizer.now);
      summarizer.advanceTo(next);
    }
    await flush();
  }
  await work;
  if (!outcome) throw new Error('agent-compact replay: the compactor never answered');
  if ('error' in outcome) throw outcome.error;
  return { step: outcome.step, blocked };
}
