import { describe, expect, it, vi } from 'vitest';
import type { ArchiveItem } from './archive/archive-store.js';
import { createMemoryArchiveStore } from './archive/memory-archive-store.js';
import { createMemorySessionStateStore } from './archive/memory-session-state-store.js';
import { createCompactor, maybeCompact } from './compactor.js';
import { agentSession } from './conversation/session-builder.test-utils.js';
import { validateMessages } from './conversation/validate.js';
import type { CompactionEvent } from './events.js';
import { smallSession } from './layers/planner.test-utils.js';
import { CompactError } from './model/errors.js';
import type { Message, ProviderUsage } from './model/messages.js';
import type { SummaryModel } from './summary/summary-model.js';
import { countingModel } from './summary/summary-models.test-utils.js';
import { ARCHIVE_TIMEOUT_MS } from './turn-report.js';

// A compactor against a summarizer that never answers, a caller that aborted before the call, and
// input no provider takes: each ends in a fallback or a typed error, never a hang or a TypeError.

describe('summarizer faults', () => {
  it('throws ABORTED at once for a signal that has already aborted, calling no model', async () => {
    const model = countingModel(() => ({ text: 'summary' }));
    const error = await maybeCompact(agentSession(30, { lines: 400 }), {
      thresholds: { mid: 10_000, hard: 20_000 },
      summarizer: model,
      force: 'hard',
      signal: AbortSignal.abort(),
    }).catch((caught: unknown) => caught);
    expect(CompactError.isInstance(error) && error.code).toBe('ABORTED');
    expect(model.calls).toBe(0);
  });

  it('falls back to the extractive summary, and says so, when the summarizer never answers', async () => {
    const events: CompactionEvent[] = [];
    const silent: SummaryModel = {
      specificationVersion: 'v1',
      provider: 'test',
      modelId: 'silent',
      // Ignores its signal too: only the deadline ends the wait.
      summarize: () => new Promise<never>(() => {}),
    };
    const result = await maybeCompact(agentSession(30, { lines: 400 }), {
      thresholds: { mid: 10_000, hard: 20_000 },
      summarizer: silent,
      hard: { timeoutMs: 20, maxAttempts: 2, retryDelayMs: 0 },
      onEvent: (event) => events.push(event),
    });
    expect(result.layer).toBe('hard');
    expect(events.filter((event) => event.type === 'summary-error')).toHaveLength(2);
    expect(events.find((event) => event.type === 'fallback-used')).toMatchObject({
      reason: expect.stringContaining('the model did not answer within 20 ms'),
    });
    expect(validateMessages(result.messages)).toEqual([]);
  });
});

describe('a summarizer that throws a value that cannot be read', () => {
  const boom = () => {
    throw new Error('boom');
  };
  const unreadable: [string, () => unknown][] = [
    ['a Proxy whose every read throws', () => new Proxy({}, { get: boom })],
    ['a Proxy whose prototype cannot be read', () => new Proxy({}, { getPrototypeOf: boom, get: boom })],
    [
      'an Error whose message getter throws',
      () => Object.defineProperty(new Error('x'), 'message', { get: boom }),
    ],
    ['an object with no prototype', () => Object.create(null)],
  ];
  const throwing = (thrown: () => unknown): SummaryModel => ({
    specificationVersion: 'v1',
    provider: 'test',
    modelId: 'throws',
    summarize: async () => {
      throw thrown();
    },
  });

  it.each(unreadable)('falls back to the extractive summary on %s, and says so', async (_, thrown) => {
    const events: CompactionEvent[] = [];
    const result = await maybeCompact(agentSession(30, { lines: 400 }), {
      thresholds: { mid: 10_000, hard: 20_000 },
      summarizer: throwing(thrown),
      force: 'hard',
      hard: { maxAttempts: 2, retryDelayMs: 0 },
      onEvent: (event) => events.push(event),
    });
    expect(result.layer).toBe('hard');
    expect(events.filter((event) => event.type === 'summary-error')).toHaveLength(2);
    expect(events.find((event) => event.type === 'fallback-used')).toEqual({
      type: 'fallback-used',
      reason: 'summary model test:throws failed after 2 attempt(s): it threw a value that could not be read',
    });
    expect(validateMessages(result.messages)).toEqual([]);
  });

  it('cuts older turns instead when it condenses for mid, and says so', async () => {
    const events: CompactionEvent[] = [];
    const compactor = createCompactor({
      thresholds: { mid: 10_000, hard: 20_000 },
      // Its turns' texts are longer than this, so mid asks the model to condense them.
      mid: { summarizer: throwing(unreadable[0]![1]), maxAssistantChars: 40 },
      onEvent: (event) => events.push(event),
    });
    const result = await compactor.maybeCompact(smallSession(30, 400), { force: 'mid' });
    expect(result.layer).toBe('mid');
    expect(events.find((event) => event.type === 'fallback-used')).toEqual({
      type: 'fallback-used',
      reason: "mid's condensing model test:throws failed: it threw a value that could not be read",
    });
  });

  it('describes a readable Error by its message and any other thrown value as text', async () => {
    const reasons: string[] = [];
    for (const thrown of [new Error('quota exceeded'), 'rate limited', 429]) {
      await maybeCompact(agentSession(30, { lines: 400 }), {
        thresholds: { mid: 10_000, hard: 20_000 },
        summarizer: throwing(() => thrown),
        force: 'hard',
        hard: { maxAttempts: 1 },
        onEvent: (event) => {
          if (event.type === 'fallback-used') reasons.push(event.reason.replace(/^.*attempt\(s\): /, ''));
        },
      });
    }
    expect(reasons).toEqual(['quota exceeded', 'rate limited', '429']);
  });
});

