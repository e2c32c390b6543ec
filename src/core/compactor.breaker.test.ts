// Issue 19: a circuit breaker that learns what the provider counts beyond the messages.
import { describe, expect, it } from 'vitest';
import { createMemorySessionStateStore } from './archive/memory-session-state-store.js';
import type { SessionStateStore } from './archive/session-state-store.js';
import { createCompactor } from './compactor.js';
import { agentSession, fakeFile, toolTurn } from './conversation/session-builder.test-utils.js';
import type { CompactionEvent } from './events.js';
import { CompactError } from './model/errors.js';
import type { Message, ProviderUsage } from './model/messages.js';
import { createExtractiveSummaryModel } from './summary/extractive-summary.js';
import type { SummaryModel } from './summary/summary-model.js';
import { createHeuristicCounter } from './tokens/heuristic-counter.js';
import { countMessageTokens } from './tokens/message-tokens.js';

const counter = createHeuristicCounter();
/** Tool definitions the provider counts and the caller never passes (an agent's built-in tools). */
const HIDDEN_TOOL_TOKENS = 25_000;

function countingSummarizer(): SummaryModel & { calls: number } {
  const extractive = createExtractiveSummaryModel();
  const model = {
    specificationVersion: 'v1' as const,
    provider: 'test',
    modelId: 'counting',
    calls: 0,
    async summarize(...args: Parameters<SummaryModel['summarize']>) {
      model.calls++;
      return extractive.summarize(...args);
    },
  };
  return model;
}

/**
 * Ten turns of an agent loop on a 32k window whose provider counts HIDDEN_TOOL_TOKENS more than
 * the messages it is sent; each turn adds a 30-line tool result. Returns each call's layer or error code.
 */
async function run({
  reserveOutputTokens,
  stateStore,
}: {
  reserveOutputTokens: number;
  stateStore?: SessionStateStore;
}) {
  const summarizer = countingSummarizer();
  const events: CompactionEvent[] = [];
  const compactor = createCompactor({
    contextWindow: 32_000,
    reserveOutputTokens,
    summarizer,
    sessionId: 'hidden-tools',
    ...(stateStore ? { stateStore } : {}),
    onEvent: (event) => events.push(event),
  });
  let messages: Message[] = agentSession(2, { lines: 30 });
  let usage: ProviderUsage | undefined;
  const outcomes: string[] = [];
  for (let turn = 3; turn < 13; turn++) {
    const outcome = await compactor.maybeCompact(messages, usage ? { usage } : {}).catch((error: unknown) => {
      if (CompactError.isInstance(error)) return error;
      throw error;
    });
    if (CompactError.isInstance(outcome)) {
      outcomes.push(outcome.code);
    } else {
      outcomes.push(outcome.layer);
      const local = outcome.messages.reduce((sum, message) => sum + countMessageTokens(message, counter), 0);
      usage = { input_tokens: HIDDEN_TOOL_TOKENS + local };
      messages = [...outcome.messages];
    }
    messages.push(...toolTurn(turn, { lines: 30 }));
  }
  return { summarizer, events, outcomes, thresholds: compactor.thresholds };
}

const breakerEvents = (events: readonly CompactionEvent[]) =>
  events.filter((event) => event.type === 'circuit-breaker-open');

