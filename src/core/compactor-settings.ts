import { checkCompactorOptions } from './check-options.js';
import type { CompactorOptions, MicroOptions, MidOptions } from './compactor-options.js';
import type { HardSettings } from './layers/hard.js';
import type { MaskRule } from './layers/mask.js';
import type { MicroSettings } from './layers/micro.js';
import type { MidSettings } from './layers/mid.js';
import { CompactError } from './model/errors.js';
import { createExtractiveSummaryModel } from './summary/extractive-summary.js';
import { defaultIdentity, defaultIdentityWithoutRecall } from './summary/summary-format.js';
import { createHeuristicCounter } from './tokens/heuristic-counter.js';
import { createMemoizedCounter } from './tokens/memoized-counter.js';
import type { TokenCounter } from './tokens/token-counter.js';
import type { CodeParser } from './working-set/code-outline.js';

/** The seed's thresholds. */
export const defaultThresholds = { mid: 50_000, hard: 80_000 } as const;

/** Tokens kept free for the answer when thresholds come from `contextWindow`. */
const DEFAULT_RESERVE_OUTPUT_TOKENS = 8192;
/** Fractions of the usable window where mid and hard start (the seed's 50k/80k of about 90k). */
const DEFAULT_MID_FRACTION = 0.6;
const DEFAULT_HARD_FRACTION = 0.85;
/** Micro keeps the results of the last three turns whole: the agent is still reading them. */
const DEFAULT_KEEP_TURNS = 3;
/** Results under this many tokens are never masked (a placeholder costs about 30). */
const DEFAULT_MIN_TOKENS = 100;
/** The largest cache-aware batch: 20k tokens is about what one prompt-cache write costs to redo. */
const MAX_CLEAR_AT_LEAST = 20_000;
/**
 * A cache-aware batch is 5/8 of the mid threshold (below the 20k cap). Measured on the 202 shared
 * runs at mid 8,000 / hard 16,000 (`simulate`, CHANGELOG.md 2026-12-01): half of mid gave 5.2
 * prefix rewrites per 100 turns at 0.840× none's cost and 90.7% retention; 5/8 gives 4.3 at
 * 0.838× and 90.9%, with micro still masking (71 batches) and mid keeping its last 5 results. The
 * region from 0.6 to 0.7 of mid measured alike (4.0–4.5 rewrites); under half it rose past 5.
 */
const CLEAR_AT_LEAST_MID_FRACTION = 5 / 8;
/**
 * Micro starts masking once the request reaches this fraction of mid: under it the agent keeps
 * every result whole (`npm run bench -- mid-cost` and `-- replay`, BENCHMARKS.md; the other
 * fractions measured are in CHANGELOG.md, 2026-12-03).
 */
const MICRO_START_MID_FRACTION = 1 / 2;
/**
 * Mid keeps the last five tool results whole and, when the context window is known, one per
 * 10,000 tokens of it if that is more (19 at 200k). At a 200k window on the shared sessions
 * (`npm run bench -- replay`, BENCHMARKS.md §11) this took the identifiers the agent used next from
 * 72% to 74% still visible and its edit texts from 56% to 59%, at 1% more cost. Micro's three
 * turns stay: scaled with the window too (23 turns at 200k) they gave 82% and 68%, but at 18% more
 * cost and with 9 sessions over 1.1× the cheapest peer (`npm run bench -- mid-cost`).
 */
const MIN_KEEP_TOOL_RESULTS = 5;
/**
 * Micro keeps the file reads of the last 10 turns whole, within a tenth of the usable window
 * (19,180 tokens at 200k): masked three calls after it came in, the file the agent was about to
 * edit had left it a one-line placeholder. At a 200k window on the shared sessions (`npm run bench
 * -- replay`, BENCHMARKS.md §11) the identifiers the agent used next went from 74.9% to 77.7%
 * still visible at every changed request and its edit texts from 60.6% to 61.8%, at 2.7% more
 * cost. Counting the agent's edits of a file as keeping its read added cost and nothing the agent
 * used next; 15 turns kept a little more at about twice the cost.
 */
const DEFAULT_KEEP_READS_TURNS = 10;
const KEEP_READS_WINDOW_SHARE = 1 / 10;
const KEEP_TOOL_RESULT_WINDOW_TOKENS = 10_000;
const DEFAULT_MAX_ASSISTANT_CHARS = 600;
const DEFAULT_MAX_TOOL_INPUT_TOKENS = 500;
const DEFAULT_MAX_SUMMARY_TOKENS = 2000;
/**
 * The session ledger's budget: at least 2,600 tokens, and a fortieth of the room the hard threshold
 * leaves (as the working set) once that is more: 4,795 at a 200k window. A long session's ledger
 * holds hundreds of commands; at a 200k window the fixed 2,600 had dropped every successful one
 * (`git status`, the test run) by its last summary, and the agent ran 6 of the 17 it ran next again
 * from nothing; 4,795 kept 16 for 0.5% more cost (`npm run bench -- replay`, BENCHMARKS.md §11).
 */
