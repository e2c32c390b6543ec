import { ArchiveIds } from './_internal/archive-ids.js';
import { copyData } from './_internal/copy-data.js';
import { fingerprintMessages, requestKey, startsWithFingerprints } from './_internal/fingerprint.js';
import type { ArchiveItem } from './archive/archive-store.js';
import { COMPACTOR_STATE_SCHEMA, type CompactorState } from './archive/session-state-store.js';
import type { CompactorSettings } from './compactor-settings.js';
import type { BreakerMemory } from './layers/decide-turn.js';
import { HistoryIndex } from './layers/history-index.js';
import type { LayerPlan } from './layers/mask.js';
import { isLedgerState } from './ledger/ledger-state.js';
import { LedgerRecorder } from './ledger/record-messages.js';
import { CompactError } from './model/errors.js';
import type { Message, SystemPrompt } from './model/messages.js';
import type { ToolDefinition } from './model/request.js';
import { type AnchoredCounter, createAnchoredCounter } from './tokens/anchored-counter.js';
import { countToolTokens } from './tokens/tool-tokens.js';

/** The request a call returned: what the provider's next usage report is about. */
export interface SentRequest {
  messages: readonly Message[];
  system: SystemPrompt | undefined;
  tools: readonly ToolDefinition[] | undefined;
}

/**
 * The request the last call returned, as kept: the array itself and its length then. Callers push
 * the next turn onto the array they got; the first `length` messages are what was sent, so the
 * array need not be copied on every call.
 */
export interface ReturnedRequest extends SentRequest {
  length: number;
}

/** What a compactor knows about its session between calls. */
export interface SessionRuntime {
  ids: ArchiveIds;
  index: HistoryIndex;
  tokens: AnchoredCounter;
  /** The session ledger, kept up to date with every call's messages; it outlives hard compactions. */
  ledger: LedgerRecorder;
  /** The request the last call returned (see {@link sentRequest}). */
  lastOutput: ReturnedRequest | undefined;
  /** A restored session's last output, by fingerprints, until a call's messages start with it. */
  restoredLastOutput: { messages: string[]; system: string } | undefined;
  /** The circuit breaker's memory: whether the last call ran hard, and the overhead it learned. */
  breaker: BreakerMemory;
  /** When the last call was made (ms since the epoch), to tell an expired prompt cache. */
  lastCallAt: number | undefined;
  /** A hard summary running in the background, when `hard.background` is on. */
  background: BackgroundJob | undefined;
}

/** A hard compaction of a snapshot of the history, running while the agent works on. */
export interface BackgroundJob {
  /** How many messages the snapshot had; the summary covers them. */
  length: number;
  /** The snapshot's first message, to check a later history continues it. */
  first: Message | undefined;
  /** Settles when the summary is written. */
  done: Promise<void>;
  /** Set when it settled. */
  outcome?: { plan: LayerPlan | undefined } | { error: unknown };
}

/** How the history index follows a call's output (`adopt`: micro rewrote it in place). */
export type IndexUpdate =
  | { kind: 'adopt'; rest: readonly Message[]; replaced: readonly string[] }
  | { kind: 'sync'; rest: readonly Message[] };

/** How a call moves the runtime; applied by the compactor beside saving the state. */
export interface RuntimeUpdate {
  lastOutput: ReturnedRequest;
  lastCallAt: number;
  breaker: BreakerMemory;
  background: BackgroundJob | undefined;
  /** Undefined when nothing changed (the index already follows the input). */
  index: IndexUpdate | undefined;
}

/** Moves the runtime to a call's output: the one place its fields are written after a call. */
export function applyUpdate(runtime: SessionRuntime, update: RuntimeUpdate): void {
  const { index } = update;
  if (index?.kind === 'adopt') {
    runtime.index.markReplaced(index.replaced);
    runtime.index.adopt(index.rest);
  } else if (index?.kind === 'sync') {
    runtime.index.sync(index.rest);
  }
  // The ledger follows the output's ids (placeholders, the summary) once something changed.
  if (index) runtime.ledger.adopt(index.rest);
  runtime.lastOutput = update.lastOutput;
  runtime.restoredLastOutput = undefined;
  runtime.breaker = update.breaker;
  runtime.lastCallAt = update.lastCallAt;
  runtime.background = update.background;
}

