import { nonJsonValue, tooDeepPath } from './_internal/nesting.js';
import { sameJson } from './_internal/same-json.js';
import type { ArchiveItem } from './archive/archive-store.js';
import { createMemoryArchiveStore } from './archive/memory-archive-store.js';
import type { CompactorState, StoredSessionState } from './archive/session-state-store.js';
import { checkCallOptions } from './check-options.js';
import type { Compactor, CompactorOptions, CompactResult, MaybeCompactOptions } from './compactor-options.js';
import { type CompactorSettings, resolveSettings } from './compactor-settings.js';
import { MAX_NESTING_DEPTH } from './conversation/parse-conversation.js';
import { validateMessages } from './conversation/validate.js';
import type { CompactionEvent } from './events.js';
import { CompactError } from './model/errors.js';
import type { Message } from './model/messages.js';
import { compactTurn, type TurnEnvironment } from './pipeline.js';
import { compactRequestWith } from './request/compact-request.js';
import {
  applyUpdate,
  createRuntime,
  restoreRuntime,
  runtimeToState,
  type SessionRuntime,
} from './session-runtime.js';
import { loadState, saveState } from './state-access.js';
import { archiveAndReport, storeAnswer } from './turn-report.js';

export { defaultThresholds } from './compactor-settings.js';

/** Runs of a call when its state save keeps finding the state moved by another compactor. */
const MAX_STATE_CONFLICT_RETRIES = 3;

/** The loaded session: the runtime and the stored state's version (0 when none was stored). */
interface LoadedSession {
  runtime: SessionRuntime;
  version: number;
  /** The state last saved or loaded, to skip saves that change nothing. */
  savedState: CompactorState | undefined;
}

/**
 * Creates a compactor for one agent session. Pass the messages through `maybeCompact` before
 * every model call and send what it returns; it keeps its own state between calls so a call that
 * only appended a turn costs only that turn. With a `stateStore`, that state survives the process.
 *
 * @example
 * const compactor = createCompactor({ contextWindow: 200_000 });
 * // in the agent loop, before each model call:
 * const { messages: toSend } = await compactor.maybeCompact(messages, { system, tools, usage: lastResponse?.usage });
 * messages = toSend;
 */
export function createCompactor(options: CompactorOptions = {}): Compactor {
  const settings = resolveSettings(options);
  const { archive = createMemoryArchiveStore(), stateStore, onEvent = () => {} } = options;
  const emit = safeEmitter(onEvent);
  const loader = new SessionLoader(settings, archive, stateStore);

  async function runOnce(
    input: readonly Message[],
    callOptions: MaybeCompactOptions,
  ): Promise<CompactResult> {
    const loaded = await loader.get();
    const environment: TurnEnvironment = { settings: withCallSummarizer(settings, callOptions), emit };
    const outcome = await compactTurn(input, callOptions, loaded.runtime, environment);
    // The runtime moves to the output and the state is saved before anything is archived.
    applyUpdate(loaded.runtime, outcome.update);
    await persist(stateStore, settings, loaded);
    await archiveAndReport(outcome, loaded.runtime, archive, emit);
    return outcome.result;
  }

  async function maybeCompact(
    input: readonly Message[],
    callOptions: MaybeCompactOptions = {},
  ): Promise<CompactResult> {
    if (!Array.isArray(input)) {
      throw new CompactError('messages must be an array', { code: 'INVALID_TRANSCRIPT', path: 'messages' });
    }
    checkCallOptions(callOptions);
    if (callOptions.signal?.aborted) {
      throw new CompactError('compaction was aborted', { code: 'ABORTED', cause: callOptions.signal.reason });
    }
    for (let attempt = 0; ; attempt++) {
      try {
        return await runOnce(input, callOptions);
      } catch (error) {
        // Another compactor moved the session (the save found a newer version, or this call failed
        // on a state that was stale): continue from the stored state and run the call again.
        const stale = isStateConflict(error) || (await loader.movedElsewhere(error));
        // The runtime moved to an output that was not returned: continue from what was stored.
        if (stale || !CompactError.isInstance(error) || leftRuntimeBehind(error.code)) loader.forget();
        if (stale && attempt < MAX_STATE_CONFLICT_RETRIES) continue;
        if (CompactError.isInstance(error)) throw error;
        // Malformed messages (a null block, content of the wrong type) trip the layers with a raw
        // TypeError: name what is wrong instead. Validation runs only here, so a good call stays cheap.
        throw invalidInputError(error, input, callOptions);
      }
    }
  }

  return {
    maybeCompact,
    compactRequest: (body, requestOptions) => compactRequestWith({ maybeCompact }, body, requestOptions),
    thresholds: settings.limits,
    sessionId: settings.sessionId,
    archive,
  };
}

/**
 * The session as read once from the archive and the state store, shared by the calls that follow;
 * forgotten when a call leaves the runtime behind, so the next call reads it again.
 */
class SessionLoader {
  #loading: Promise<LoadedSession> | undefined;

  constructor(
    private readonly settings: CompactorSettings,
    private readonly archive: NonNullable<CompactorOptions['archive']>,
    private readonly stateStore: CompactorOptions['stateStore'],
  ) {}

  get(): Promise<LoadedSession> {
    this.#loading ??= loadSession(this.settings, this.archive, this.stateStore).catch((error: unknown) => {
      // A failed read must not stick: the next call reads again.
      this.#loading = undefined;
      throw error;
    });
    return this.#loading;
  }

  forget(): void {
    this.#loading = undefined;
  }

  /** True when a call failed while another compactor had saved a newer state of the session. */
  async movedElsewhere(error: unknown): Promise<boolean> {
    if (!this.stateStore || !CompactError.isInstance(error) || this.#loading === undefined) return false;
    const loaded = await this.#loading.catch(() => undefined);
    if (!loaded) return false;
    // A store that cannot answer now says nothing of where the session is: the call's own error stands.
    const stored = await loadState(this.stateStore, this.settings.sessionId).then(
      (state) => ({ state }),
      () => undefined,
    );
    return stored !== undefined && (stored.state?.version ?? 0) !== loaded.version;
  }
}

