import { archiveKey } from './_internal/archive-ids.js';
import type { ArchiveItem, ArchiveStore } from './archive/archive-store.js';
import { type BackgroundDecision, decideBackground } from './background-hard.js';
import type { CompactResult, MaybeCompactOptions } from './compactor-options.js';
import type { CompactorSettings } from './compactor-settings.js';
import type { Message } from './conversation/types.js';
import { CompactError } from './errors.js';
import type { CompactionEvent, CompactionLayer } from './events.js';
import { type HardLedger, latestHumanRequest, planHard } from './layers/hard.js';
import type { LayerPlan, RewriteContext } from './layers/mask.js';
import { type MicroSettings, planMicro } from './layers/micro.js';
import { planMid } from './layers/mid.js';
import { planAfterProviderCompaction, splitAtProviderCompaction } from './layers/provider-compaction.js';
import { renderLedger } from './ledger/render-ledger.js';
import { recallLastOutput, type SessionRuntime, sentRequest } from './session-runtime.js';
import { countMessageTokens, countSystemTokens } from './tokens/message-tokens.js';
import { countToolTokens } from './tokens/tool-tokens.js';

/** Which layers a call tries, in order; see {@link chooseLayer}. */
export type LayerChoice =
  /** Micro only (under the mid threshold, or over it with the mid gate closed). */
  | 'micro'
  /** Mid when its plan frees enough, otherwise micro. */
  | 'mid-or-micro'
  /** Over the hard threshold: mid when it gets the request under the mid threshold, otherwise hard. */
  | 'mid-or-hard'
  /** Forced mid (even over the hard threshold), micro when mid has nothing to do. */
  | 'forced-mid'
  /** Forced or needed hard. */
  | 'hard';

/**
 * The layers to try, as a pure function of the request's tokens, the thresholds, `force` and the
 * mid gate (whether the index estimates mid could free a cache-aware batch). `force` wins.
 */
export function chooseLayer({
  tokens,
  limits,
  force,
  midGateOpen,
}: {
  tokens: number;
  limits: { mid: number; hard: number };
  force: MaybeCompactOptions['force'];
  midGateOpen: boolean;
}): LayerChoice {
  if (force === 'hard') return 'hard';
  if (force === 'mid') return 'forced-mid';
  if (tokens > limits.hard) return 'mid-or-hard';
  if (tokens > limits.mid && midGateOpen) return 'mid-or-micro';
  return 'micro';
}

/** One layer that changed the history. */
interface AppliedStep {
  layer: Exclude<CompactionLayer, 'none'>;
  plan: LayerPlan;
  durationMs: number;
  /** Pending results of the index the step masked (micro only). */
  consumed: number;
  /** Results the step replaced with a pointer to a newer copy (micro only). */
  superseded?: string[];
}

/** What a turn needs besides the runtime: the fixed settings, the archive and the event sink. */
export interface TurnEnvironment {
  settings: CompactorSettings;
  archive: ArchiveStore;
  emit: (event: CompactionEvent) => void;
  /** Saves the runtime's state (a no-op without a state store); may throw `STATE_CONFLICT`. */
  persist: () => Promise<void>;
}

/**
 * One call of `maybeCompact`: count → choose the layers → plan → archive once → one
 * `compaction-start`/`compaction-end` pair per layer that changed something → remember the output.
 */
