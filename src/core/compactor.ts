import { ArchiveIds } from './_internal/archive-ids.js';
import { HistoryIndex } from './_internal/history-index.js';
import { collectMaskTargets, maskToolResults, type RewriteContext } from './_internal/mask-tool-results.js';
import { placeholderTokens } from './_internal/placeholder.js';
import type { ArchiveItem } from './archive/archive-store.js';
import { createMemoryArchiveStore } from './archive/memory-archive-store.js';
import type { Compactor, CompactorOptions, CompactResult, MaybeCompactOptions } from './compactor-options.js';
import type { Message, SystemPrompt } from './conversation/types.js';
import { validateMessages } from './conversation/validate.js';
import { CompactError } from './errors.js';
import type { CompactionEvent, CompactionLayer } from './events.js';
import { type HardSettings, hardCompact } from './layers/hard.js';
import { type MidSettings, planMidCompaction } from './layers/mid.js';
import { compactRequestWith } from './request/compact-request.js';
import { createExtractiveSummaryModel } from './summary/extractive-summary.js';
import { defaultIdentity } from './summary/summary-format.js';
import { createAnchoredCounter } from './tokens/anchored-counter.js';
import { createHeuristicCounter } from './tokens/heuristic-counter.js';
import { createMemoizedCounter } from './tokens/memoized-counter.js';

/** The seed's thresholds. */
export const defaultThresholds = { mid: 50_000, hard: 80_000 } as const;

/**
 * Creates a compactor for one agent session. Pass the messages through `maybeCompact` before
 * every model call and send what it returns; it keeps its own state between calls so a call that
 * only appended a turn costs only that turn.
 *
 * @example
 * const compactor = createCompactor({ contextWindow: 200_000 });
 * // in the agent loop, before each model call:
 * const { messages: toSend } = await compactor.maybeCompact(messages, { system, usage: lastResponse?.usage });
 * messages = toSend;
 */
