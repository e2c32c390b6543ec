import type { ArchiveStore } from './archive/archive-store.js';
import type { SessionStateStore } from './archive/session-state-store.js';
import type { CompactionEventHandler, CompactionLayer } from './events.js';
import type { Message, ProviderUsage, SystemPrompt } from './model/messages.js';
import type { RequestBody, ToolDefinition } from './model/request.js';
import type { WireFormat } from './model/wire-format.js';
import type { SummaryModel } from './summary/summary-model.js';
import type { TokenCounter } from './tokens/token-counter.js';
import type { CodeParser } from './working-set/code-outline.js';

/** Options of layer 1, micro compaction. */
export interface MicroOptions {
  /**
   * Tool results in the last `keepTurns` assistant turns stay whole.
   * @default 3
   */
  keepTurns?: number;
  /**
   * Results smaller than this many tokens are never masked (the placeholder would save nothing).
   * @default 100
   */
  minTokens?: number;
  /** Tools whose results are never masked. @default [] */
  excludeTools?: readonly string[];
  /**
   * Supersede before masking: a tool result a later one made stale — a file read again, a file
   * read and then rewritten whole, the same command with byte-identical output — becomes a
   * placeholder pointing at the newer copy, whatever its age (with `cacheAware`, in the same
   * batches). The newest copy is never replaced for this reason.
   * @default true
   */
  supersede?: boolean;
  /**
   * Advance the masking frontier in batches so the prompt prefix stays byte-identical between
   * batches and the provider's prompt cache survives. `false` masks every turn, as the seed does.
   * @default true
   */
  cacheAware?: boolean;
  /**
   * With `cacheAware`, micro and mid change the history only once a batch frees at least this
   * many tokens: each change rewrites the cached prompt prefix, so fewer, larger batches are
   * cheaper (measured on the shared runs: CHANGELOG.md, 2026-12-01).
   * @default 5/8 of the mid threshold, at most 20,000
   */
  clearAtLeast?: number;
  /**
   * Micro masks nothing while the request is under this many tokens, after an expired prompt
   * cache too: with room to spare the agent keeps every result whole, and a short run never pays
   * back the cache a batch rewrites. `0` masks from the first turn.
   * @default half the mid threshold; 0 with `cacheAware: false`
   */
  startAt?: number;
  /**
   * File reads stay whole longer than other results: those of the last `turns` assistant turns,
   * newest first, while they fit in `maxTokens` together and the request, everything else masked,
   * stays a batch (`clearAtLeast`) under the mid threshold. An agent most often edits a file a few
   * calls after reading it, and its edit must match the text exactly. `turns: 0` masks reads by
   * `keepTurns` like any result.
   * @default `{ turns: 10, maxTokens: a tenth of the usable window }`
   */
  keepReads?: { turns?: number; maxTokens?: number };
}

/** Options of layer 2, mid compaction. */
export interface MidOptions {
  /** The newest tool results kept whole. @default 5 */
  keepToolResults?: number;
  /** Older assistant text longer than this many characters is cut to its first sentences. @default 600 */
  maxAssistantChars?: number;
  /** `tool_use` inputs larger than this many tokens are elided and archived. @default 500 */
  maxToolInputTokens?: number;
  /** When set, a summary model condenses older assistant turns instead of cutting them. */
  summarizer?: SummaryModel;
}