export async function compactTurn(
  input: readonly Message[],
  options: MaybeCompactOptions,
  runtime: SessionRuntime,
  environment: TurnEnvironment,
): Promise<CompactResult> {
  const { settings } = environment;
  const { system, tools, usage, force, now = Date.now() } = options;
  const previous = recallLastOutput(runtime, input, { system, tools }, settings);
  if (usage && previous) runtime.tokens.observe(usage, previous.messages, previous.system, previous.tools);
  const tokensBefore = runtime.tokens.count(input, system, tools);
  // The whole prompt is counted; the layers plan only on what follows a provider compaction.
  const { rest } = splitAtProviderCompaction(input);
  runtime.index.sync(rest);
  if (previous) runtime.ledger.resume(splitAtProviderCompaction(previous.messages).rest);
  runtime.ledger.sync(rest);
  // A forced layer is an explicit request (`force` wins); the automatic path refuses at once.
  if (tokensBefore > settings.limits.hard && force === undefined)
    assertFixedPartFits(input, options, runtime, settings);

  // When the prompt cache has expired anyway there is no prefix to keep: no batching this call.
  const cacheExpired =
    runtime.lastCallAt !== undefined && now - runtime.lastCallAt > settings.cacheTtlSeconds * 1000;
  const micro = cacheExpired ? { ...settings.micro, cacheAware: false } : settings.micro;
  // A whole mid plan walks the history: between the thresholds, make one only when the index
  // estimates it could free a cache-aware batch.
  const betweenThresholds = tokensBefore > settings.limits.mid && tokensBefore <= settings.limits.hard;
  const midGateOpen =
    betweenThresholds &&
    (!micro.cacheAware || runtime.index.estimateMidFreed(settings.mid.keepToolResults) >= micro.clearAtLeast);
  const choice = chooseLayer({ tokens: tokensBefore, limits: settings.limits, force, midGateOpen });
  const context = rewriteContext(runtime, settings);
  const startSummary = async () =>
    (await hardStep(input, options, runtime, environment, context, tokensBefore))?.plan;
  const decide = () => decideBackground(input, tokensBefore, runtime, settings, startSummary);
  const background = force ? ({ kind: 'none' } as const) : await decide();
  const backgroundPlanned =
    background.kind === 'none'
      ? undefined
      : await backgroundSteps(background, decide, input, options, runtime, environment, context);
  const { steps, previousTokensAfter } = backgroundPlanned
    ? { steps: backgroundPlanned, previousTokensAfter: undefined }
    : await planLayers(choice, input, options, runtime, { ...environment, micro }, context, tokensBefore);

  const last = steps[steps.length - 1];
  const output = last?.plan.messages ?? input;
  const items = steps.flatMap((step) => step.plan.items);
  const layer = last?.layer ?? 'none';
  const sizes = measureSteps(steps, input, options, tokensBefore, runtime);
  const tokensAfter = sizes[sizes.length - 1]?.after ?? tokensBefore;
  if (previousTokensAfter !== undefined) assertFitsWithoutHard(tokensAfter, previousTokensAfter, settings);
  assertFitsWindow(layer, tokensAfter, settings);
  // The runtime moves to the output, the state is saved, then the originals are archived: a state
  // save that finds the session moved (or a failed write) leaves nothing archived under stale ids.
  commitIndex(runtime, steps, output);
  if (steps.length > 0) runtime.ledger.adopt(splitAtProviderCompaction(output).rest);
  runtime.lastOutput = { messages: output, length: output.length, system, tools };
  runtime.restoredLastOutput = undefined;
  // A swapped-in background summary keeps the messages added since it started: the breaker (which
  // stops hard summarizing twice in a row to no effect) is about foreground summaries only.
  runtime.hardOnLastCall = layer === 'hard' && background.kind === 'none';
  runtime.lastCallAt = now;
  await environment.persist();
  await storeItems(environment.archive, runtime, items);
  emitSteps(steps, sizes, environment);
  return {
    // The same array as the input when nothing changed (the caller's own array, so not readonly).
    messages: output as Message[],
    layer,
    tokensBefore,
    tokensAfter,
    archived: items.map((item) => item.id),
  };
}

/**
 * The steps of a call with a background summary on its way or ready: none while it is on its way,
 * the swap when it is ready; over the hard threshold, mid when it gets the request back under it,
 * else the swap once the summary arrives. Undefined when the summary failed: the usual layers run.
 */