/** A fresh runtime continuing the ids of the items the archive already holds. */
export function createRuntime(settings: CompactorSettings, archived: readonly ArchiveItem[]): SessionRuntime {
  const ids = new ArchiveIds();
  ids.restore(archived);
  return {
    ids,
    index: new HistoryIndex(settings.counter, settings.rule, ids, settings.mid),
    tokens: createAnchoredCounter({ counter: settings.counter }),
    ledger: new LedgerRecorder(undefined, ledgerOptions(settings)),
    lastOutput: undefined,
    restoredLastOutput: undefined,
    breaker: { hardOnLastCall: false, overheadTokens: 0 },
    lastCallAt: undefined,
    background: undefined,
  };
}

/** A runtime continuing from a stored state (written by this or another process). */
export function restoreRuntime(
  settings: CompactorSettings,
  archived: readonly ArchiveItem[],
  state: CompactorState,
): SessionRuntime {
  if (state.schema !== COMPACTOR_STATE_SCHEMA) {
    throw new CompactError(
      `session ${settings.sessionId}: stored compactor state has schema ${state.schema}, this version reads ${COMPACTOR_STATE_SCHEMA}`,
      { code: 'INVALID_OPTIONS' },
    );
  }
  const runtime = createRuntime(settings, archived);
  runtime.ids.restoreState(state.ids);
  runtime.tokens.restoreState(state.counter);
  runtime.restoredLastOutput = state.lastOutput;
  // States written before the breaker learned the overhead have none: it is learned again.
  runtime.breaker = {
    hardOnLastCall: state.breaker.hardOnLastCall,
    overheadTokens: state.breaker.overheadTokens ?? 0,
    ...(state.breaker.hardTokensAfter === undefined
      ? {}
      : { hardTokensAfter: state.breaker.hardTokensAfter }),
  };
  // A state written before the ledger existed has none: it starts from the messages it sees.
  if (isLedgerState(state.ledger))
    runtime.ledger = new LedgerRecorder(copyData(state.ledger), ledgerOptions(settings));
  return runtime;
}

/** The ledger records a working set only when it has a budget. */
function ledgerOptions(settings: CompactorSettings): {
  parser: CompactorSettings['codeParser'];
  workingSet: boolean;
} {
  return { parser: settings.codeParser, workingSet: settings.hard.workingSetTokens > 0 };
}

/** The request the last call returned, its messages as they were sent. */
export function sentRequest(returned: ReturnedRequest | undefined): SentRequest | undefined {
  if (!returned) return undefined;
  const { messages, length, system, tools } = returned;
  return { messages: messages.length === length ? messages : messages.slice(0, length), system, tools };
}

/** The runtime as plain JSON for a `SessionStateStore`. */
export function runtimeToState(runtime: SessionRuntime, settings: CompactorSettings): CompactorState {
  const lastOutput = sentRequest(runtime.lastOutput);
  const last = lastOutput
    ? {
        messages: fingerprintMessages(lastOutput.messages),
        system: requestKey(lastOutput.system, countToolTokens(lastOutput.tools, settings.counter)),
      }
    : runtime.restoredLastOutput;
  return {
    schema: COMPACTOR_STATE_SCHEMA,
    ids: runtime.ids.toState(),
    ...(last ? { lastOutput: last } : {}),
    counter: runtime.tokens.toState(),
    breaker: { ...runtime.breaker },
    // A copy: the saved state is compared with the next one to skip saves that change nothing.
    ledger: copyData(runtime.ledger.state),
  };
}

/**
 * The last output of a restored session, recognised in this call's messages: the provider's usage
 * is about it. Undefined when the caller did not send it back (the usage is then not anchored).
 */
export function recallLastOutput(
  runtime: SessionRuntime,
  input: readonly Message[],
  request: Omit<SentRequest, 'messages'>,
  settings: CompactorSettings,
): SentRequest | undefined {
  if (runtime.lastOutput || !runtime.restoredLastOutput) return sentRequest(runtime.lastOutput);
  const { messages, system } = runtime.restoredLastOutput;
  const key = requestKey(request.system, countToolTokens(request.tools, settings.counter));
  if (key !== system || !startsWithFingerprints(input, messages)) return undefined;
  return { messages: input.slice(0, messages.length), system: request.system, tools: request.tools };
}