/** Options of layer 3, hard compaction. */
export interface HardOptions {
  /** Upper bound of the summary's length in tokens. @default 2000 */
  maxSummaryTokens?: number;
  /** Tries of the summary model before the extractive fallback. @default 3 */
  maxAttempts?: number;
  /** First retry delay in milliseconds, doubled each try. @default 500 */
  retryDelayMs?: number;
  /** A summary call that takes longer is aborted. @default 120000 */
  timeoutMs?: number;
  /**
   * Budget in tokens of the session ledger: the facts the compactor records from the tool calls
   * and the user's messages (files read and changed, commands with exit status and first error
   * line, the plan or todo list verbatim, every message the user typed), sent after the summary
   * in a `<session_ledger>` block and given to a model summarizer as ground truth. Over budget,
   * the oldest successful commands and files read go first. `0` turns the ledger off.
   * @default a fortieth of the usable window (of the window the hard threshold implies, if smaller),
   * at least 2600: 4,795 at a 200k window (BENCHMARKS.md, sections 9 and 11)
   */
  ledgerTokens?: number;
  /**
   * Budget in tokens of the working set: the code the agent worked on, recorded by the compactor
   * from its tool calls — for each file it edited, the definitions its edits created or changed
   * (signature and line) and the text of its latest edits; for each file it read, an outline of
   * its definitions; for each search, where the symbol was found. Ranked by recency and by how
   * often the agent used each name since; sent after the ledger in a `<working_set>` block and
   * given to a model summarizer as ground truth. It outlives every hard compaction. Parsed by
   * `codeParser` when given, else by the core's lexer. `0` leaves it out.
   * @default a fortieth of the usable window (of the window the hard threshold implies, if
   * smaller), at least 1200: 4,795 at a 200k window
   */
  workingSetTokens?: number;
  /**
   * After the summary, the files the agent is working on go back in `<file>` blocks, up to
   * `maxFiles` files and `maxTokens` tokens in all, so it need not read them again: each in its
   * current text (its last whole Read or Write in the history with the later edits applied),
   * edited files first, newest first, then files it only read. A file too large for what is left
   * goes back as the regions around its latest edits (`lines="…"` says which); a file the kept turn
   * shows, or whose text the history does not hold, is skipped. `maxFiles: 0` turns it off.
   * @default `{ maxFiles: 5, maxTokens }`, `maxTokens` a twelfth of the usable window up to 10,000,
   * a twentieth of a larger one, at least 2,000 (10,000 at a 200k window)
   */
  filesBack?: { maxFiles?: number; maxTokens?: number };
  /**
   * The turn a hard compaction keeps (the last call and the results answering it, which the model
   * has not read yet) goes out byte for byte up to this many tokens in all. A larger turn has each
   * large part cut to an equal share of it: a tool result to its head and tail, with a note naming
   * the archive item that holds all of it (`recall` returns it), the large fields of a call input
   * elided (the model wrote them; the file is on disk). `Infinity` keeps the turn verbatim always.
   * @default a quarter of the usable window (`contextWindow` less `reserveOutputTokens`; without a
   * window, the hard threshold / 0.85)
   */
  keptTurnTokens?: number;
  /**
   * Summarize in the background: when the request passes `backgroundThreshold`, the summary of the
   * history so far starts while the agent keeps working, and the first call after it is ready swaps
   * it in — the summary covers the messages up to where it started, later messages follow it
   * verbatim. Only a request over `backgroundLimit` before the summary is ready waits for it.
   * Micro and mid do not run while a summary is on its way (it replaces what they would change).
   * @default false
   */
  background?: boolean;
  /**
   * With `background`, the request size in tokens at which the summary starts (when mid could not
   * bring the request back under it).
   * @default the hard threshold
   */
  backgroundThreshold?: number;
  /**
   * With `background`, the request size in tokens above which a call waits for the summary on its
   * way (after mid could not bring it back under). Between the hard threshold and this size the
   * agent keeps working while the summary is written.
   * @default the hard threshold plus the span from mid to hard, at most the usable window
   */
  backgroundLimit?: number;
}

/** Options of {@link createCompactor}. */
export interface CompactorOptions {
  /**
   * Token thresholds: the seed's 50,000 / 80,000, or fractions of `contextWindow` when that is set.
   * @default { mid: 50_000, hard: 80_000 }
   */
  thresholds?: { mid?: number; hard?: number };
  /** The model's context window; thresholds become fractions of it less `reserveOutputTokens`. */
  contextWindow?: number;
  /** Tokens kept free for the answer when thresholds come from `contextWindow`. @default 8192 */
  reserveOutputTokens?: number;
  /** Fractions of the usable window for mid and hard. @default { mid: 0.6, hard: 0.85 } */
  thresholdFractions?: { mid?: number; hard?: number };
  /** Counts tokens. @default the zero-dependency heuristic counter */
  counter?: TokenCounter;
  /** Where removed content goes. @default an in-memory store */
  archive?: ArchiveStore;
  /** The session's id in the archive and the state store. @default a random id */
  sessionId?: string;
  /**
   * Where the compactor keeps its own state between calls (ids handed out, the token counter's
   * calibration, the circuit breaker, fingerprints of the last output). With a shared store and a
   * shared `archive`, a session can move to another process and compact exactly as if it had
   * stayed: the compactor loads the state on its first call and saves it after every call; a save
   * that finds the state moved (`STATE_CONFLICT`) loads it again and runs the call again.
   * @default none: the state lives only in this compactor
   */
  stateStore?: SessionStateStore;
  /** The model that writes hard summaries. @default the extractive (offline) summarizer */
  summarizer?: SummaryModel;
  /**
   * Whether the model can bring archived content back with the `recall` tool. `false` keeps every
   * archive id out of what the compactor writes for the model — placeholders, the summary head,
   * the session ledger and the default `identity` — while everything is still archived under its
   * id (for `rebuildConversation`, `handleRecall` and the CLI's `recall`). The proxy sets it when
   * it runs without `--recall`.
   * @default true
   */
  recall?: boolean;
  /**
   * The `<identity>` reminder injected after a hard compaction: who the agent is, its tools, rules.
   * @default 'You are the same agent as before this summary, with the same tools and instructions. The
   * summary above replaces the earlier conversation; archived tool results can be brought back with
   * the recall tool by id.' (without `recall`, the same up to "conversation.")
   */
  identity?: string;
  /**
   * The provider's prompt-cache lifetime in seconds. A call more than this long after the previous
   * one finds the cache expired, so micro and mid change what they would change next without
   * waiting for a `clearAtLeast` batch: there is no cached prefix left to keep.
   * @default 300 (Anthropic's 5-minute cache)
   */
  cacheTtlSeconds?: number;
  /**
   * Outlines the code the agent read and edited for the working set (`hard.workingSetTokens`):
   * `await createTreeSitterCodeParser()` from `agent-compact/code-parser` parses TypeScript,
   * JavaScript, Python, Go, Rust, Java, C, C++, C#, Ruby, PHP, Kotlin and Swift with tree-sitter.
   * @default the core's lexer (regular expressions per language)
   */
  codeParser?: CodeParser;
  micro?: MicroOptions;
  mid?: MidOptions;
  hard?: HardOptions;
  /** Receives compaction events. */
  onEvent?: CompactionEventHandler;
}