async function backgroundSteps(
  decision: Exclude<BackgroundDecision, { kind: 'none' }>,
  decide: () => Promise<BackgroundDecision>,
  input: readonly Message[],
  options: MaybeCompactOptions,
  runtime: SessionRuntime,
  { settings }: TurnEnvironment,
  context: RewriteContext,
): Promise<AppliedStep[] | undefined> {
  const swap = (plan: LayerPlan): AppliedStep[] => [{ layer: 'hard', plan, durationMs: 0, consumed: 0 }];
  switch (decision.kind) {
    case 'hold':
      return [];
    case 'swap':
      return swap(decision.plan);
    case 'over-hard': {
      const started = Date.now();
      const plan = await planAfterProviderCompaction(input, (rest) =>
        planMid(rest, settings.mid, settings.counter, context, options.signal),
      );
      const after = runtime.tokens.count(plan.messages, options.system, options.tools);
      if (plan.items.length > 0 && after <= (settings.background?.limit ?? settings.limits.hard)) {
        return [{ layer: 'mid', plan, durationMs: Date.now() - started, consumed: 0 }];
      }
      await decision.done;
      const next = await decide();
      return next.kind === 'swap' ? swap(next.plan) : undefined;
    }
    default: {
      const exhaustive: never = decision;
      return exhaustive;
    }
  }
}

/** The steps that changed something, in order, and the breaker's reading when it kept hard from running. */
interface PlannedLayers {
  steps: AppliedStep[];
  previousTokensAfter?: number;
}

/** Runs the planners `choice` names. */
async function planLayers(
  choice: LayerChoice,
  input: readonly Message[],
  options: MaybeCompactOptions,
  runtime: SessionRuntime,
  environment: TurnEnvironment & { micro: MicroSettings },
  context: RewriteContext,
  tokensBefore: number,
): Promise<PlannedLayers> {
  const { settings, micro: microSettings } = environment;
  const micro = async (): Promise<AppliedStep[]> => {
    const started = Date.now();
    const plan = await planAfterProviderCompaction(input, (rest) =>
      planMicro(rest, runtime.index, microSettings, context),
    );
    if (!plan) return [];
    const { consumed, superseded } = plan;
    return [{ layer: 'micro', plan, durationMs: Date.now() - started, consumed, superseded }];
  };
  const mid = async (): Promise<AppliedStep> => {
    const started = Date.now();
    const plan = await planAfterProviderCompaction(input, (rest) =>
      planMid(rest, settings.mid, settings.counter, context, options.signal),
    );
    return { layer: 'mid', plan, durationMs: Date.now() - started, consumed: 0 };
  };
  switch (choice) {
    case 'micro':
      return { steps: await micro() };
    case 'forced-mid':
    case 'mid-or-micro': {
      const step = await mid();
      const gated = choice === 'mid-or-micro' && microSettings.cacheAware;
      const { items, freedTokens } = step.plan;
      const passes = items.length > 0 && (!gated || freedTokens >= microSettings.clearAtLeast);
      return { steps: passes ? [step] : await micro() };
    }
    case 'mid-or-hard': {
      // Condensing is enough when it gets back under mid (so it does not fire again next call).
      const step = await mid();
      const after = runtime.tokens.count(step.plan.messages, options.system, options.tools);
      if (step.plan.items.length > 0 && after <= settings.limits.mid) return { steps: [step] };
      const previousTokensAfter = openBreaker(runtime, settings.limits);
      if (previousTokensAfter !== undefined) {
        const { mid: midLimit } = settings.limits;
        environment.emit({ type: 'circuit-breaker-open', tokensBefore, previousTokensAfter, mid: midLimit });
        return { steps: step.plan.items.length > 0 ? [step] : await micro(), previousTokensAfter };
      }
      return { steps: present(await hardStep(input, options, runtime, environment, context, tokensBefore)) };
    }
    case 'hard':
      // Forced (the model called `compact`): the breaker guards only the automatic path.
      return { steps: present(await hardStep(input, options, runtime, environment, context, tokensBefore)) };
    default: {
      const exhaustive: never = choice;
      return exhaustive;
    }
  }
}

