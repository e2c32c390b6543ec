import {
  fingerprintMessage,
  fingerprintMessages,
  requestKey,
  startsWithFingerprints,
} from '../_internal/fingerprint.js';
import type { AnchoredCounterState } from '../archive/session-state-store.js';
import { CompactError } from '../model/errors.js';
import {
  type Message,
  type ProviderUsage,
  promptTokensFromUsage,
  type SystemPrompt,
} from '../model/messages.js';
import type { ToolDefinition } from '../model/request.js';
import { createIncrementalCounter } from './incremental-counter.js';
import type { TokenCounter } from './token-counter.js';
import { countToolTokens } from './tool-tokens.js';

/** Options of {@link createAnchoredCounter}. */
export interface AnchoredCounterOptions {
  /** Counts the text locally (a BPE counter from `agent-compact/tokenizer`, or the heuristic). */
  counter: TokenCounter;
  /**
   * How much of the learned ratio carries over to the next report, between 0 (only the latest
   * report counts) and 1 (every report counts forever).
   * @default 0.8
   */
  decay?: number;
  /**
   * The lowest and highest calibration ratio (provider tokens per local token) accepted. Two
   * modern tokenizers rarely differ by more than a factor of two on the same text; a report
   * outside this range is clamped into it.
   * @default [0.5, 2]
   */
  ratioRange?: readonly [min: number, max: number];
}

/** What an {@link AnchoredCounter} has learned so far. */
export interface AnchoredCalibration {
  /** Provider tokens per local token for newly added messages (1 until two successive reports). */
  deltaRatio: number;
  /** Provider tokens per local token for a whole request (1 before the first report). */
  overallRatio: number;
  /** Provider prompt tokens of the anchored request, or undefined before the first report. */
  anchorTokens: number | undefined;
  /** How many reports have been observed since the last reset. */
  reports: number;
}

/** A counter anchored to the provider's reported usage; see {@link createAnchoredCounter}. */
export interface AnchoredCounter {
  /** The name of the local counter, prefixed with `anchored-`. */
  readonly name: string;
  /** The estimated prompt tokens of a request with these messages, system prompt and tools. */
  count(messages: readonly Message[], system?: SystemPrompt, tools?: readonly ToolDefinition[]): number;
  /** The local count of the same request, before any calibration. */
  countLocal(messages: readonly Message[], system?: SystemPrompt, tools?: readonly ToolDefinition[]): number;
  /** Records the usage the provider reported for a request with these messages, system prompt and tools. */
  observe(
    usage: ProviderUsage,
    messages: readonly Message[],
    system?: SystemPrompt,
    tools?: readonly ToolDefinition[],
  ): void;
  /** What was learned so far. */
  calibration(): AnchoredCalibration;
  /** What was learned so far as plain JSON (the anchor by content fingerprints), for a state store. */
  toState(): AnchoredCounterState;
  /**
   * Continues from a state {@link AnchoredCounter.toState} wrote, possibly in another process: the
   * anchor is recognised by the fingerprints of the messages the next request starts with.
   */
  restoreState(state: AnchoredCounterState): void;
  /** Forgets the anchor and everything learned. */
  reset(): void;
}

interface Anchor {
  /** The anchored messages; undefined for an anchor restored from a state until a request matches it. */
  messages: readonly Message[] | undefined;
  /** Their fingerprints: known for a restored anchor, computed on demand otherwise. */
  fingerprints: readonly string[] | undefined;
  system: SystemPrompt | undefined;
  /** Fingerprint of the system prompt plus the tools' token count (see {@link requestKey}). */
  key: string | undefined;
  toolTokens: number;
  providerTokens: number;
  localTokens: number;
}