describe('the circuit breaker learns the overhead the provider counts', () => {
  it('summarizes at most once in 10 turns when hidden tool definitions keep every request over mid', async () => {
    // Before: the overhead was forgotten after each hard compaction, and hard ran every other turn (5 of 10).
    const stateStore = createMemorySessionStateStore();
    const { summarizer, events, outcomes, thresholds } = await run({ reserveOutputTokens: 1000, stateStore });
    expect(summarizer.calls).toBeLessThanOrEqual(1);
    // The request fits the window: it goes out, condensed by mid, never refused.
    expect(outcomes).not.toContain('CONTEXT_OVERFLOW');
    const opened = breakerEvents(events);
    expect(opened.length).toBeGreaterThan(0);
    // The event says why, with the sizes: the floor a perfect summary would leave is over mid.
    for (const event of opened) {
      expect(event).toMatchObject({ reason: 'fixed-overhead', mid: thresholds.mid });
      const floor = event.reason === 'fixed-overhead' ? event.floorTokens : 0;
      expect(floor).toBeGreaterThan(thresholds.mid);
      expect(floor).toBeGreaterThanOrEqual(HIDDEN_TOOL_TOKENS);
    }
    // What was learned is in the saved state, for the next process.
    const stored = await stateStore.load('hidden-tools');
    expect(stored?.state.breaker.overheadTokens).toBeGreaterThanOrEqual(HIDDEN_TOOL_TOKENS - 500);
  });

  it('still throws CONTEXT_OVERFLOW when the request does not fit the window', async () => {
    // 32k less 8,192 reserved: the hidden tools alone are over what the window leaves.
    const { summarizer, outcomes } = await run({ reserveOutputTokens: 8192 });
    expect(outcomes.filter((outcome) => outcome === 'CONTEXT_OVERFLOW').length).toBeGreaterThan(0);
    expect(summarizer.calls).toBeLessThanOrEqual(1);
  });
});

describe('a latest request over the hard threshold (a long paste the agent works on)', () => {
  /**
   * A session whose user pastes a log longer than the hard threshold, then the agent works on it
   * for `turns` tool calls: the paste stays the latest human request all that time. Returns each
   * call's tokens before and after, or its error code.
   */
  async function pasteRun(options: { contextWindow?: number; reserveOutputTokens?: number }) {
    const compactor = createCompactor({
      thresholds: { mid: 3000, hard: 6000 },
      micro: { cacheAware: false },
      summarizer: createExtractiveSummaryModel(),
      ...options,
    });
    const paste = `Here is the failing log:\n${fakeFile('ci-log', 700)}`;
    let messages: Message[] = [...agentSession(6, { lines: 40 }), { role: 'user', content: paste }];
    const outcomes: Array<{ before: number; after: number } | string> = [];
    for (let turn = 7; turn < 19; turn++) {
      messages.push(...toolTurn(turn, { lines: 40 }));
      const outcome = await compactor.maybeCompact(messages).catch((error: unknown) => {
        if (CompactError.isInstance(error)) return error;
        throw error;
      });
      if (CompactError.isInstance(outcome)) {
        outcomes.push(outcome.code);
        continue;
      }
      outcomes.push({ before: outcome.tokensBefore, after: outcome.tokensAfter });
      messages = [...outcome.messages];
    }
    return { outcomes, pasteTokens: countMessageTokens({ role: 'user', content: paste }, counter) };
  }

  it('condenses the rest of the request instead of refusing it when no window is set', async () => {
    // Before: CONTEXT_OVERFLOW on every call, and the simulated agent sent the whole history, uncondensed,
    // until the user typed again (ed-51f6581660-0: 25 such requests, growing from 30k to 51k).
    const { outcomes, pasteTokens } = await pasteRun({});
    expect(pasteTokens).toBeGreaterThan(6000);
    expect(outcomes).not.toContain('CONTEXT_OVERFLOW');
    const sizes = outcomes.filter((outcome) => typeof outcome !== 'string');
    expect(sizes).toHaveLength(12);
    // The history beside the paste is condensed: the last request is far smaller than all it held.
    const last = sizes[sizes.length - 1]!;
    expect(sizes.some(({ before, after }) => after < before)).toBe(true);
    expect(last.after - pasteTokens).toBeLessThan(last.before - pasteTokens);
  });

  it('condenses it too when the paste fits the window, and refuses when it does not', async () => {
    const fits = await pasteRun({ contextWindow: 200_000 });
    expect(fits.outcomes).not.toContain('CONTEXT_OVERFLOW');
    const over = await pasteRun({ contextWindow: 9000, reserveOutputTokens: 2000 });
    expect(over.outcomes.every((outcome) => outcome === 'CONTEXT_OVERFLOW')).toBe(true);
  });
});