/** The hard step, unless the circuit breaker is open; undefined when hard would free nothing. */
async function hardStep(
  input: readonly Message[],
  options: MaybeCompactOptions,
  runtime: SessionRuntime,
  environment: TurnEnvironment,
  context: RewriteContext,
  tokensBefore: number,
): Promise<AppliedStep | undefined> {
  const { settings, emit } = environment;
  const { system, tools, focus, signal } = options;
  const started = Date.now();
  // Summaries take seconds: say so before, not after.
  emit({ type: 'compaction-start', layer: 'hard', tokensBefore });
  const plan = await planAfterProviderCompaction(input, (rest, whole) =>
    planHard(rest, {
      settings: settings.hard,
      counter: settings.counter,
      rewrite: context,
      rule: settings.rule,
      countTokens: (messages) => runtime.tokens.countLocal(whole(messages), system, tools),
      // The kept turn's results are fresh (the model has not read them): masked only when the
      // request would not fit under the hard threshold otherwise.
      maxTokens: settings.limits.hard,
      ...ledgerFor(runtime, settings),
      ...(system === undefined ? {} : { system }),
      ...(focus ? { focus } : {}),
      ...(signal ? { signal } : {}),
    }),
  );
  for (const event of plan?.events ?? []) emit(event);
  // Honest sizes: a "compaction" whose request grew (a history that is only the latest request) is dropped.
  if (!plan || plan.freedTokens <= 0) {
    const durationMs = Date.now() - started;
    emit({
      type: 'compaction-end',
      layer: 'hard',
      tokensBefore,
      tokensAfter: tokensBefore,
      archived: 0,
      durationMs,
    });
    return undefined;
  }
  return { layer: 'hard', plan, durationMs: Date.now() - started, consumed: 0 };
}

/**
 * The circuit breaker: the tokens the previous call's hard compaction left, counted now (with the
 * provider's report when there is one), when that call ran hard and did not get under the mid
 * threshold — summarizing again on this call would not help. Undefined when the breaker is closed.
 */
function openBreaker(runtime: SessionRuntime, limits: { mid: number }): number | undefined {
  const previous = sentRequest(runtime.lastOutput);
  if (!runtime.hardOnLastCall || !previous) return undefined;
  const previousTokensAfter = runtime.tokens.count(previous.messages, previous.system, previous.tools);
  return previousTokensAfter > limits.mid ? previousTokensAfter : undefined;
}

/**
 * With the breaker open, the request goes out without a hard compaction when it still fits the
 * model's window less the reserved output; over it, `CONTEXT_OVERFLOW`, before anything is
 * archived. Without `contextWindow` the thresholds are all the compactor knows, and being over
 * hard does not mean the provider will refuse the request: it goes out.
 */
function assertFitsWithoutHard(
  tokensAfter: number,
  previousTokensAfter: number,
  settings: CompactorSettings,
): void {
  const { contextWindow, reserveOutputTokens, limits } = settings;
  if (contextWindow === undefined || tokensAfter <= contextWindow - reserveOutputTokens) return;
  throw new CompactError(
    `the hard compaction of the previous call left ${previousTokensAfter} tokens, over the mid threshold of ${limits.mid}, so summarizing again would not help, and the request (${tokensAfter} tokens) does not fit the window of ${contextWindow} less ${reserveOutputTokens} reserved. Shorten the system prompt, tools or latest request`,
    { code: 'CONTEXT_OVERFLOW' },
  );
}

/**
 * Throws `CONTEXT_OVERFLOW` at once when what compaction cannot touch — the system prompt, the
 * tool definitions and the latest human request — is alone over the hard threshold.
 */
function assertFixedPartFits(
  input: readonly Message[],
  { system, tools }: MaybeCompactOptions,
  runtime: SessionRuntime,
  settings: CompactorSettings,
): void {
  const { counter, limits } = settings;
  const request = latestHumanRequest(input);
  const ratio = runtime.tokens.calibration().overallRatio;
  const scale = (tokens: number) => Math.round(ratio * tokens);
  const systemTokens = scale(countSystemTokens(system, counter));
  const toolTokens = scale(countToolTokens(tools, counter));
  const requestTokens = request ? scale(countMessageTokens({ role: 'user', content: request }, counter)) : 0;
  const fixed = systemTokens + toolTokens + requestTokens;
  if (fixed <= limits.hard) return;
  throw new CompactError(
    `the system prompt (${systemTokens} tokens), tool definitions (${toolTokens}) and latest request (${requestTokens}) add up to ${fixed} tokens, over the hard threshold of ${limits.hard}; compaction cannot remove any of them`,
    { code: 'CONTEXT_OVERFLOW' },
  );
}