/**
 * A token counter anchored to the provider's own numbers. Local counters are estimates (the
 * provider's tokenizer is another one, and the provider adds tokens for tools and formatting that
 * no local count sees); the usage a provider reports for a request is exact. This counter keeps
 * that exact number and counts only what was added since.
 *
 * The math, with `P(r)` the prompt tokens the provider reported for request `r` (Anthropic
 * `input_tokens + cache_creation_input_tokens + cache_read_input_tokens`, OpenAI `prompt_tokens`)
 * and `L(x)` the local count of messages `x` (system prompt included):
 *
 * - After `observe` of request `a` (the anchor), the estimate for a request `n` whose messages
 *   start with all of `a`'s messages (same objects, same system prompt) is
 *   `P(a) + ratio × (L(n) − L(a))`: the exact number plus the scaled local count of the delta.
 * - `ratio` (the delta ratio) is learned from successive reports. When request `b` extends anchor
 *   `a`, the sample is `(P(b) − P(a)) / (L(b) − L(a))`, clamped to `ratioRange`. Samples are
 *   averaged weighted by their local delta, with older ones decaying:
 *   `S ← decay·S + sample·(L(b) − L(a))`, `W ← decay·W + (L(b) − L(a))`, `ratio = S / W`, so one
 *   short message (a noisy sample) moves the ratio little and a big tool result a lot. Until the
 *   first sample, `ratio` is 1: the local count of new content is trusted as it is. (The overall
 *   ratio would be a worse guess: it includes the tokens the provider adds for tool definitions
 *   and formatting, which can double it on a short conversation.)
 * - The overall ratio is `P(a) / L(a)` of the latest report, clamped to `ratioRange`. When a
 *   request does not extend the anchor (compaction rewrote the history, or the system prompt
 *   changed) the estimate is `overallRatio × L(n)`.
 * - Before any report, the estimate is the local count `L(n)`.
 *
 * Messages are compared by reference, then by content fingerprint (a client that sends its history
 * through JSON sends copies), and treated as immutable, as by
 * {@link createIncrementalCounter}, which this counter uses to count locally.
 *
 * @example
 * import type { Message } from 'agent-compact';
 * import { createAnchoredCounter, createHeuristicCounter } from 'agent-compact/counters';
 *
 * const tokens = createAnchoredCounter({ counter: createHeuristicCounter() });
 * const messages: Message[] = [{ role: 'user', content: 'Fix the failing test.' }];
 * // … send the request; the provider answers with usage …
 * tokens.observe({ input_tokens: 812, cache_read_input_tokens: 0 }, messages);
 * messages.push({ role: 'assistant', content: 'Running the tests.' }, { role: 'user', content: 'ok' });
 * tokens.count(messages); // 812 + ratio × (tokens of the two new messages)
 */
export function createAnchoredCounter({
  counter,
  decay = 0.8,
  ratioRange = [0.5, 2],
}: AnchoredCounterOptions): AnchoredCounter {
  checkOptions(decay, ratioRange);
  const [minRatio, maxRatio] = ratioRange;
  const local = createIncrementalCounter(counter);
  let anchor: Anchor | undefined;
  let learned = nothingLearned();

  const clamp = (ratio: number) => Math.min(maxRatio, Math.max(minRatio, ratio));
  const deltaRatio = () => (learned.weights > 0 ? learned.weightedSamples / learned.weights : 1);

  function countLocal(
    messages: readonly Message[],
    system?: SystemPrompt,
    tools?: readonly ToolDefinition[],
  ): number {
    return local.count(messages, system) + countToolTokens(tools, counter);
  }

  function count(
    messages: readonly Message[],
    system?: SystemPrompt,
    tools?: readonly ToolDefinition[],
  ): number {
    const toolTokens = countToolTokens(tools, counter);
    // Anchor first: it fingerprints copies, so the local count re-tokenizes only what is new.
    const extended = anchor !== undefined && extendsAnchor(anchor, messages, system, toolTokens);
    const localTokens = local.count(messages, system) + toolTokens;
    if (!anchor || !extended) return anchor ? Math.round(learned.overallRatio * localTokens) : localTokens;
    return Math.round(anchor.providerTokens + deltaRatio() * (localTokens - anchor.localTokens));
  }

  function observe(
    usage: ProviderUsage,
    messages: readonly Message[],
    system?: SystemPrompt,
    tools?: readonly ToolDefinition[],
  ): void {
    const providerTokens = promptTokensFromUsage(usage);
    if (providerTokens === undefined || !(providerTokens > 0)) return;
    const toolTokens = countToolTokens(tools, counter);
    const localTokens = local.count(messages, system) + toolTokens;
    if (anchor && extendsAnchor(anchor, messages, system, toolTokens)) {
      const localDelta = localTokens - anchor.localTokens;
      const providerDelta = providerTokens - anchor.providerTokens;
      if (localDelta > 0 && providerDelta > 0)
        addSample(learned, decay, clamp(providerDelta / localDelta), localDelta);
    }
    if (localTokens > 0) learned.overallRatio = clamp(providerTokens / localTokens);
    // The messages are copied (references only) because callers keep pushing onto their array.
    anchor = { ...unkeyedAnchor([...messages], system), toolTokens, providerTokens, localTokens };
    learned.reports++;
  }

  return {
    name: `anchored-${counter.name}`,
    count,
    countLocal,
    observe,
    calibration: () => ({
      deltaRatio: deltaRatio(),
      overallRatio: learned.overallRatio,
      anchorTokens: anchor?.providerTokens,
      reports: learned.reports,
    }),
    toState: () => (anchor ? { ...learned, anchor: anchorToState(anchor) } : { ...learned }),
    restoreState(state) {
      const { overallRatio, weightedSamples, weights, reports } = state;
      learned = { overallRatio, weightedSamples, weights, reports };
      anchor = state.anchor === undefined ? undefined : anchorFromState(state.anchor);
    },
    reset() {
      anchor = undefined;
      learned = nothingLearned();
    },
  };
}