export function createCompactor({
  thresholds,
  contextWindow,
  reserveOutputTokens = 8192,
  thresholdFractions,
  counter: textCounter = createHeuristicCounter(),
  archive = createMemoryArchiveStore(),
  sessionId = randomSessionId(),
  summarizer = createExtractiveSummaryModel(),
  identity = defaultIdentity,
  micro = {},
  mid = {},
  hard = {},
  onEvent = () => {},
}: CompactorOptions = {}): Compactor {
  const limits = resolveThresholds({ thresholds, contextWindow, reserveOutputTokens, thresholdFractions });
  const {
    keepTurns = 3,
    minTokens = 100,
    excludeTools = [],
    cacheAware = true,
    clearAtLeast = Math.min(20_000, Math.floor(limits.mid / 2)),
  } = micro;
  const excluded = new Set(excludeTools);
  const midSettings: MidSettings = {
    excludeTools: excluded,
    keepToolResults: mid.keepToolResults ?? 5,
    maxAssistantChars: mid.maxAssistantChars ?? 600,
    maxToolInputTokens: mid.maxToolInputTokens ?? 500,
    ...(mid.summarizer ? { summarizer: mid.summarizer } : {}),
  };
  const hardSettings: HardSettings = {
    summarizer,
    identity,
    maxSummaryTokens: hard.maxSummaryTokens ?? 2000,
    maxAttempts: Math.max(1, hard.maxAttempts ?? 3),
    retryDelayMs: hard.retryDelayMs ?? 500,
    timeoutMs: hard.timeoutMs ?? 120_000,
  };
  // The message count and the history index read the same new tool output: tokenize it once.
  const counter = createMemoizedCounter(textCounter, { maxEntries: 2000 });
  const tokens = createAnchoredCounter({ counter });
  const index = new HistoryIndex(counter, (name) => excluded.has(name), minTokens, midSettings);
  const ids = new ArchiveIds();
  let restored: Promise<void> | undefined;
  let lastOutput: readonly Message[] | undefined;
  let lastSystem: SystemPrompt | undefined;

  const emit = (event: CompactionEvent) => {
    try {
      onEvent(event);
    } catch {
      // A throwing handler must not break the agent's turn.
    }
  };

  async function store(items: ArchiveItem[]): Promise<void> {
    if (items.length === 0) return;
    try {
      await archive.put(items);
      ids.markStored(items);
    } catch (error) {
      throw new CompactError(`archiving ${items.length} item(s) failed; the context was left unchanged`, {
        code: 'ARCHIVE_FAILED',
        cause: error,
      });
    }
  }

  function rewriteContext(): RewriteContext {
    return { ids, sessionId, now: Date.now(), toolUse: (id) => index.toolUse(id) };
  }

  /** Layer 1: masks old tool results, in batches when cache-aware. */
  async function runMicro(messages: readonly Message[]) {
    index.sync(messages);
    const pending = index.pendingBefore(index.keepBoundary(keepTurns));
    if (pending.length === 0) return undefined;
    const freed = pending.reduce((sum, entry) => sum + entry.tokens - placeholderTokens, 0);
    if (cacheAware && freed < clearAtLeast) return undefined;
    const masked = maskToolResults(messages, pending, rewriteContext());
    await store(masked.items);
    index.consumePending(pending.length);
    index.adopt(masked.messages);
    return masked;
  }

  async function maybeCompact(
    input: readonly Message[],
    options: MaybeCompactOptions = {},
  ): Promise<CompactResult> {
    try {
      return await compact(input, options);
    } catch (error) {
      if (CompactError.isInstance(error)) throw error;
      // Malformed messages (a null block, content of the wrong type) trip the layers with a raw
      // TypeError: name what is wrong instead. Validation runs only here, so a good call stays cheap.
      index.reset();
      throw invalidInputError(error, input, options.system);
    }
  }

  async function compact(input: readonly Message[], options: MaybeCompactOptions): Promise<CompactResult> {
    const { system, usage, signal, force, focus } = options;
    if (!Array.isArray(input)) {
      throw new CompactError('messages must be an array', { code: 'INVALID_TRANSCRIPT', path: 'messages' });
    }
    restored ??= archive.list(sessionId).then(
      (items) => ids.restore(items),
      (error: unknown) => {
        // A failed read must not stick: the next call reads the archive again.
        restored = undefined;
        throw CompactError.isInstance(error)
          ? error
          : new CompactError(
              `reading the archive of session ${sessionId} failed; the context was left unchanged`,
              {
                code: 'ARCHIVE_FAILED',
                cause: error,
              },
            );
      },
    );
    await restored;
    if (usage && lastOutput) tokens.observe(usage, lastOutput, lastSystem);
    const tokensBefore = tokens.count(input, system);
    let messages: readonly Message[] = input;
    let layer = 'none' as CompactionLayer;
    const archived: string[] = [];
    const started = Date.now();
    const record = (items: ArchiveItem[]) => archived.push(...items.map((item) => item.id));

    const runHard = async (from: readonly Message[]) => {
      emit({ type: 'compaction-start', layer: 'hard', tokensBefore });
      const result = await hardCompact(from, {
        settings: hardSettings,
        counter,
        ...(system === undefined ? {} : { system }),
        sessionId,
        now: Date.now(),
        newArchiveId: () => ids.idFor(undefined).id,
        archive: store,
        onEvent: emit,
        ...(focus ? { focus } : {}),
        ...(signal ? { signal } : {}),
      });
      if (!result) return from;
      record(result.items);
      let output = result.messages;
      if (tokens.count(output, system) > limits.hard) output = await maskTail(output);
      // A history that is only the latest request cannot shrink: keep what we had (it is archived anyway).
      if (tokens.count(output, system) >= tokens.count(from, system)) return from;
      layer = 'hard';
      return output;
    };

    /** When even the kept turn is too large, its tool results become placeholders too (archived). */
    const maskTail = async (output: Message[]) => {
      index.sync(output);
      const masked = maskToolResults(
        output,
        collectMaskTargets(output, counter, { toolName: (id) => index.toolUse(id)?.name }),
        rewriteContext(),
      );
      await store(masked.items);
      record(masked.items);
      return masked.messages;
    };

    const planMid = () => {
      index.sync(messages);
      return planMidCompaction(messages, midSettings, counter, rewriteContext(), signal);
    };
    const applyMid = async (plan: Awaited<ReturnType<typeof planMid>>) => {
      emit({ type: 'compaction-start', layer: 'mid', tokensBefore });
      await store(plan.items);
      record(plan.items);
      messages = plan.messages;
      layer = 'mid';
    };
    const tryMicro = async () => {
      const masked = await runMicro(messages);
      if (!masked) return;
      emit({ type: 'compaction-start', layer: 'micro', tokensBefore });
      record(masked.items);
      messages = masked.messages;
      layer = 'micro';
    };

    if (force === 'hard') {
      messages = await runHard(messages);
    } else if (tokensBefore > limits.hard) {
      // Over the hard threshold, condensing is enough when it gets back under mid (so it does not fire
      // again on the next turn); otherwise summarize.
      const plan = await planMid();
      if (plan.items.length > 0 && tokens.count(plan.messages, system) <= limits.mid) await applyMid(plan);
      else messages = await runHard(messages);
    } else if (force === 'mid' || tokensBefore > limits.mid) {
      index.sync(messages);
      // A whole mid plan walks the history: only make one when the index says it could pass the gate.
      const gated = force !== 'mid' && cacheAware;
      const plan =
        !gated || index.estimateMidFreed(midSettings.keepToolResults) >= clearAtLeast
          ? await planMid()
          : undefined;
      if (plan && plan.items.length > 0 && (!gated || plan.freedTokens >= clearAtLeast)) {
        await applyMid(plan);
        if (tokens.count(messages, system) > limits.hard) messages = await runHard(messages);
      } else {
        await tryMicro();
      }
    } else {
      await tryMicro();
    }

    const output = layer === 'none' ? (input as Message[]) : (messages as Message[]);
    index.sync(output);
    const tokensAfter = layer === 'none' ? tokensBefore : tokens.count(output, system);
    if (layer !== 'none') {
      emit({
        type: 'compaction-end',
        layer,
        tokensBefore,
        tokensAfter,
        archived: archived.length,
        durationMs: Date.now() - started,
      });
    }
    if (
      contextWindow !== undefined &&
      tokensAfter > contextWindow - reserveOutputTokens &&
      layer === 'hard'
    ) {
      throw new CompactError(
        `after a hard compaction the context still has ${tokensAfter} tokens, over the window of ${contextWindow} less ${reserveOutputTokens} reserved; the system prompt or the latest request alone is too large`,
        { code: 'CONTEXT_OVERFLOW' },
      );
    }
    lastOutput = output;
    lastSystem = system;
    return { messages: output, layer, tokensBefore, tokensAfter, archived };
  }

  return {
    maybeCompact,
    compactRequest: (body, options) => compactRequestWith({ maybeCompact }, body, options),
    thresholds: limits,
    sessionId,
    archive,
  };
}