function assertFitsWindow(layer: CompactionLayer, tokensAfter: number, settings: CompactorSettings): void {
  const { contextWindow, reserveOutputTokens } = settings;
  if (layer !== 'hard' || contextWindow === undefined || tokensAfter <= contextWindow - reserveOutputTokens)
    return;
  throw new CompactError(
    `after a hard compaction the context still has ${tokensAfter} tokens, over the window of ${contextWindow} less ${reserveOutputTokens} reserved; the system prompt or the latest request alone is too large`,
    { code: 'CONTEXT_OVERFLOW' },
  );
}

async function storeItems(
  archive: ArchiveStore,
  runtime: SessionRuntime,
  items: ArchiveItem[],
): Promise<void> {
  if (items.length === 0) return;
  try {
    await archive.put(items);
  } catch (error) {
    throw new CompactError(`archiving ${items.length} item(s) failed; the context was left unchanged`, {
      code: 'ARCHIVE_FAILED',
      cause: error,
    });
  }
  runtime.ids.markStored(items);
}

/** Brings the index to the output: micro alone rewrote in place; other layers moved messages. */
function commitIndex(
  runtime: SessionRuntime,
  steps: readonly AppliedStep[],
  output: readonly Message[],
): void {
  const [only] = steps;
  // Nothing changed: the index was brought up to date with the input at the start of the call.
  if (only === undefined) return;
  const { rest } = splitAtProviderCompaction(output);
  if (steps.length === 1 && only.layer === 'micro') {
    runtime.index.consumePending(only.consumed);
    runtime.index.markSuperseded(only.superseded ?? []);
    runtime.index.adopt(rest);
  } else {
    runtime.index.sync(rest);
  }
}

/** Tokens before and after each step (see {@link measureSteps}). */
interface StepSizes {
  before: number;
  after: number;
}

/**
 * The tokens before and after each step. Sizes are honest: the provider-anchored count
 * before, less what the step freed by the local count (measured, not estimated) scaled by the
 * calibrated ratio, so before and after are counted the same way.
 */
function measureSteps(
  steps: readonly AppliedStep[],
  input: readonly Message[],
  { system, tools }: MaybeCompactOptions,
  tokensBefore: number,
  runtime: SessionRuntime,
): StepSizes[] {
  const ratio = runtime.tokens.calibration().overallRatio;
  const sizes: StepSizes[] = [];
  let tokens = tokensBefore;
  let local = steps.length === 0 ? 0 : runtime.tokens.countLocal(input, system, tools);
  for (const step of steps) {
    const before = tokens;
    const localAfter = runtime.tokens.countLocal(step.plan.messages, system, tools);
    tokens = Math.max(0, before - Math.round(ratio * (local - localAfter)));
    local = localAfter;
    sizes.push({ before, after: tokens });
  }
  return sizes;
}

/** One start/end pair per step; hard announced its start before its summary. */
function emitSteps(
  steps: readonly AppliedStep[],
  sizes: readonly StepSizes[],
  { emit }: TurnEnvironment,
): void {
  for (const [index, { layer, plan, durationMs }] of steps.entries()) {
    const { before, after } = sizes[index]!;
    if (layer !== 'hard') emit({ type: 'compaction-start', layer, tokensBefore: before });
    emit({
      type: 'compaction-end',
      layer,
      tokensBefore: before,
      tokensAfter: after,
      archived: plan.items.length,
      durationMs,
    });
  }
}

function rewriteContext(runtime: SessionRuntime, settings: CompactorSettings): RewriteContext {
  return {
    ids: runtime.ids,
    sessionId: settings.sessionId,
    now: Date.now(),
    toolUse: (id) => runtime.index.toolUse(id),
  };
}

/** The ledger as the hard layer reads it (none when its budget is 0). */
function ledgerFor(runtime: SessionRuntime, settings: CompactorSettings): { ledger?: HardLedger } {
  const { ledgerTokens } = settings.hard;
  if (ledgerTokens <= 0) return {};
  const state = runtime.ledger.state;
  const recallOf = (toolUseId: string) => runtime.ids.storedId(archiveKey('tool-result', toolUseId));
  return {
    ledger: {
      render: (historyId) =>
        renderLedger(state, { maxTokens: ledgerTokens, counter: settings.counter, recallOf, historyId }),
      files: state.files,
    },
  };
}

function present<T>(value: T | undefined): T[] {
  return value === undefined ? [] : [value];
}