/** Per-call options of `maybeCompact`. */
export interface MaybeCompactOptions {
  /** The system prompt; counted, never changed. */
  system?: SystemPrompt;
  /**
   * The request's tool definitions in any provider shape (Anthropic, OpenAI chat, Responses);
   * counted with the system prompt, never changed.
   */
  tools?: readonly ToolDefinition[];
  /** Usage the provider reported for the previous request; anchors the token count. */
  usage?: ProviderUsage;
  /** Aborts model calls made by the hard layer. */
  signal?: AbortSignal;
  /**
   * The model that writes this call's hard summary instead of the compactor's `summarizer`, e.g. one
   * bound to the request being compacted (the proxy's `same` summarizer borrows each request's
   * provider, model and key). A background summary started by this call keeps it.
   * @default the compactor's `summarizer`
   */
  summarizer?: SummaryModel;
  /** Force a layer, e.g. when the model called the `compact` tool. */
  force?: Exclude<CompactionLayer, 'none' | 'micro'>;
  /** With `force: 'hard'`, what the summary should keep in focus. */
  focus?: string;
  /**
   * The model checks each thinking block it is sent back against everything before it, as it was
   * when the block was produced (Claude's preserved thinking: Claude Fable 5.1 and Claude Opus,
   * Sonnet and Haiku 5.5 on; a changed prefix is a 400 by default). A call that changes the history
   * then leaves out every `thinking` and `redacted_thinking` block from the first message it
   * changed on, as the API asks of client-side compaction; the thinking before it stays.
   * `compactRequest` sets it from the body's `model`.
   * @default false
   */
  preservedThinking?: boolean;
  /**
   * With `preservedThinking`: leave out every thinking block of this call's history, whether or
   * not a layer changes anything. For a history whose thinking may have been written after another
   * prefix than this one, such as a conversation a proxy picks up again after losing its state (the
   * client's copy holds thinking written after the proxy's compacted history).
   * @default false
   */
  resetThinking?: boolean;
  /**
   * When this request is made, in milliseconds since the epoch (a replay passes its own clock).
   * Compared with the previous call's to tell whether the prompt cache expired.
   * @default Date.now()
   */
  now?: number;
}

/** What `maybeCompact` returns. */
export interface CompactResult {
  /** The messages to send. The same array as the input when nothing changed. */
  messages: Message[];
  /** The strongest layer that changed something. */
  layer: CompactionLayer;
  tokensBefore: number;
  tokensAfter: number;
  /** Ids of the items archived by this call. */
  archived: string[];
}

/** A stateful compactor for one session. */
export interface Compactor {
  /** Compacts when needed; pass the messages through it before every model call. */
  maybeCompact(messages: readonly Message[], options?: MaybeCompactOptions): Promise<CompactResult>;
  /**
   * Compacts the conversation of a whole request body (Anthropic Messages, OpenAI Chat
   * Completions) with this compactor's state, and returns the same body with only the
   * conversation and its cache breakpoints changed (at most 4, the Anthropic API's limit), every other
   * field kept in order.
   */
  compactRequest<Body extends object>(
    body: Body,
    options?: CompactRequestOptions,
  ): Promise<CompactRequestResult<Body>>;
  /** The thresholds in force. */
  readonly thresholds: { readonly mid: number; readonly hard: number };
  /** The session's id in the archive. */
  readonly sessionId: string;
  /** The archive store. */
  readonly archive: ArchiveStore;
}

/** Per-call options of `compactRequest`. */
export interface CompactRequestOptions extends Omit<MaybeCompactOptions, 'system' | 'tools'> {
  /** The API the body is written for. @default detected by {@link detectRequestFormat} */
  format?: WireFormat;
}

/** What `compactRequest` returns. */
export interface CompactRequestResult<Body extends object = RequestBody> {
  /** The request to send: the input body itself when nothing changed, else a copy with new messages. */
  body: Body;
  /** The API the body is written for. */
  format: WireFormat;
  /** The strongest layer that changed something. */
  layer: CompactionLayer;
  /** Tokens of the request before compaction (system, tools and messages). */
  tokensBefore: number;
  /** Tokens of the request after compaction. */
  tokensAfter: number;
  /** Ids of the items archived by this call. */
  archived: string[];
}