/**
 * The seed's one-call use: compacts `messages` once with a fresh compactor. Pass an `archive` to
 * keep what is removed; for an agent loop prefer {@link createCompactor}, which keeps state.
 *
 * @example
 * const { messages: toSend } = await maybeCompact(messages, { system });
 */
export async function maybeCompact(
  messages: readonly Message[],
  options: MaybeCompactOptions & CompactorOptions = {},
): Promise<CompactResult> {
  const { system, usage, signal, force, focus, ...compactorOptions } = options;
  return createCompactor(compactorOptions).maybeCompact(messages, {
    ...(system === undefined ? {} : { system }),
    ...(usage === undefined ? {} : { usage }),
    ...(signal === undefined ? {} : { signal }),
    ...(force === undefined ? {} : { force }),
    ...(focus === undefined ? {} : { focus }),
  });
}

/** The error for input the layers could not read: `INVALID_TRANSCRIPT` at the first broken rule. */
function invalidInputError(error: unknown, input: unknown, system: SystemPrompt | undefined): unknown {
  const problems = validateMessages(input, system === undefined ? {} : { system });
  const [first] = problems;
  // Valid input that still failed is a bug: let it surface as it is.
  if (!first) return error;
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more problems)` : '';
  return new CompactError(`${first.message}${more}`, {
    code: 'INVALID_TRANSCRIPT',
    path: first.path,
    cause: error,
    problems,
  });
}

function resolveThresholds(
  options: Pick<
    CompactorOptions,
    'thresholds' | 'contextWindow' | 'reserveOutputTokens' | 'thresholdFractions'
  >,
): {
  mid: number;
  hard: number;
} {
  const { thresholds = {}, contextWindow, reserveOutputTokens = 8192, thresholdFractions = {} } = options;
  let mid: number = defaultThresholds.mid;
  let hard: number = defaultThresholds.hard;
  if (contextWindow !== undefined) {
    if (!(contextWindow > reserveOutputTokens)) {
      throw new CompactError(
        `contextWindow (${contextWindow}) must be larger than reserveOutputTokens (${reserveOutputTokens})`,
        {
          code: 'INVALID_OPTIONS',
        },
      );
    }
    const usable = contextWindow - reserveOutputTokens;
    mid = Math.floor(usable * (thresholdFractions.mid ?? 0.6));
    hard = Math.floor(usable * (thresholdFractions.hard ?? 0.85));
  }
  mid = thresholds.mid ?? mid;
  hard = thresholds.hard ?? hard;
  if (!(Number.isFinite(mid) && Number.isFinite(hard) && mid > 0 && hard >= mid)) {
    throw new CompactError(`thresholds must satisfy 0 < mid <= hard, got mid ${mid} and hard ${hard}`, {
      code: 'INVALID_OPTIONS',
    });
  }
  return { mid, hard };
}

function randomSessionId(): string {
  return globalThis.crypto.randomUUID();
}
