import { createHash } from 'node:crypto';
import { recallTool } from '../core/archive/compaction-tools.js';
import { checkCompactorOptions } from '../core/check-options.js';
import { createCompactor } from '../core/compactor.js';
import type { Compactor, CompactorOptions } from '../core/compactor-options.js';
import { repairMessages } from '../core/conversation/repair.js';
import type { Message, ProviderUsage, SystemPrompt } from '../core/model/messages.js';
import { RecentMap } from './_recent-map.js';
import { type ContinuedThread, continuedMessages, rememberCall } from './thread-continuation.js';
import { extendsKeys, ThreadRoutes, threadQueue } from './thread-routes.js';

/** Options every framework integration takes: the compactor's, plus a warning hook. */
export interface IntegrationOptions extends CompactorOptions {
  /** Told once per message or item type the conversion does not know (such input is kept whole). */
  onWarning?: (message: string) => void;
  /**
   * Conversations kept in memory; the least recently used is dropped past this (its archive items
   * stay in the archive store).
   * @default 1000
   */
  maxConversations?: number;
  /**
   * Whether what the compactor writes names archive ids and the `recall` tool. Told of a tool it
   * lacks, a model calls it or gives up on the content, so where the integration sees the model
   * call's tools (the LangChain middleware per model call, the Agents SDK filter) only a
   * conversation whose first call offers a tool named `recall` gets them (see `recallTool` and
   * `handleRecall` in `agent-compact/recall`), and `false` keeps them out even then. Where it does
   * not (LangChain with `persist: true`, `AgentCompactSession`), only `true` turns them on: set it
   * when the agent has the tool. Everything is archived under its id either way.
   * @default true: when the conversation's first call offers `recall` (where the tools are not
   *   seen, false)
   */
  recall?: boolean;
}

/** One framework call to compact: its items as JSON keys, and a way to read the new ones. */
export interface ThreadCall {
  /**
   * The conversation. Without it, the call continues the thread of its `opening` whose last call it
   * extends (or whose newest two items it holds in a row, see {@link ThreadRoutes}), or starts one.
   */
  conversationId?: string | undefined;
  /**
   * What identifies the conversation when no id is given: its first item, not the system prompt
   * (which may change on every call).
   */
  opening: unknown;
  /** Each item of the call, as JSON: a call that extends the previous call's keys continues it. */
  keys: readonly string[];
  /** The canonical messages of the items from `from` on. */
  read(from: number): Message[];
  /**
   * The keys a later call holds for this call's compacted messages, when the framework keeps them
   * in place of the history (LangChain's `persist`): such a call continues the thread too.
   */
  keysOf?(messages: Message[]): string[];
  system?: SystemPrompt | undefined;
  usage?: ProviderUsage | undefined;
  signal?: AbortSignal | undefined;
  /**
   * The names of the tools the model call offers, asked on a conversation's first call only;
   * absent when the framework does not tell (then only `recall: true` names archive ids).
   */
  toolNames?: (() => readonly string[] | Promise<readonly string[]>) | undefined;
}

/** Conversations kept by default, as the AI SDK middleware keeps. */
const DEFAULT_MAX_CONVERSATIONS = 1000;

interface ThreadState extends ContinuedThread {
  compactor: Compactor;
  /** The keys of `carried` as the framework holds it, when it keeps the compacted messages. */
  carriedKeys: readonly string[];
}

/**
 * One compactor per conversation for frameworks that send the whole history on every call: a call
 * that repeats the previous call's items plus new ones continues from the previous compacted
 * result, so a hard compaction holds across turns instead of running again each call.
 */
export class ConversationThreads {
  readonly #options: IntegrationOptions;
  /** Each conversation seen, the least recently used dropped past `maxConversations`. */
  readonly #threads: RecentMap<string, ThreadState>;
  readonly #warned = new Set<string>();
  readonly #routes = new ThreadRoutes();

  constructor(options: IntegrationOptions) {
    // Checked here, not on a thread's first call: a bad option fails where it was given.
    checkCompactorOptions(options, { onWarning: 'function', maxConversations: 'positive' });
    this.#options = options;
    this.#threads = new RecentMap({ max: options.maxConversations ?? DEFAULT_MAX_CONVERSATIONS });
  }