/** What the counter learned from reports, besides the anchor (its state without `anchor`). */
type Learned = Omit<AnchoredCounterState, 'anchor'>;

/** A new anchor's request; its fingerprints and key are computed when first needed. */
function unkeyedAnchor(messages: readonly Message[], system: SystemPrompt | undefined) {
  return { messages, fingerprints: undefined, system, key: undefined };
}

/** One delta-ratio sample, weighted by its local delta; older ones decay. */
function addSample(learned: Learned, decay: number, sample: number, localDelta: number): void {
  learned.weightedSamples = decay * learned.weightedSamples + sample * localDelta;
  learned.weights = decay * learned.weights + localDelta;
}

function nothingLearned(): Learned {
  return { overallRatio: 1, weightedSamples: 0, weights: 0, reports: 0 };
}

function checkOptions(decay: number, [minRatio, maxRatio]: readonly [number, number]): void {
  if (!(decay >= 0 && decay <= 1)) {
    throw new CompactError(`decay must be between 0 and 1, got ${decay}`, { code: 'INVALID_OPTIONS' });
  }
  if (!(minRatio > 0 && minRatio <= maxRatio)) {
    const message = `ratioRange must be [min, max] with 0 < min <= max, got [${minRatio}, ${maxRatio}]`;
    throw new CompactError(message, { code: 'INVALID_OPTIONS' });
  }
}

function toolTokensOfKey(key: string): number {
  return Number(key.slice(key.lastIndexOf('+') + 1)) || 0;
}

/**
 * True when `messages`, `system` and tools are the anchored request with messages appended (or
 * unchanged). A restored anchor is matched by fingerprints once, then by reference.
 */
function extendsAnchor(
  current: Anchor,
  messages: readonly Message[],
  system: SystemPrompt | undefined,
  toolTokens: number,
): boolean {
  if (current.messages === undefined) return adoptRestoredAnchor(current, messages, system, toolTokens);
  if (toolTokens !== current.toolTokens || !sameSystem(system, current.system)) return false;
  if (messages.length < current.messages.length) return false;
  let copies = false;
  for (let index = 0; index < current.messages.length; index++) {
    const message = messages[index]!;
    if (message === current.messages[index]) continue;
    // A client that sends the history back through JSON (a proxy, another process) sends copies:
    // equal content is the same request. Fingerprints are computed only when references differ.
    current.fingerprints ??= fingerprintMessages(current.messages);
    if (fingerprintMessage(message) !== current.fingerprints[index]) return false;
    copies = true;
  }
  // Adopt the copies, so the next counts of this request match by reference again.
  if (copies) current.messages = messages.slice(0, current.messages.length);
  return true;
}

function adoptRestoredAnchor(
  current: Anchor,
  messages: readonly Message[],
  system: SystemPrompt | undefined,
  toolTokens: number,
): boolean {
  const fingerprints = current.fingerprints ?? [];
  if (current.key !== requestKey(system, toolTokens) || !startsWithFingerprints(messages, fingerprints))
    return false;
  current.messages = messages.slice(0, fingerprints.length);
  current.system = system;
  return true;
}

/** An anchor as plain JSON: its messages by fingerprint (computed once, then kept). */
function anchorToState(anchor: Anchor): NonNullable<AnchoredCounterState['anchor']> {
  anchor.fingerprints ??= fingerprintMessages(anchor.messages ?? []);
  anchor.key ??= requestKey(anchor.system, anchor.toolTokens);
  return {
    messages: [...anchor.fingerprints],
    system: anchor.key,
    providerTokens: anchor.providerTokens,
    localTokens: anchor.localTokens,
  };
}

/** A restored anchor: matched by fingerprints until a request starts with its messages. */
function anchorFromState(restored: NonNullable<AnchoredCounterState['anchor']>): Anchor {
  return {
    messages: undefined,
    fingerprints: restored.messages,
    system: undefined,
    key: restored.system,
    toolTokens: toolTokensOfKey(restored.system),
    providerTokens: restored.providerTokens,
    localTokens: restored.localTokens,
  };
}

/** True when two system prompts send the same text (block lists are compared block by block). */
function sameSystem(left: SystemPrompt | undefined, right: SystemPrompt | undefined): boolean {
  if (left === right) return true;
  if (!Array.isArray(left) || !Array.isArray(right) || left.length !== right.length) return false;
  return left.every((block, index) => block.text === right[index]?.text);
}