describe('a summarizer that answers with no summary', () => {
  it.each([
    ['null', null, 'the summary model returned no text'],
    ['undefined', undefined, 'the summary model returned no text'],
    ['a bare string', 'summary', 'the summary model returned no text'],
    ['a number for text', { text: 42 }, 'the summary model returned no text'],
    ['empty text', { text: ' \n' }, 'the summary model returned an empty summary'],
  ])('falls back to the extractive summary on %s, and says why', async (_, answer, reason) => {
    const events: CompactionEvent[] = [];
    const model = countingModel(() => answer as never);
    const result = await maybeCompact(agentSession(30, { lines: 400 }), {
      thresholds: { mid: 10_000, hard: 20_000 },
      summarizer: model,
      force: 'hard',
      hard: { maxAttempts: 2, retryDelayMs: 0 },
      onEvent: (event) => events.push(event),
    });
    expect(result.layer).toBe('hard');
    expect(model.calls).toBe(2);
    expect(events.find((event) => event.type === 'fallback-used')).toEqual({
      type: 'fallback-used',
      reason: `summary model ${model.provider}:${model.modelId} failed after 2 attempt(s): ${reason}`,
    });
    expect(validateMessages(result.messages)).toEqual([]);
  });
});

describe('a summarizer whose usage is nonsense', () => {
  const summarizeWithUsage = async (usage: unknown) => {
    const events: CompactionEvent[] = [];
    const model = countingModel(() => ({ text: '## Task\nFix the tests.', usage }) as never);
    await maybeCompact(agentSession(30, { lines: 400 }), {
      thresholds: { mid: 10_000, hard: 20_000 },
      summarizer: model,
      force: 'hard',
      onEvent: (event) => events.push(event),
    });
    return events.filter((event) => event.type === 'summary-usage').map((event) => event.usage);
  };

  it.each([
    ['negative', -5],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['a fraction', 12.5],
    ['a string', '12'],
    ['beyond a safe integer', 2 ** 53],
    ['null', null],
  ])('reports no count for one that is %s, and keeps the true ones', async (_, nonsense) => {
    const usage = await summarizeWithUsage({
      inputTokens: nonsense,
      outputTokens: 40,
      cacheReadTokens: nonsense,
      cacheWriteTokens: 0,
    });
    expect(usage).toEqual([{ outputTokens: 40, cacheWriteTokens: 0 }]);
  });

  it('reports no usage for one that is no object, and an empty one when no count is true', async () => {
    expect(await summarizeWithUsage('lots')).toEqual([]);
    expect(await summarizeWithUsage(undefined)).toEqual([]);
    expect(await summarizeWithUsage({ inputTokens: -1 })).toEqual([{}]);
  });
});

