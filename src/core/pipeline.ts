import { archiveKey } from './_internal/archive-ids.js';
import { commonPrefixLength } from './_internal/common-prefix.js';
import { continuesSnapshot, jobState, startJob } from './background-hard.js';
import type { CompactResult, MaybeCompactOptions } from './compactor-options.js';
import type { CompactorSettings } from './compactor-settings.js';
import type { CompactionEvent } from './events.js';
import {
  type Attempt,
  accepts,
  type BreakerMemory,
  type BreakerOpen,
  type MeasuredAttempt,
  planTurn,
  type TurnFacts,
  type TurnPlan,
} from './layers/decide-turn.js';
import { type HardContext, type HardLedger, planHard } from './layers/hard.js';
import type { LayerPlan, RewriteContext } from './layers/mask.js';
import { planMicro } from './layers/micro.js';
import { planMid } from './layers/mid.js';
import { type ProviderCompactionSplit, splitAtProviderCompaction } from './layers/provider-compaction.js';
import { sendableOutput, withoutUnboundThinking } from './layers/thinking-after-change.js';
import { renderLedger } from './ledger/render-ledger.js';
import { type Message, type ProviderUsage, promptTokensFromUsage } from './model/messages.js';
import {
  type BackgroundJob,
  type IndexUpdate,
  type RuntimeUpdate,
  recallLastOutput,
  type SentRequest,
  type SessionRuntime,
  sentRequest,
} from './session-runtime.js';
import { countMessageTokens } from './tokens/message-tokens.js';
import { assertFitsWindow, assertFitsWithoutHard, assertFixedPartFits, fixedPart } from './turn-limits.js';
import { type AppliedStep, measureSteps, type StepsToReport } from './turn-report.js';
import { renderWorkingSet } from './working-set/render-working-set.js';

/** What a turn needs besides the runtime: the fixed settings and the event sink. */
export interface TurnEnvironment {
  settings: CompactorSettings;
  emit: (event: CompactionEvent) => void;
}

/** A call's outcome: what to return, how the runtime moves, and what to archive and report once it has. */
export interface TurnOutcome extends StepsToReport {
  result: CompactResult;
  update: RuntimeUpdate;
}

/** One call's inputs, shared by the steps. */
interface Turn {
  input: readonly Message[];
  options: MaybeCompactOptions;
  runtime: SessionRuntime;
  environment: TurnEnvironment;
  context: RewriteContext;
  tokensBefore: number;
  /** The input split at the latest provider compaction: the layers plan only on `rest`. */
  split: ProviderCompactionSplit;
  /** The background job this call continues (undefined when none, or dropped as stale). */
  job: BackgroundJob | undefined;
}

/** What running a step did: the steps that changed something, the job to keep, the breaker's verdict. */
interface StepRun {
  steps: AppliedStep[];
  job: BackgroundJob | undefined;
  /** The background summary was swapped in (not a foreground hard for the breaker). */
  swapped: boolean;
  breaker?: BreakerOpen;
}

/**
 * One call of `maybeCompact`: count → plan ({@link planTurn}) → run its attempts → the outcome.
 * The runtime is only read here (its index, ids and counter are caches that advance as they are
 * read); the compactor applies `update`, saves the state, then calls `archiveAndReport` (`turn-report.ts`).
 */
