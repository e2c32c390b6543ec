import { describe, expect, it } from 'vitest';
import { createCompactor } from './compactor.js';
import type { CompactorOptions, MaybeCompactOptions } from './compactor-options.js';
import { CompactError } from './model/errors.js';
import type { Message } from './model/messages.js';
import { createExtractiveSummaryModel } from './summary/extractive-summary.js';
import { createHeuristicCounter } from './tokens/heuristic-counter.js';

/** The error `run` throws, or undefined. */
function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

function expectInvalid(error: unknown, path: string, says: string): void {
  expect(CompactError.isInstance(error)).toBe(true);
  const invalid = error as CompactError;
  expect(invalid.code).toBe('INVALID_OPTIONS');
  expect(invalid.path).toBe(path);
  expect(invalid.message).toContain(says);
}

describe('createCompactor: options of the wrong shape', () => {
  // What a JavaScript caller or a JSON config can pass; before, each was a TypeError on the
  // first call (counter, stateStore, identity, micro: null) or silently used as another value.
  it.each<[string, unknown, string]>([
    ['counter', 'o200k', 'must be an object with countText(), got "o200k"'],
    ['counter', {}, 'countText() is missing'],
    ['summarizer', 'anthropic:claude-haiku', 'must be an object with summarize()'],
    ['archive', { put: async () => {} }, 'get() is missing'],
    ['stateStore', {}, 'load() is missing'],
    ['codeParser', 'tree-sitter', 'must be an object with outline()'],
    ['contextWindow', '200000', 'must be a number > 0, got "200000"'],
    ['contextWindow', Number.NaN, 'got NaN'],
    ['reserveOutputTokens', -1, 'must be a number ≥ 0, got -1'],
    ['cacheTtlSeconds', '300', 'must be a number ≥ 0'],
    ['sessionId', 42, 'must be a non-empty string, got 42'],
    ['sessionId', ' ', 'must be a non-empty string'],
    ['identity', 5, 'must be a string'],
    ['onEvent', 'log', 'must be a function'],
    ['micro', null, 'must be an object, got null'],
  ])('%s: %j', (key, value, says) => {
    expectInvalid(
      thrown(() => createCompactor({ [key]: value } as CompactorOptions)),
      key,
      says,
    );
  });

  it.each<[CompactorOptions, string, string]>([
    [{ thresholds: { mid: '1000' as unknown as number } }, 'thresholds.mid', 'must be a number > 0'],
    [{ thresholdFractions: { mid: 2 } }, 'thresholdFractions.mid', 'at most 1, got 2'],
    [{ micro: { keepTurns: -1 } }, 'micro.keepTurns', 'got -1'],
    [{ micro: { excludeTools: 'bash' as unknown as string[] } }, 'micro.excludeTools', 'an array of strings'],
    [{ micro: { cacheAware: 'yes' as unknown as boolean } }, 'micro.cacheAware', 'true or false'],
    [{ mid: { summarizer: {} as never } }, 'mid.summarizer', 'summarize() is missing'],
    [{ hard: { maxSummaryTokens: 0 } }, 'hard.maxSummaryTokens', 'must be a number > 0, got 0'],
    [{ hard: { maxAttempts: 0 } }, 'hard.maxAttempts', 'got 0'],
    [{ hard: { filesBack: 'yes' as never } }, 'hard.filesBack', 'must be an object'],
    [{ hard: { filesBack: { maxFiles: -2 } } }, 'hard.filesBack.maxFiles', 'got -2'],
  ])('%j names %s', (options, path, says) => {
    expectInvalid(
      thrown(() => createCompactor(options)),
      path,
      says,
    );
  });

  it('accepts every option set to a value of its shape, a budget of Infinity included', async () => {
    const compactor = createCompactor({
      thresholds: { mid: 1000, hard: 2000 },
      reserveOutputTokens: 0,
      counter: createHeuristicCounter(),
      summarizer: createExtractiveSummaryModel(),
      sessionId: 'session-1',
      recall: false,
      identity: 'You are a coding agent.',
      cacheTtlSeconds: 0,
      onEvent: () => {},
      micro: { keepTurns: 0, excludeTools: ['read_file'], supersede: false, cacheAware: false },
      mid: { keepToolResults: 0, maxAssistantChars: 0 },
      hard: { keptTurnTokens: Number.POSITIVE_INFINITY, workingSetTokens: 0, filesBack: { maxFiles: 0 } },
    });
    const messages: Message[] = [{ role: 'user', content: 'hello' }];
    await expect(compactor.maybeCompact(messages)).resolves.toMatchObject({ layer: 'none' });
  });
});

describe('maybeCompact: call options of the wrong shape', () => {
  const messages: Message[] = [{ role: 'user', content: 'hello' }];

  it.each<[MaybeCompactOptions, string, string]>([
    [{ force: 'micro' as never }, 'force', 'must be "mid" or "hard", got "micro"'],
    [{ now: 'today' as never }, 'now', 'must be a number ≥ 0'],
    [{ focus: 42 as never }, 'focus', 'must be a string'],
    [{ summarizer: 'extractive' as never }, 'summarizer', 'must be an object with summarize()'],
  ])('%j names %s', async (options, path, says) => {
    const error = await createCompactor()
      .maybeCompact(messages, options)
      .then(
        () => undefined,
        (rejected: unknown) => rejected,
      );
    expectInvalid(error, path, says);
  });
});