const MIN_LEDGER_TOKENS = 2600;
const LEDGER_WINDOW_SHARE = 1 / 40;
/**
 * The working set's budget: the signatures and edited regions of the files an agent works on, and
 * the outlines of those it read, within a fortieth of the usable window and at least 1,200 tokens
 * (2,352 at the default thresholds, 4,795 at a 200k window, 1,200 at mid 8,000 / hard 16,000). At
 * Claude Code's own compaction points (`npm run bench -- survival`, BENCHMARKS.md §11) a fixed 1,200
 * kept 75% of the identifiers the agent used in its next 40 calls, this 80%; at a 200k window it
 * cost 0.4% more (`npm run bench -- replay`).
 */
const MIN_WORKING_SET_TOKENS = 1200;
const WORKING_SET_WINDOW_SHARE = 1 / 40;
/**
 * The kept turn goes out whole unless it alone takes more than this share of the usable window
 * (issue #32: the file the agent just read arrived cut at 1,000 tokens a part, and with it the
 * names it was about to use; a quarter still leaves the summary, the ledger and the next turns room).
 */
const KEPT_TURN_WINDOW_SHARE = 1 / 4;
/**
 * Files back: up to five files (as Claude Code puts back up to five) within a twelfth of the
 * usable window up to 10,000 tokens, a twentieth of larger windows, and never under 2,000: a fixed
 * 2,000 left the agent of a 200k window the same few lines as one of 16k. At Claude Code's 41 own
 * compaction points (`npm run bench -- survival`, BENCHMARKS.md §11; 7,843 tokens at the default
 * thresholds) the identifiers the agent used in its next 40 calls still visible went from 66% (a
 * fixed 2,000) to 80% (a twentieth) to 84%, its next edits' texts from 46% to 66% to 72%, at a
 * median about what Claude Code itself sends after its compaction; at Codex's own points
 * the identifiers went from 66% to 73%. A twelfth of a 200k window (15,984) cost 1.5% more in the
 * replays there (`npm run bench -- replay`: a Codex rollout ran two more mids) and showed fewer of
 * the next edits' texts at the summaries, so large windows keep a twentieth.
 */
const DEFAULT_FILES_BACK = 5;
const MIN_FILES_BACK_TOKENS = 2000;
const FILES_BACK_WINDOW_SHARE = 1 / 12;
const MAX_FILES_BACK_SHARE_TOKENS = 10_000;
const LARGE_WINDOW_FILES_BACK_SHARE = 1 / 20;
const DEFAULT_MAX_ATTEMPTS = 3;
const DEFAULT_RETRY_DELAY_MS = 500;
const DEFAULT_TIMEOUT_MS = 120_000;
/** Anthropic's default prompt-cache lifetime: 5 minutes. */
const DEFAULT_CACHE_TTL_SECONDS = 300;
/** Long texts whose counts are kept: the message count and the index read each new output once. */
const COUNTER_CACHE_ENTRIES = 2000;

/** Everything fixed for a compactor's lifetime, defaults filled in. */
export interface CompactorSettings {
  limits: { mid: number; hard: number };
  contextWindow: number | undefined;
  reserveOutputTokens: number;
  /** After this many seconds without a call the provider's prompt cache is gone. */
  cacheTtlSeconds: number;
  sessionId: string;
  /** Whether what the layers write names archive ids (the model has a recall tool). */
  recall: boolean;
  counter: TokenCounter;
  rule: MaskRule;
  /** Micro's plan settings, and the request size under which it masks nothing. */
  micro: MicroSettings & { startAt: number };
  mid: MidSettings;
  hard: HardSettings;
  /** Outlines code for the working set; the lexer when undefined. */
  codeParser: CodeParser | undefined;
  /** Background summaries: off, or the request sizes at which one starts and at which calls wait for it. */
  background: { threshold: number; limit: number } | undefined;
}