export async function compactTurn(
  given: readonly Message[],
  options: MaybeCompactOptions,
  runtime: SessionRuntime,
  environment: TurnEnvironment,
): Promise<TurnOutcome> {
  // A history whose thinking may be bound to another prefix goes on without it, summary call included.
  const input = withoutUnboundThinking(given, options);
  const { settings } = environment;
  const { system, tools, usage, force, now = Date.now() } = options;
  const previous = recallLastOutput(runtime, input, { system, tools }, settings);
  if (usage && previous) runtime.tokens.observe(usage, previous.messages, previous.system, previous.tools);
  const overheadTokens =
    usage && previous ? learnedOverhead(usage, previous, runtime) : runtime.breaker.overheadTokens;
  const tokensBefore = runtime.tokens.count(input, system, tools);
  // The whole prompt is counted; the layers plan only on what follows a provider compaction.
  const split = splitAtProviderCompaction(input, runtime.lastOutput?.messages);
  runtime.index.sync(split.rest);
  // The ledger, like the index, is a cache that advances as it reads: it records what is new.
  if (previous) runtime.ledger.resume(splitAtProviderCompaction(previous.messages).rest);
  runtime.ledger.sync(split.rest);
  // A forced layer is an explicit request (`force` wins); the automatic path refuses at once.
  if (tokensBefore > settings.limits.hard && force === undefined)
    assertFixedPartFits(input, options, runtime, settings);
  const job =
    runtime.background && continuesSnapshot(input, runtime.background) ? runtime.background : undefined;
  const context = rewriteContext(runtime, settings, now);
  const turn: Turn = { input, options, runtime, environment, context, tokensBefore, split, job };
  const run = await runPlan(planTurn(turnFacts(turn, now, overheadTokens)), turn, overheadTokens, now);

  const last = run.steps[run.steps.length - 1];
  const output = sendableOutput(input, last?.plan.messages, options);
  const layer = last?.layer ?? 'none';
  const sizes = measureSteps(run.steps, input, options, tokensBefore, runtime);
  const measured = sizes[sizes.length - 1]?.after ?? tokensBefore;
  // Thinking left out after the change counts no more (rare: only models with preserved thinking).
  const tokensAfter =
    output === (last?.plan.messages ?? input) ? measured : runtime.tokens.count(output, system, tools);
  if (run.breaker) assertFitsWithoutHard(tokensAfter, run.breaker, settings);
  assertFitsWindow(layer, tokensAfter, settings);
  const items = run.steps.flatMap((step) => step.plan.items);
  const update: RuntimeUpdate = {
    lastOutput: { messages: output, length: output.length, system, tools },
    lastCallAt: now,
    // The breaker (which stops hard summarizing to no effect) is about foreground summaries only.
    breaker: breakerMemory(runtime, layer === 'hard' && !run.swapped, overheadTokens, tokensAfter),
    background: run.job,
    index: indexUpdate(run.steps, output),
  };
  // The same array as the input when nothing changed (the caller's own array, so not readonly).
  const messages = output as Message[];
  const archived = items.map((item) => item.id);
  const result: CompactResult = { messages, layer, tokensBefore, tokensAfter, archived };
  return { result, update, items, steps: run.steps, sizes };
}

/** The facts {@link planTurn} reads; the breaker's are counted only over the hard threshold. */
function turnFacts(turn: Turn, now: number, overheadTokens: number): TurnFacts {
  const { runtime, environment, options, input, tokensBefore, job } = turn;
  const { settings } = environment;
  const { limits, micro, background } = settings;
  const overHard = tokensBefore > limits.hard;
  const cacheExpired =
    runtime.lastCallAt !== undefined && now - runtime.lastCallAt > settings.cacheTtlSeconds * 1000;
  // The breaker is read over hard, and between the thresholds where an expired cache weighs a summary.
  const weighHard = overHard || (cacheExpired && tokensBefore > limits.mid);
  const fixed = weighHard ? fixedPart(input, options, runtime, settings, 'delta') : undefined;
  return {
    tokens: tokensBefore,
    limits,
    force: options.force,
    micro,
    cacheExpired,
    // Only read over a threshold where a row uses it (the estimate walks the pending results).
    midEstimate:
      tokensBefore > Math.min(limits.mid, background?.threshold ?? limits.mid)
        ? runtime.index.estimateMidFreed(settings.mid.keepToolResults)
        : 0,
    breaker: {
      previousTokensAfter: weighHard ? previousHardTokens(runtime) : undefined,
      floorTokens: fixed ? overheadTokens + fixed.fixed : 0,
      historyTokens: fixed ? historyTokens(input, runtime, fixed.requestTokens) : 0,
      lastHardTokensAfter: weighHard ? runtime.breaker.hardTokensAfter : undefined,
      fitsWindow:
        settings.contextWindow === undefined ||
        tokensBefore <= settings.contextWindow - settings.reserveOutputTokens,
    },
    expiredSummary:
      fixed && !overHard ? expiredSummary(runtime, settings, overheadTokens + fixed.fixed) : undefined,
    background: background && { ...background, job: jobState(job) },
  };
}