describe('input no provider takes', () => {
  const small = { thresholds: { mid: 2000, hard: 4000 } };

  it('names the block that lacks a field the API requires, instead of a TypeError', async () => {
    const messages: Message[] = agentSession(20);
    messages[2] = {
      role: 'assistant',
      content: [{ type: 'thinking', signature: 's' } as never, ...(messages[2]!.content as never[])],
    };
    const error = await maybeCompact(messages, small).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'INVALID_TRANSCRIPT', path: 'messages[2].content[0].thinking' });
  });

  it('names a value JSON cannot hold (a cycle, a bigint) in a message or a tool', async () => {
    const cyclic: Record<string, unknown> = { command: 'ls' };
    cyclic.self = cyclic;
    const messages: Message[] = [
      ...agentSession(20),
      { role: 'assistant', content: [{ type: 'tool_use', id: 'loop', name: 'bash', input: cyclic }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'loop', content: 'ok' }] },
    ];
    const error = await maybeCompact(messages, small).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      code: 'UNREADABLE_INPUT',
      path: `messages[${messages.length - 2}].content[0].input.self`,
    });
    expect((error as Error).message).toMatch(/: a cycle is not JSON data$/);
    const tools = [{ name: 'bash', input_schema: { type: 'object', default: 10n } }];
    const withTools = await maybeCompact(agentSession(20), { ...small, tools: tools as never }).catch(
      (caught: unknown) => caught,
    );
    expect(withTools).toMatchObject({ code: 'UNREADABLE_INPUT', path: 'tools[0].input_schema.default' });
  });

  it('names a counter that answers NaN instead of never compacting in silence', async () => {
    const broken = { specificationVersion: 'v1' as const, name: 'broken', countText: () => Number.NaN };
    const error = await maybeCompact(agentSession(3), { counter: broken }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'INVALID_OPTIONS', path: 'counter' });
  });

  it('takes a usage no provider reports (Infinity, NaN) for no usage', async () => {
    const messages = agentSession(20);
    const next = [...messages, ...agentSession(2).slice(1)];
    const secondCall = async (usage?: ProviderUsage) => {
      const compactor = createCompactor({ thresholds: { mid: 200_000, hard: 400_000 } });
      await compactor.maybeCompact(messages);
      return (await compactor.maybeCompact(next, usage ? { usage } : {})).tokensBefore;
    };
    const without = await secondCall();
    expect(await secondCall({ prompt_tokens: Number.POSITIVE_INFINITY })).toBe(without);
    expect(await secondCall({ input_tokens: Number.NaN })).toBe(without);
    expect(await secondCall({ prompt_tokens: 99_999 })).not.toBe(without);
  });

  it('refuses an archive whose list() breaks the contract with ARCHIVE_FAILED', async () => {
    const archive = { ...createMemoryArchiveStore(), list: async () => null as never };
    const error = await maybeCompact(agentSession(3), { archive }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'ARCHIVE_FAILED' });
  });

  it('fails a put() that never settles as it fails one that rejects: ARCHIVE_FAILED, no hang', async () => {
    const session = agentSession(30, { lines: 400 });
    const options = { thresholds: { mid: 10_000, hard: 20_000 }, force: 'mid' as const };
    const failing = {
      ...createMemoryArchiveStore(),
      put: async () => Promise.reject(new Error('disk full')),
    };
    const refused = await maybeCompact(session, { ...options, archive: failing }).catch(
      (caught: unknown) => caught,
    );
    expect(refused).toMatchObject({ code: 'ARCHIVE_FAILED' });

    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const stuck = { ...createMemoryArchiveStore(), put: () => new Promise<void>(() => {}) };
      const call = maybeCompact(session, { ...options, archive: stuck }).catch((caught: unknown) => caught);
      await vi.advanceTimersByTimeAsync(ARCHIVE_TIMEOUT_MS);
      const error = await call;
      expect(error).toMatchObject({ code: 'ARCHIVE_FAILED' });
      expect((error as Error).message).toMatch(/did not answer within 30 s; the context was left unchanged/);
    } finally {
      vi.useRealTimers();
    }
  });

  it('aborts the signal it gave a put() that has not answered in time, so the store can give up', async () => {
    const session = agentSession(30, { lines: 400 });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const signals: (AbortSignal | undefined)[] = [];
      const stuck = {
        ...createMemoryArchiveStore(),
        put: (_items: readonly ArchiveItem[], options?: { signal?: AbortSignal }) => {
          signals.push(options?.signal);
          return new Promise<void>(() => {});
        },
      };
      const call = maybeCompact(session, {
        thresholds: { mid: 10_000, hard: 20_000 },
        force: 'mid',
        archive: stuck,
      }).catch((caught: unknown) => caught);
      await vi.waitFor(() => expect(signals).toHaveLength(1));
      expect(signals[0]?.aborted).toBe(false);
      await vi.advanceTimersByTimeAsync(ARCHIVE_TIMEOUT_MS);
      expect(await call).toMatchObject({ code: 'ARCHIVE_FAILED' });
      expect(signals[0]?.aborted).toBe(true);
      expect(signals[0]?.reason).toMatchObject({ code: 'ARCHIVE_FAILED' });
    } finally {
      vi.useRealTimers();
    }
  });

  it('fails a list() that never settles as it fails one that rejects: ARCHIVE_FAILED, no hang', async () => {
    const session = agentSession(3);
    const failing = {
      ...createMemoryArchiveStore(),
      list: async () => Promise.reject(new Error('ECONNRESET')),
    };
    const refused = await maybeCompact(session, { archive: failing }).catch((caught: unknown) => caught);
    expect(refused).toMatchObject({ code: 'ARCHIVE_FAILED' });

    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      let lists = 0;
      const stuck = {
        ...createMemoryArchiveStore(),
        list: () => {
          lists++;
          return new Promise<ArchiveItem[]>(() => {});
        },
      };
      const compactor = createCompactor({ archive: stuck });
      const call = compactor.maybeCompact(session).catch((caught: unknown) => caught);
      await vi.advanceTimersByTimeAsync(ARCHIVE_TIMEOUT_MS);
      const error = await call;
      expect(error).toMatchObject({ code: 'ARCHIVE_FAILED' });
      expect((error as Error).message).toBe(
        `reading the archive of session ${compactor.sessionId} failed: the archive did not answer within 30 s; the context was left unchanged`,
      );
      // The failed read does not stick: the next call asks the archive again.
      const again = compactor.maybeCompact(session).catch((caught: unknown) => caught);
      await vi.advanceTimersByTimeAsync(ARCHIVE_TIMEOUT_MS);
      expect(await again).toMatchObject({ code: 'ARCHIVE_FAILED' });
      expect(lists).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it('refuses tools that are not an array of objects with INVALID_OPTIONS', async () => {
    const error = await maybeCompact(agentSession(3), { tools: { a: 1 } as never }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({ code: 'INVALID_OPTIONS', path: 'tools' });
  });
});

describe('state store faults', () => {
  const session = agentSession(30, { lines: 400 });
  const options = { sessionId: 'stored', thresholds: { mid: 10_000, hard: 20_000 }, force: 'mid' as const };

  it('fails a load that rejects with STATE_FAILED naming the session, not the store error raw', async () => {
    const stateStore = {
      ...createMemorySessionStateStore(),
      load: async () => Promise.reject(new Error('ECONNREFUSED 127.0.0.1:6379')),
    };
    const error = await maybeCompact(session, { ...options, stateStore }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'STATE_FAILED' });
    expect((error as Error).message).toBe(
      'reading the state of session stored failed; the context was left unchanged',
    );
    expect((error as Error & { cause?: Error }).cause?.message).toMatch(/ECONNREFUSED/);
  });

  it('fails a load or a save that never settles after 30 s instead of hanging the call', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const silentLoad = { ...createMemorySessionStateStore(), load: () => new Promise<never>(() => {}) };
      const loading = maybeCompact(session, { ...options, stateStore: silentLoad }).catch(
        (caught: unknown) => caught,
      );
      await vi.advanceTimersByTimeAsync(ARCHIVE_TIMEOUT_MS);
      expect(await loading).toMatchObject({
        code: 'STATE_FAILED',
        message: expect.stringContaining('the state store did not answer within 30 s'),
      });

      let saves = 0;
      const silentSave = {
        ...createMemorySessionStateStore(),
        save: () => {
          saves++;
          return new Promise<never>(() => {});
        },
      };
      const compactor = createCompactor({ ...options, stateStore: silentSave });
      const saving = compactor.maybeCompact(session, { force: 'mid' }).catch((caught: unknown) => caught);
      await vi.advanceTimersByTimeAsync(ARCHIVE_TIMEOUT_MS);
      expect(await saving).toMatchObject({
        code: 'STATE_FAILED',
        message: expect.stringMatching(/^saving the state of session stored failed: /),
      });
      expect(saves).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('lets a STATE_CONFLICT the store throws pass as it is, so the call runs again', async () => {
    const memory = createMemorySessionStateStore();
    let saves = 0;
    const stateStore = {
      ...memory,
      save: (...args: Parameters<typeof memory.save>) => {
        saves++;
        if (saves === 1) return Promise.reject(new CompactError('moved', { code: 'STATE_CONFLICT' }));
        return memory.save(...args);
      },
    };
    const result = await maybeCompact(session, { ...options, stateStore });
    expect(result.layer).toBe('mid');
    expect(saves).toBe(2);
  });
});