/** The settings for a compactor's options; throws `INVALID_OPTIONS` for inconsistent ones. */
export function resolveSettings(options: CompactorOptions): CompactorSettings {
  checkCompactorOptions(options);
  const {
    contextWindow,
    reserveOutputTokens = DEFAULT_RESERVE_OUTPUT_TOKENS,
    counter = createHeuristicCounter(),
    sessionId = globalThis.crypto.randomUUID(),
    summarizer = createExtractiveSummaryModel(),
    recall = true,
    micro = {},
    mid = {},
    hard = {},
    cacheTtlSeconds = DEFAULT_CACHE_TTL_SECONDS,
  } = options;
  const identity = options.identity ?? (recall ? defaultIdentity : defaultIdentityWithoutRecall);
  const limits = resolveThresholds(options);
  const usable = usableWindow(options, limits);
  const rule: MaskRule = {
    minTokens: micro.minTokens ?? DEFAULT_MIN_TOKENS,
    excludeTools: new Set(micro.excludeTools ?? []),
  };
  return {
    limits,
    contextWindow,
    reserveOutputTokens,
    cacheTtlSeconds,
    sessionId,
    recall,
    counter: createMemoizedCounter(checkedCounter(counter), { maxEntries: COUNTER_CACHE_ENTRIES }),
    rule,
    micro: microSettings(micro, limits.mid, usable),
    mid: midSettings(mid, rule, { contextWindow, usable, timeoutMs: hard.timeoutMs ?? DEFAULT_TIMEOUT_MS }),
    hard: hardSettings(hard, { summarizer, identity, usable, hardThreshold: limits.hard }),
    codeParser: options.codeParser,
    background: hard.background
      ? resolveBackground(
          limits,
          hard,
          contextWindow === undefined ? undefined : contextWindow - reserveOutputTokens,
        )
      : undefined,
  };
}

/** Micro's settings, defaults filled in from the mid threshold and the usable window. */
function microSettings(
  micro: MicroOptions,
  midThreshold: number,
  usable: number,
): CompactorSettings['micro'] {
  return {
    keepTurns: micro.keepTurns ?? DEFAULT_KEEP_TURNS,
    cacheAware: micro.cacheAware ?? true,
    supersede: micro.supersede ?? true,
    clearAtLeast:
      micro.clearAtLeast ??
      Math.min(MAX_CLEAR_AT_LEAST, Math.floor(midThreshold * CLEAR_AT_LEAST_MID_FRACTION)),
    // Masking every turn (not cache-aware) is the seed's micro: from the first turn.
    startAt:
      micro.startAt ?? (micro.cacheAware === false ? 0 : Math.floor(midThreshold * MICRO_START_MID_FRACTION)),
    keepReads: {
      turns: micro.keepReads?.turns ?? DEFAULT_KEEP_READS_TURNS,
      maxTokens: micro.keepReads?.maxTokens ?? Math.floor(usable * KEEP_READS_WINDOW_SHARE),
    },
  };
}

/** Mid's settings: one tool result kept whole per 10,000 tokens of a known window, at least five. */
function midSettings(
  mid: MidOptions,
  rule: MaskRule,
  {
    contextWindow,
    usable,
    timeoutMs,
  }: { contextWindow: number | undefined; usable: number; timeoutMs: number },
): MidSettings {
  return {
    rule,
    timeoutMs,
    keepToolResults:
      mid.keepToolResults ??
      (contextWindow === undefined
        ? MIN_KEEP_TOOL_RESULTS
        : shareOf(usable, 1 / KEEP_TOOL_RESULT_WINDOW_TOKENS, MIN_KEEP_TOOL_RESULTS)),
    maxAssistantChars: mid.maxAssistantChars ?? DEFAULT_MAX_ASSISTANT_CHARS,
    maxToolInputTokens: mid.maxToolInputTokens ?? DEFAULT_MAX_TOOL_INPUT_TOKENS,
    ...(mid.summarizer ? { summarizer: mid.summarizer } : {}),
  };
}

/** The hard layer's settings: the options given, the rest from the defaults and the usable window. */
function hardSettings(
  hard: NonNullable<CompactorOptions['hard']>,
  {
    summarizer,
    identity,
    usable,
    hardThreshold,
  }: Pick<HardSettings, 'summarizer' | 'identity'> & { usable: number; hardThreshold: number },
): HardSettings {
  const room = hardRoom(usable, hardThreshold);
  return {
    summarizer,
    identity,
    maxSummaryTokens: hard.maxSummaryTokens ?? DEFAULT_MAX_SUMMARY_TOKENS,
    maxAttempts: Math.max(1, hard.maxAttempts ?? DEFAULT_MAX_ATTEMPTS),
    retryDelayMs: hard.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS,
    timeoutMs: hard.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    ledgerTokens: hard.ledgerTokens ?? shareOf(room, LEDGER_WINDOW_SHARE, MIN_LEDGER_TOKENS),
    workingSetTokens:
      hard.workingSetTokens ?? shareOf(room, WORKING_SET_WINDOW_SHARE, MIN_WORKING_SET_TOKENS),
    keptTurnTokens: hard.keptTurnTokens ?? Math.floor(usable * KEPT_TURN_WINDOW_SHARE),
    filesBack: {
      maxFiles: hard.filesBack?.maxFiles ?? DEFAULT_FILES_BACK,
      maxTokens: hard.filesBack?.maxTokens ?? filesBackTokens(usable),
    },
  };
}