/**
 * What a summary would leave and write, for the expired-cache row: the fixed part and the hard
 * layer's budgets (summary, ledger, working set, kept turn, files back), at the learned ratio.
 */
function expiredSummary(runtime: SessionRuntime, settings: CompactorSettings, floorTokens: number) {
  const { maxSummaryTokens, ledgerTokens, workingSetTokens, keptTurnTokens, filesBack } = settings.hard;
  const filesTokens = filesBack.maxFiles > 0 ? filesBack.maxTokens : 0;
  const budgets = maxSummaryTokens + ledgerTokens + workingSetTokens + keptTurnTokens + filesTokens;
  const keptTokens = floorTokens + Math.round(runtime.tokens.calibration().deltaRatio * budgets);
  return { keptTokens, summaryOutputTokens: maxSummaryTokens };
}

/** Runs the plan {@link planTurn} made: hold, swap in, or its attempts in order. */
async function runPlan(plan: TurnPlan, turn: Turn, overheadTokens: number, now: number): Promise<StepRun> {
  // A settled job is swapped in or dropped this call; only one still running is kept.
  const job = jobState(turn.job) === 'running' ? turn.job : undefined;
  switch (plan.kind) {
    case 'hold':
      return {
        steps: [],
        job: plan.start ? startJob(turn.input, async () => (await hardStep(turn))?.plan) : job,
        swapped: false,
      };
    case 'swap-in':
      return { steps: swapIn(turn), job: undefined, swapped: true };
    case 'attempts': {
      const run = await runAttempts(plan.attempts, turn, job);
      if (run.steps.length > 0 || plan.otherwise === 'as-is') return run;
      await job?.done;
      // The job settled: it is ready (swap it in) or failed (the usual layers decide).
      const next = planTurn(turnFacts(turn, now, overheadTokens));
      const waitsAgain = next.kind === 'attempts' && next.otherwise === 'wait';
      return waitsAgain ? run : runPlan(next, turn, overheadTokens, now);
    }
    default: {
      const exhaustive: never = plan;
      return exhaustive;
    }
  }
}

/** Tries the attempts in order, each layer planned once: the first accepted plan is sent. */
async function runAttempts(
  attempts: readonly Attempt[],
  turn: Turn,
  job: BackgroundJob | undefined,
): Promise<StepRun> {
  const planned = new Map<Attempt['layer'], Promise<AppliedStep | undefined>>();
  let breaker: BreakerOpen | undefined;
  for (const attempt of attempts) {
    if (attempt.breaker) {
      breaker = attempt.breaker;
      const { tokensBefore, environment } = turn;
      const { mid } = environment.settings.limits;
      environment.emit({ type: 'circuit-breaker-open', tokensBefore, mid, ...breaker });
    }
    const once = planned.get(attempt.layer) ?? runLayer(attempt, turn);
    planned.set(attempt.layer, once);
    const step = await once;
    if (step && accepts(attempt.accept, measure(turn, step))) return ran([step], job, breaker);
  }
  return ran([], job, breaker);
}

function ran(
  steps: AppliedStep[],
  job: BackgroundJob | undefined,
  breaker: BreakerOpen | undefined,
): StepRun {
  return { steps, job, swapped: false, ...(breaker ? { breaker } : {}) };
}

function runLayer(attempt: Attempt, turn: Turn): Promise<AppliedStep | undefined> {
  switch (attempt.layer) {
    case 'micro':
      return microStep(turn, attempt.cacheAware);
    case 'mid':
      return midStep(turn);
    case 'hard':
      return hardStep(turn);
    default: {
      const exhaustive: never = attempt;
      return exhaustive;
    }
  }
}

