import { describe, expect, it } from 'vitest';
import { createMemoryArchiveStore } from './archive/memory-archive-store.js';
import { rebuildConversation } from './archive/rebuild.js';
import { createCompactor } from './compactor.js';
import { validateMessages } from './conversation/validate.js';
import type { Message } from './model/messages.js';
import { extractiveSummary } from './summary/extractive-summary.js';
import type { SummaryModel, SummaryRequest } from './summary/summary-model.js';

/** A history of `count` tool turns of about 250 tokens each, ending with tool results. */
function history(count: number): Message[] {
  const messages: Message[] = [{ role: 'user', content: 'Fix the failing tests of the shop service.' }];
  for (let index = 0; index < count; index++) {
    messages.push(
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: `t${index}`, name: 'bash', input: { command: `pytest -k case${index}` } },
        ],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: `t${index}`,
            content: `case ${index} output line\n`.repeat(40),
          },
        ],
      },
    );
  }
  return messages;
}

/** A summarizer whose answers wait until `release()` is called. */
function slowSummarizer() {
  const waiting: Array<() => void> = [];
  const requests: SummaryRequest[] = [];
  const model: SummaryModel = {
    specificationVersion: 'v1',
    provider: 'test',
    modelId: 'slow',
    async summarize(request) {
      requests.push(request);
      await new Promise<void>((resolve) => waiting.push(resolve));
      return { text: extractiveSummary(request.messages.slice(0, -1), request.maxOutputTokens) };
    },
  };
  return {
    model,
    requests,
    release: () => {
      for (const resolve of waiting.splice(0)) resolve();
    },
  };
}

const settled = (promise: Promise<unknown>) =>
  Promise.race([promise.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 20))]);

describe('hard: { background: true }', () => {
  it('starts the summary past the background threshold, keeps working, and swaps it in when ready', async () => {
    const archive = createMemoryArchiveStore();
    const slow = slowSummarizer();
    const compactor = createCompactor({
      thresholds: { mid: 4000, hard: 8000 },
      summarizer: slow.model,
      archive,
      // Micro and mid stay out of the way (their batches never fill), so the summary must do it.
      micro: { cacheAware: true, clearAtLeast: 100_000 },
      mid: { keepToolResults: 1000 },
      hard: { background: true, backgroundThreshold: 6000 },
    });
    const full = history(40);
    // Grow turn by turn; until the summary starts nothing changes, so the history is the original.
    let snapshotLength = 1;
    while (slow.requests.length === 0 && snapshotLength < full.length) {
      snapshotLength += 2;
      const result = await compactor.maybeCompact(full.slice(0, snapshotLength));
      expect(result.layer).toBe('none');
    }
    expect(snapshotLength).toBeLessThan(full.length - 4);
    const snapshot = full.slice(0, snapshotLength);
    // Two more turns while the summary is on its way: still unchanged, no second summary.
    const later = full.slice(0, snapshotLength + 4);
    const held = await compactor.maybeCompact(later);
    expect(held.layer).toBe('none');
    expect(slow.requests).toHaveLength(1);
    slow.release();
    await new Promise((resolve) => setTimeout(resolve, 0));
    const swapped = await compactor.maybeCompact(later);
    expect(swapped.layer).toBe('hard');
    // The messages after the snapshot follow the summary verbatim.
    expect(swapped.messages.slice(-4)).toEqual(later.slice(snapshotLength));
    expect(swapped.messages.length).toBeLessThan(snapshot.length);
    expect(validateMessages(swapped.messages)).toEqual([]);
    expect(rebuildConversation(swapped.messages, await archive.list(compactor.sessionId))).toEqual(later);
  });

  it('keeps working past the hard threshold; a request over the background limit waits for the summary', async () => {
    const slow = slowSummarizer();
    const compactor = createCompactor({
      thresholds: { mid: 4000, hard: 8000 },
      summarizer: slow.model,
      micro: { clearAtLeast: 100_000 },
      mid: { keepToolResults: 1000 },
      hard: { background: true, backgroundThreshold: 6000, backgroundLimit: 12_000 },
    });
    const full = history(80);
    let length = 3;
    while (slow.requests.length === 0 && length < full.length) {
      await compactor.maybeCompact(full.slice(0, length));
      length += 2;
    }
    expect(slow.requests).toHaveLength(1);
    // About 10,000 tokens: over hard, under the limit — the agent goes on.
    const overHardUnderLimit = await compactor.maybeCompact(full.slice(0, 81));
    expect(overHardUnderLimit.layer).toBe('none');
    expect(overHardUnderLimit.tokensBefore).toBeGreaterThan(8000);
    expect(overHardUnderLimit.tokensBefore).toBeLessThan(12_000);
    const overLimit = compactor.maybeCompact(full.slice(0, 161));
    expect(await settled(overLimit)).toBe(false);
    slow.release();
    const result = await overLimit;
    expect(result.layer).toBe('hard');
    expect(validateMessages(result.messages)).toEqual([]);
  });
});

describe('cold-cache compaction', () => {
  it('when the cache has expired, masks what micro would mask next without waiting for a batch', async () => {
    const run = async (secondsLater: number) => {
      const compactor = createCompactor({
        thresholds: { mid: 40_000, hard: 80_000 },
        micro: { keepTurns: 2, clearAtLeast: 50_000, startAt: 0 },
      });
      const start = Date.parse('2026-01-06T09:00:00Z');
      await compactor.maybeCompact(history(6), { now: start });
      return compactor.maybeCompact(history(7), { now: start + secondsLater * 1000 });
    };
    const warm = await run(60);
    expect(warm.layer).toBe('none');
    const cold = await run(301);
    expect(cold.layer).toBe('micro');
    expect(cold.tokensAfter).toBeLessThan(cold.tokensBefore);
  });

  it('keeps the summary on its way when each call brings equal messages as new objects (parsed JSON)', async () => {
    const slow = slowSummarizer();
    const compactor = createCompactor({
      thresholds: { mid: 4000, hard: 8000 },
      summarizer: slow.model,
      micro: { clearAtLeast: 100_000 },
      mid: { keepToolResults: 1000 },
      hard: { background: true, backgroundThreshold: 6000 },
    });
    const full = history(40);
    const parsed = (length: number) => JSON.parse(JSON.stringify(full.slice(0, length))) as Message[];
    let length = 3;
    while (slow.requests.length === 0 && length < full.length - 4) {
      await compactor.maybeCompact(parsed(length));
      length += 2;
    }
    expect(slow.requests).toHaveLength(1);
    expect((await compactor.maybeCompact(parsed(length + 2))).layer).toBe('none');
    // Still the one summary: the snapshot was recognised, not dropped and started again.
    expect(slow.requests).toHaveLength(1);
    slow.release();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect((await compactor.maybeCompact(parsed(length + 2))).layer).toBe('hard');
  });
});
