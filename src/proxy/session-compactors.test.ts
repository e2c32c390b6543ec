import { describe, expect, it, vi } from 'vitest';
import { createMemoryArchiveStore } from '../core/archive/memory-archive-store.js';
import type { SummaryModel, SummaryRequest } from '../core/summary/summary-model.js';
import { DEFAULT_MAX_MEMORY_BYTES, MemoryBudget } from './memory-budget.js';
import { SessionCompactors } from './session-compactors.js';
import type { UpstreamClient } from './upstream/upstream-client.js';

const request: SummaryRequest = {
  messages: [{ role: 'user', content: 'Summarize: read a.ts, then b.ts.' }],
  maxOutputTokens: 200,
};
const context = {
  api: 'anthropic',
  url: new URL('http://upstream/v1/messages'),
  headers: {},
  body: {},
} as const;
const rejected = (layer: string, reason: string) => ({
  layer: 'none' as const,
  fallback: `compacted request rejected (${layer}): ${reason}`,
});

function compactorsWithModel() {
  const summarize = vi.fn(async () => ({ text: 'model summary' }));
  const model: SummaryModel = { specificationVersion: 'v1', provider: 'test', modelId: 'm', summarize };
  // The settings' model never calls the client: none is needed.
  const compactors = new SessionCompactors({
    summarizer: model,
    client: {} as UpstreamClient,
    recall: false,
    background: false,
    budget: new MemoryBudget(DEFAULT_MAX_MEMORY_BYTES),
  });
  const summaryOf = async (key: string, guard?: { clientProblem: () => string | undefined }) => {
    compactors.verify(key);
    const summarizer = compactors.get(key, undefined).summarizerFor({ ...context }, guard);
    return (await summarizer!.summarize(request)).text;
  };
  return { compactors, summarize, summaryOf };
}

describe('SessionCompactors: no paid summary that would be thrown away', () => {
  it('writes summaries extractively after two rejections in a row for the same reason, until one passes', async () => {
    const { compactors, summarize, summaryOf } = compactorsWithModel();
    compactors.noteOutcome('s', rejected('hard', 'messages[3].role: bad'));
    expect(await summaryOf('s')).toBe('model summary');
    compactors.noteOutcome('s', rejected('hard', 'messages[3].role: bad'));
    expect(await summaryOf('s')).not.toBe('model summary');
    // Another session is not affected; a request that needed no compaction changes nothing.
    expect(await summaryOf('other')).toBe('model summary');
    compactors.noteOutcome('s', { layer: 'none', fallback: undefined });
    expect(await summaryOf('s')).not.toBe('model summary');
    compactors.noteOutcome('s', { layer: 'hard', fallback: undefined });
    expect(await summaryOf('s')).toBe('model summary');
    expect(summarize).toHaveBeenCalledTimes(3);
  });

  it.each([
    ['two different reasons', [rejected('hard', 'a: x'), rejected('hard', 'b: y')]],
    [
      'a failure, not a rejection',
      [rejected('hard', 'a: x'), { layer: 'none' as const, fallback: 'compaction failed: boom' }],
    ],
  ])('keeps the model after %s', async (_name, outcomes) => {
    const { compactors, summaryOf } = compactorsWithModel();
    for (const outcome of outcomes) compactors.noteOutcome('s', outcome);
    expect(await summaryOf('s')).toBe('model summary');
  });

  it('asks the guard only when a summary is written, and writes it extractively when the client request has a problem', async () => {
    const { summarize, summaryOf } = compactorsWithModel();
    const clientProblem = vi.fn(() => 'messages[1].role: role must be "user" or "assistant", got "system"');
    expect(await summaryOf('s', { clientProblem })).not.toBe('model summary');
    expect(clientProblem).toHaveBeenCalledTimes(1);
    expect(await summaryOf('s', { clientProblem: () => undefined })).toBe('model summary');
    expect(summarize).toHaveBeenCalledTimes(1);
  });
});

describe('SessionCompactors: the counted texts kept within their share of --max-memory', () => {
  it('counts a text again once the cache would pass countCacheChars, and keeps none longer', () => {
    const seen: string[] = [];
    const counter = {
      specificationVersion: 'v1' as const,
      name: 'chars',
      countText: (text: string) => {
        seen.push(text);
        return text.length;
      },
    };
    const compactors = new SessionCompactors({
      summarizer: 'extractive',
      client: {} as UpstreamClient,
      recall: false,
      background: false,
      budget: new MemoryBudget(DEFAULT_MAX_MEMORY_BYTES),
      counter,
      countCacheChars: 2_000,
    });
    const body = (text: string) => ({ messages: [{ role: 'user', content: text }] });
    const [a, b] = ['a'.repeat(1_200), 'b'.repeat(1_200)];
    // Each body is parsed anew in the proxy: new messages, the same text.
    compactors.tokensOf('anthropic', body(a));
    compactors.tokensOf('anthropic', body(a));
    expect(seen.filter((text) => text === a)).toHaveLength(1);
    // b would take the cache past 2,000 characters: it is emptied, so a is counted again.
    compactors.tokensOf('anthropic', body(b));
    compactors.tokensOf('anthropic', body(a));
    expect(seen.filter((text) => text === a)).toHaveLength(2);
    const long = 'c'.repeat(3_000);
    compactors.tokensOf('anthropic', body(long));
    compactors.tokensOf('anthropic', body(long));
    expect(seen.filter((text) => text === long)).toHaveLength(2);
  });
});

describe('SessionCompactors.inherit', () => {
  it('copies into a branch the archived items of the history it went on from', async () => {
    const archive = createMemoryArchiveStore();
    const compactors = new SessionCompactors({
      summarizer: 'extractive',
      client: {} as UpstreamClient,
      recall: true,
      background: false,
      archive,
      budget: new MemoryBudget(DEFAULT_MAX_MEMORY_BYTES),
    });
    const parent = compactors.get('s', 'parent-lineage').compactor;
    const item = (id: string) => ({
      sessionId: parent.sessionId,
      id,
      kind: 'assistant-text' as const,
      block: { type: 'text' as const, text: `original of ${id}` },
      createdAt: 0,
    });
    await archive.put([item('r1'), item('r2'), item('r3'), { ...item('r4'), sessionId: 'another' }]);
    const branch = compactors.get('s:branch:b', 'branch-lineage');
    expect(await compactors.inherit(branch, { key: 's', lineage: 'parent-lineage' })).toBe(true);
    const inherited = await archive.list(branch.compactor.sessionId);
    expect(inherited.map((kept) => [kept.id, JSON.stringify(kept.block)])).toEqual([
      ['r1', JSON.stringify(item('r1').block)],
      ['r2', JSON.stringify(item('r2').block)],
      ['r3', JSON.stringify(item('r3').block)],
    ]);
  });
});