/** The micro step; undefined when micro has nothing to clear. */
async function microStep(turn: Turn, cacheAware: boolean): Promise<AppliedStep | undefined> {
  const { split, runtime, environment, context } = turn;
  const settings = { ...environment.settings.micro, cacheAware };
  // Reads kept whole leave micro a batch of room under mid, so they never bring mid on sooner.
  const room = environment.settings.limits.mid - settings.clearAtLeast - turn.tokensBefore;
  const started = Date.now();
  const plan = await planAfterSplit(split, (rest) => planMicro(rest, runtime.index, settings, context, room));
  if (!plan) return undefined;
  const { replaced } = plan;
  return { layer: 'micro', plan, durationMs: Date.now() - started, replaced };
}

async function midStep({ split, options, environment, context }: Turn): Promise<AppliedStep> {
  const { settings } = environment;
  const started = Date.now();
  const plan = await planAfterSplit(split, (rest) =>
    planMid(rest, settings.mid, settings.counter, context, options.signal),
  );
  for (const event of plan.events) environment.emit(event);
  return { layer: 'mid', plan, durationMs: Date.now() - started };
}

/**
 * What {@link accepts} reads of a step's plan. A micro plan is a change by being returned; another
 * by archiving something or freeing tokens: a plan whose originals the archive already holds (the
 * same file compacted again, its first run's archive beside it) stores nothing and is still the
 * same change, not a reason to fall back to micro. The counts walk the request, so they run only
 * when a predicate reads them.
 */
function measure(turn: Turn, step: AppliedStep): MeasuredAttempt {
  const { items, freedTokens } = step.plan;
  return {
    changed: step.layer === 'micro' || items.length > 0 || freedTokens > 0,
    freedTokens,
    rewrittenTokens: () => rewrittenTokens(turn, step),
    tokensAfter: () => tokensAfter(turn, step),
  };
}

/** The request's tokens after the step, on the provider's scale. */
function tokensAfter({ runtime, options, input, tokensBefore }: Turn, step: AppliedStep): number {
  // The request's count less what the step freed: a fresh count of the rewritten request no longer
  // extends the provider's anchor and leaves out the overhead the provider counts (hidden tools),
  // so it would find under mid a request that the next report puts over it again.
  const { system, tools } = options;
  const freed =
    runtime.tokens.countLocal(input, system, tools) -
    runtime.tokens.countLocal(step.plan.messages, system, tools);
  return tokensBefore - runtime.tokens.calibration().deltaRatio * freed;
}

/** The tokens of the request's tail from the first message the step rewrites (what the cache writes again). */
function rewrittenTokens({ input, environment }: Turn, step: AppliedStep): number {
  const { messages } = step.plan;
  let tokens = 0;
  for (const message of input.slice(commonPrefixLength(input, messages)))
    tokens += countMessageTokens(message, environment.settings.counter);
  return tokens;
}

/** The ready background summary, followed by the messages added since it started. */
function swapIn({ job, input }: Turn): AppliedStep[] {
  const plan = job?.outcome && 'plan' in job.outcome ? job.outcome.plan : undefined;
  if (!job || !plan) return [];
  const messages = [...plan.messages, ...input.slice(job.length)];
  return [{ layer: 'hard', plan: { ...plan, messages }, durationMs: 0 }];
}