/**
 * What the working set's and the ledger's defaults are shares of: the usable window, or the window
 * the hard threshold implies when that is smaller. They go out beside the turn a hard compaction
 * keeps, so thresholds set well under a large window (hard 40,000 of 100,000) do not size them by
 * the window and push that turn's fresh results into placeholders.
 */
function hardRoom(usable: number, hardThreshold: number): number {
  return Math.min(usable, hardThreshold / DEFAULT_HARD_FRACTION);
}

/** The default files-back budget of a usable window (see `FILES_BACK_WINDOW_SHARE`). */
function filesBackTokens(usable: number): number {
  const small = Math.min(MAX_FILES_BACK_SHARE_TOKENS, Math.floor(usable * FILES_BACK_WINDOW_SHARE));
  return Math.max(MIN_FILES_BACK_TOKENS, small, Math.floor(usable * LARGE_WINDOW_FILES_BACK_SHARE));
}

/** A default that grows with the window: `share` of `room`, rounded down, never under `min`. */
function shareOf(room: number, share: number, min: number): number {
  return Math.max(min, Math.floor(room * share));
}

/**
 * The window less the answer's reserve; without a window, the one the hard threshold implies at
 * its default fraction (the seed's 80,000 of about 94,000).
 */
function usableWindow(
  { contextWindow, reserveOutputTokens = DEFAULT_RESERVE_OUTPUT_TOKENS }: CompactorOptions,
  limits: { hard: number },
): number {
  return contextWindow === undefined
    ? limits.hard / DEFAULT_HARD_FRACTION
    : contextWindow - reserveOutputTokens;
}

function resolveThresholds({
  thresholds = {},
  contextWindow,
  reserveOutputTokens = DEFAULT_RESERVE_OUTPUT_TOKENS,
  thresholdFractions = {},
}: CompactorOptions): { mid: number; hard: number } {
  let mid: number = defaultThresholds.mid;
  let hard: number = defaultThresholds.hard;
  if (contextWindow !== undefined) {
    if (!(contextWindow > reserveOutputTokens)) {
      throw new CompactError(
        `contextWindow (${contextWindow}) must be larger than reserveOutputTokens (${reserveOutputTokens})`,
        { code: 'INVALID_OPTIONS' },
      );
    }
    const usable = contextWindow - reserveOutputTokens;
    mid = Math.floor(usable * (thresholdFractions.mid ?? DEFAULT_MID_FRACTION));
    hard = Math.floor(usable * (thresholdFractions.hard ?? DEFAULT_HARD_FRACTION));
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

/**
 * Background summaries start at the hard threshold (where a foreground one would) and calls wait
 * for one on its way only past the hard threshold plus the mid-to-hard span — at most the usable
 * window when it is known. Measured on the shared runs (BENCHMARKS.md): about 3% of foreground's
 * blocked time at about 4% more cost.
 */
function resolveBackground(
  limits: { mid: number; hard: number },
  hard: NonNullable<CompactorOptions['hard']>,
  usableWindow: number | undefined,
): { threshold: number; limit: number } {
  const span = limits.hard + (limits.hard - limits.mid);
  const limit = hard.backgroundLimit ?? Math.min(span, usableWindow ?? span);
  return {
    threshold: Math.min(hard.backgroundThreshold ?? limits.hard, limit),
    limit: Math.max(limits.hard, limit),
  };
}

/**
 * The caller's counter, its every answer checked: a count that is not a number ≥ 0 (`NaN`) would
 * leave every threshold unmet in silence.
 */
function checkedCounter(counter: TokenCounter): TokenCounter {
  return {
    specificationVersion: 'v1',
    name: counter.name,
    countText(text) {
      const tokens = counter.countText(text);
      if (typeof tokens === 'number' && tokens >= 0) return tokens;
      throw new CompactError(
        `counter ${counter.name}: countText returned ${String(tokens)}, not a number ≥ 0`,
        {
          code: 'INVALID_OPTIONS',
          path: 'counter',
        },
      );
    },
  };
}