/** The settings with this call's own summary model, when it brought one. */
function withCallSummarizer(
  settings: CompactorSettings,
  callOptions: MaybeCompactOptions,
): CompactorSettings {
  const { summarizer } = callOptions;
  return summarizer ? { ...settings, hard: { ...settings.hard, summarizer } } : settings;
}

/** A store that failed after the runtime moved: the next call reads the session again. */
function leftRuntimeBehind(code: string): boolean {
  return code === 'ARCHIVE_FAILED' || code === 'STATE_FAILED';
}

/** Saves the session's state when it changed; throws `STATE_CONFLICT` when it moved meanwhile. */
async function persist(
  stateStore: CompactorOptions['stateStore'],
  settings: CompactorSettings,
  loaded: LoadedSession,
): Promise<void> {
  if (!stateStore) return;
  const state = runtimeToState(loaded.runtime, settings);
  // Compared, not serialized: a state whose history grew differs at a length check.
  if (sameJson(state, loaded.savedState)) return;
  const saved = await saveState(stateStore, settings.sessionId, state, {
    expectedVersion: loaded.version,
  });
  loaded.version = saved.version;
  loaded.savedState = state;
}

/** Reads the archive (to continue its ids) and the stored state, if any. */
async function loadSession(
  settings: CompactorSettings,
  archive: NonNullable<CompactorOptions['archive']>,
  stateStore: CompactorOptions['stateStore'],
): Promise<LoadedSession> {
  const archived = await readArchive(archive, settings.sessionId);
  const stored: StoredSessionState | undefined = stateStore
    ? await loadState(stateStore, settings.sessionId)
    : undefined;
  if (!stored) return { runtime: createRuntime(settings, archived), version: 0, savedState: undefined };
  return {
    runtime: restoreRuntime(settings, archived, stored.state),
    version: stored.version,
    savedState: stored.state,
  };
}

/**
 * The session's archived items, to continue their ids. A store that rejects, answers something
 * other than items with ids, or has not answered within `ARCHIVE_TIMEOUT_MS` (turn-report.ts) fails the call
 * with `ARCHIVE_FAILED` before anything changed.
 */
async function readArchive(
  archive: NonNullable<CompactorOptions['archive']>,
  sessionId: string,
): Promise<ArchiveItem[]> {
  const archived = await storeAnswer(() => archive.list(sessionId), {
    what: `reading the archive of session ${sessionId}`,
    store: 'archive',
    code: 'ARCHIVE_FAILED',
    keepTyped: true,
  });
  // A store of the caller's own that breaks the contract fails here, not deep in the first call.
  if (!Array.isArray(archived) || !archived.every((item) => typeof item?.id === 'string')) {
    throw new CompactError(
      `the archive's list() of session ${sessionId} did not return items with ids; the context was left unchanged`,
      { code: 'ARCHIVE_FAILED' },
    );
  }
  return archived;
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
  const { system, tools, usage, signal, force, focus, ...compactorOptions } = options;
  return createCompactor(compactorOptions).maybeCompact(messages, {
    ...(system === undefined ? {} : { system }),
    ...(tools === undefined ? {} : { tools }),
    ...(usage === undefined ? {} : { usage }),
    ...(signal === undefined ? {} : { signal }),
    ...(force === undefined ? {} : { force }),
    ...(focus === undefined ? {} : { focus }),
  });
}

function isStateConflict(error: unknown): boolean {
  return CompactError.isInstance(error) && error.code === 'STATE_CONFLICT';
}

function safeEmitter(onEvent: (event: CompactionEvent) => void): (event: CompactionEvent) => void {
  return (event) => {
    try {
      onEvent(event);
    } catch {
      // A throwing handler must not break the agent's turn.
    }
  };
}

/**
 * The error for input the layers could not read: `INVALID_TRANSCRIPT` at the first broken rule, or
 * `UNREADABLE_INPUT` at a value JSON cannot hold (a cycle, a bigint) or one nested too deep to
 * serialise (`JSON.stringify` overflowed the stack), past the depth `parseConversation` refuses.
 */
function invalidInputError(error: unknown, input: unknown, { system, tools }: MaybeCompactOptions): unknown {
  const problems = validateMessages(input, system === undefined ? {} : { system });
  const [first] = problems;
  // A value JSON cannot hold (a cycle, a bigint) can only come from the caller's own objects.
  const odd = first ? undefined : nonJsonInput(input, system, tools);
  if (odd)
    return new CompactError(`${odd.kind} is not JSON data`, {
      code: 'UNREADABLE_INPUT',
      path: odd.path,
      cause: error,
    });
  const deep = error instanceof RangeError ? tooDeepPath(input, 'messages', MAX_NESTING_DEPTH) : undefined;
  if (!first && deep !== undefined) {
    return new CompactError(`nested deeper than ${MAX_NESTING_DEPTH} levels`, {
      code: 'UNREADABLE_INPUT',
      path: deep,
      cause: error,
    });
  }
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

function nonJsonInput(input: unknown, system: unknown, tools: unknown) {
  const depth = MAX_NESTING_DEPTH;
  return (
    nonJsonValue(input, 'messages', depth) ??
    nonJsonValue(system, 'system', depth) ??
    nonJsonValue(tools, 'tools', depth)
  );
}