/** The hard step; undefined when hard would free nothing. */
async function hardStep({
  split,
  options,
  runtime,
  environment,
  context,
  tokensBefore,
}: Turn): Promise<AppliedStep | undefined> {
  const { settings, emit } = environment;
  const { system, tools, focus, signal } = options;
  const started = Date.now();
  // Summaries take seconds: say so before, not after.
  emit({ type: 'compaction-start', layer: 'hard', tokensBefore });
  const plan = await planAfterSplit(split, (rest, whole) =>
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
      ...workingSetFor(runtime, settings),
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
  return { layer: 'hard', plan, durationMs: Date.now() - started };
}

/**
 * Runs a layer's planner on what follows the latest provider compaction and puts the untouched
 * head back in front of the plan's messages. `plan` gets the rest and a function that prefixes
 * the head, for counting a whole request.
 */
async function planAfterSplit<Plan extends LayerPlan | undefined>(
  { head, rest }: ProviderCompactionSplit,
  plan: (
    rest: readonly Message[],
    whole: (part: readonly Message[]) => readonly Message[],
  ) => Plan | Promise<Plan>,
): Promise<Plan> {
  if (head.length === 0) return plan(rest, (part) => part);
  const planned = await plan(rest, (part) => [...head, ...part]);
  return planned && { ...planned, messages: [...head, ...planned.messages] };
}

/** The breaker's memory after this call: a foreground hard records what it left. */
function breakerMemory(
  runtime: SessionRuntime,
  hard: boolean,
  overheadTokens: number,
  tokensAfter: number,
): BreakerMemory {
  const hardTokensAfter = hard ? tokensAfter : runtime.breaker.hardTokensAfter;
  return {
    hardOnLastCall: hard,
    overheadTokens,
    ...(hardTokensAfter === undefined ? {} : { hardTokensAfter }),
  };
}

/**
 * The tokens the previous call's hard compaction left, counted now (with the provider's report
 * when there is one); undefined when the last call did not run hard.
 */
function previousHardTokens(runtime: SessionRuntime): number | undefined {
  const previous = sentRequest(runtime.lastOutput);
  if (!runtime.breaker.hardOnLastCall || !previous) return undefined;
  return runtime.tokens.count(previous.messages, previous.system, previous.tools);
}

/** The messages less the latest request, at the learned ratio of new content (what a summary could free). */
function historyTokens(input: readonly Message[], runtime: SessionRuntime, requestTokens: number): number {
  const { deltaRatio } = runtime.tokens.calibration();
  return Math.max(0, Math.round(deltaRatio * runtime.tokens.countLocal(input)) - requestTokens);
}

/**
 * What the provider counted beyond the messages, system prompt and tools of the request it
 * reported on: its prompt tokens less the local count at the learned ratio. A report without
 * prompt tokens keeps what was learned before.
 */
function learnedOverhead(usage: ProviderUsage, previous: SentRequest, runtime: SessionRuntime): number {
  const providerTokens = promptTokensFromUsage(usage);
  if (providerTokens === undefined || !(providerTokens > 0)) return runtime.breaker.overheadTokens;
  const local = runtime.tokens.countLocal(previous.messages, previous.system, previous.tools);
  return Math.max(0, Math.round(providerTokens - runtime.tokens.calibration().deltaRatio * local));
}

/** How the index follows the output: micro alone rewrote in place; other layers moved messages. */
function indexUpdate(steps: readonly AppliedStep[], output: readonly Message[]): IndexUpdate | undefined {
  const [only] = steps;
  // Nothing changed: the index was brought up to date with the input at the start of the call.
  if (only === undefined) return undefined;
  const { rest } = splitAtProviderCompaction(output);
  const inPlace = steps.length === 1 && only.layer === 'micro';
  return inPlace ? { kind: 'adopt', rest, replaced: only.replaced ?? [] } : { kind: 'sync', rest };
}

function rewriteContext(runtime: SessionRuntime, settings: CompactorSettings, now: number): RewriteContext {
  return {
    ids: runtime.ids,
    sessionId: settings.sessionId,
    now,
    toolUse: (id) => runtime.index.toolUse(id),
    reusesIds: () => runtime.ids.reusesIds,
    recall: settings.recall,
    parsedOutline: (toolUseId, shown) => runtime.ledger.workingSet.readOutline(toolUseId, shown),
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
      render: (historyId, maxTokens = ledgerTokens, shownAfter, filesShown) =>
        renderLedger(state, {
          maxTokens: Math.min(ledgerTokens, maxTokens),
          counter: settings.counter,
          recallOf,
          historyId,
          recall: settings.recall,
          ...(shownAfter ? { shownAfter } : {}),
          ...(filesShown ? { filesShown } : {}),
        }),
      files: state.files,
    },
  };
}

/** The working set as the hard layer reads it (none when its budget is 0). */
function workingSetFor(
  runtime: SessionRuntime,
  settings: CompactorSettings,
): Pick<HardContext, 'workingSet'> {
  const { workingSetTokens } = settings.hard;
  if (workingSetTokens <= 0) return {};
  const state = runtime.ledger.workingSet.state;
  return {
    workingSet: (shown) =>
      renderWorkingSet(state, {
        maxTokens: workingSetTokens,
        counter: settings.counter,
        ...(shown ? { shown } : {}),
      }),
  };
}