  compactorFor(id: string): Compactor | undefined {
    return this.#threads.peek(id)?.compactor;
  }

  /**
   * The compacted canonical conversation of a call. A call with an id continues that conversation;
   * one without goes to the thread of its opening it continues, or to a new one (see
   * {@link ThreadRoutes}). Calls of one opening or id are compacted one at a time.
   */
  compact(call: ThreadCall): Promise<Message[]> {
    const opening = call.conversationId ?? `conv-${hash(call.opening)}`;
    return this.#routes.serially(opening, async () => {
      const id =
        call.conversationId === undefined ? this.#routes.route(this.#threads, opening, call.keys) : opening;
      // A call of another opening may continue the thread too (a sliding window): one at a time.
      return this.#routes.serially(threadQueue(id), async () => {
        const state = this.#threads.get(id) ?? (await this.#newThread(id, call));
        return this.#compactIn(state, call);
      });
    });
  }

  async #compactIn(state: ThreadState, call: ThreadCall): Promise<Message[]> {
    const { keys } = call;
    const continuesCarried = !extendsKeys(keys, state.consumedKeys) && extendsKeys(keys, state.carriedKeys);
    const continued = continuesCarried
      ? { messages: [...state.carried, ...call.read(state.carriedKeys.length)], from: state }
      : continuedMessages(state, keys, call.read);
    const working = this.#repaired(continued.messages);
    const result = await state.compactor.maybeCompact(working, {
      ...(call.system === undefined ? {} : { system: call.system }),
      ...(call.usage === undefined ? {} : { usage: call.usage }),
      ...(call.signal === undefined ? {} : { signal: call.signal }),
    });
    rememberCall(state, { consumedKeys: keys, carried: result.messages }, continued.from);
    state.carriedKeys = call.keysOf?.(result.messages) ?? [];
    return result.messages;
  }

  #repaired(messages: Message[]): Message[] {
    return repairWithWarnings(messages, this.#options.onWarning);
  }

  /** Warns once per unknown type. */
  warnAbout(types: readonly string[], what: string) {
    for (const type of types) {
      if (this.#warned.has(type)) continue;
      this.#warned.add(type);
      this.#options.onWarning?.(`agent-compact: ${what} type "${type}" is not converted; it is kept whole`);
    }
  }

  /** A conversation's first call: a compactor of its own, its archive session named by the id. */
  async #newThread(id: string, call: ThreadCall): Promise<ThreadState> {
    const { onWarning: _, maxConversations: __, recall, ...compactorOptions } = this.#options;
    // Archive ids and the recall sentence only for a model that can call `recall`, as the AI SDK
    // middleware and the proxy without `--recall` decide.
    const offersRecall =
      recall !== false &&
      (call.toolNames === undefined ? recall === true : (await call.toolNames()).includes(recallTool.name));
    const state: ThreadState = {
      compactor: createCompactor({ ...compactorOptions, recall: offersRecall, sessionId: id }),
      consumedKeys: [],
      carried: [],
      carriedKeys: [],
      previous: undefined,
      verbatim: new WeakSet(),
    };
    this.#threads.set(id, state);
    return state;
  }
}

/**
 * The conversation the provider would accept, as the core repairs it (a tool call without its
 * result gets a result saying so), each change told through `onWarning`; the same array when
 * nothing needed repair.
 */
export function repairWithWarnings(messages: Message[], onWarning?: (message: string) => void): Message[] {
  let repair: ReturnType<typeof repairMessages>;
  try {
    repair = repairMessages(messages);
  } catch {
    // Not well-typed enough to repair without guessing: the compactor reports it as it is.
    return messages;
  }
  if (repair.changes.length === 0) return messages;
  for (const change of repair.changes) onWarning?.(`agent-compact: repaired: ${change.message}`);
  return repair.messages;
}

function hash(value: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(value ?? null))
    .digest('hex')
    .slice(0, 16);
}
