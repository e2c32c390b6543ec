import type { LanguageModelV3Prompt } from '@ai-sdk/provider';
import { recallTool } from '../core/archive/compaction-tools.js';
import { checkCompactorOptions } from '../core/check-options.js';
import { createCompactor } from '../core/compactor.js';
import type { Compactor, CompactorOptions } from '../core/compactor-options.js';
import type { ProviderUsage } from '../core/model/messages.js';
import { checksThinkingPrefix } from '../core/wire/anthropic/preserved-thinking.js';
import { RecentMap } from '../integrations/_recent-map.js';
import {
  type ContinuedThread,
  continuedMessages,
  rememberCall,
} from '../integrations/thread-continuation.js';
import { ThreadRoutes, threadQueue } from '../integrations/thread-routes.js';
import {
  fromCanonicalMessages,
  leadingSystemCount,
  PromptOrigins,
  type PromptVersion,
  systemFromMessages,
  toCanonicalMessages,
} from './prompt-conversion.js';

/**
 * The AI SDK middleware specification: `v3` (`LanguageModelV3Middleware`, ai 6) or `v4`
 * (`LanguageModelV4Middleware`, ai 7).
 */
export type AISDKSpecificationVersion = 'v3' | 'v4';

/**
 * The call options the middleware reads: what `LanguageModelV3CallOptions` (ai 6) and
 * `LanguageModelV4CallOptions` (ai 7) have in common. It hands the options back as the type it got.
 */
export interface CompactionCallOptions {
  /** The prompt: system, user, assistant and tool messages of either version. */
  prompt: readonly { role: string }[];
  /** The call's abort signal; it also cancels a summary the call waits for. */
  abortSignal?: AbortSignal;
  /** The call's HTTP headers, e.g. to tell conversations apart. */
  headers?: Record<string, string | undefined>;
  /** The call's provider options, e.g. to tell conversations apart. */
  providerOptions?: Record<string, Record<string, unknown>>;
  /** The tools the call offers; the compactor names archive ids only when one is `recall`. */
  tools?: readonly { name?: string }[];
}

/** The model the AI SDK passes to middleware; its specification version and id are read. */
export interface CompactionMiddlewareModel {
  readonly specificationVersion: string;
  /**
   * The model's id: one that binds each thinking block to the history before it (Claude's preserved
   * thinking, `claude-opus-5-5`) gets no reasoning after what a compaction changed.
   */
  readonly modelId?: string;
}

/** Token usage as the AI SDK reports it (the same in v3 and v4); unknown counts are `undefined`. */
export interface CompactionUsage {
  inputTokens: {
    total: number | undefined;
    noCache: number | undefined;
    cacheRead: number | undefined;
    cacheWrite: number | undefined;
  };
  outputTokens: { total: number | undefined };
}

/** Options of {@link createCompactionMiddleware}: the compactor's options, plus how to tell conversations apart. */
export interface CompactionMiddlewareOptions<Version extends AISDKSpecificationVersion = 'v3'>
  extends CompactorOptions {
  /**
   * The middleware specification the middleware declares. ai 7's `wrapLanguageModel` takes either;
   * ai 6's takes `v3` only. Choose `v4` where a `LanguageModelV4Middleware` is asked for by type.
   * Prompts are read and written in the version of the model the middleware wraps, whichever this is.
   * @default 'v3'
   */
  specificationVersion?: Version;
  /**
   * Whether what the compactor writes names archive ids and the `recall` tool. Only a conversation
   * whose first call offers a tool named `recall` gets them (see `recallTool` and `handleRecall`
   * in `agent-compact/recall`); `false` keeps them out even then.
   * @default true: when the call offers `recall`
   */
  recall?: boolean;
  /**
   * Names the conversation a call belongs to; each conversation gets its own compactor and so its
   * own archive session (the id is the archive's `sessionId`). Return `undefined` for the default.
   * @default the conversation of the earlier call this one extends (same first message, each
   *   earlier message repeated; the system prompt may change) or, when the app dropped or rewrote earlier messages,
   *   whose newest two messages it still holds in a row; any other call starts its own
   */
  // Method syntax: a function written for `LanguageModelV3CallOptions` or `V4CallOptions` fits too.
  conversationId?(params: CompactionCallOptions): string | undefined;
  /**
   * Conversations kept in memory; the least recently used is dropped past this (its archive items
   * stay in the archive store).
   * @default 1000
   */
  maxConversations?: number;
}

/**
 * The middleware, plus access to each conversation's compactor (for `recall`, the archive, stats).
 *
 * A `LanguageModelV3Middleware` (ai 6) or `LanguageModelV4Middleware` (ai 7) by structure: each
 * hook is generic over the call options and results, so it fits either version's signature.
 */
export interface CompactionMiddleware<Version extends AISDKSpecificationVersion = 'v3'> {
  /** The middleware specification, from the `specificationVersion` option. */
  readonly specificationVersion: Version;
  /** Compacts the prompt before the call. */
  transformParams<Params extends CompactionCallOptions>(options: {
    type: 'generate' | 'stream';
    params: Params;
    model: CompactionMiddlewareModel;
  }): PromiseLike<Params>;
  /** Remembers the usage of a generated answer, to anchor the next call's count. */
  wrapGenerate<Result extends { usage: CompactionUsage }>(options: {
    doGenerate: () => PromiseLike<Result>;
    params: CompactionCallOptions;
  }): PromiseLike<Result>;
  /** Remembers the usage of the streamed answer's `finish` part, to anchor the next call's count. */
  wrapStream<Result extends { stream: ReadableStream<{ type: string }> }>(options: {
    doStream: () => PromiseLike<Result>;
    params: CompactionCallOptions;
  }): PromiseLike<Result>;
  /** The compactor of a conversation, once it has seen a call. */
  compactorFor(conversationId: string): Compactor | undefined;
}

/** A conversation: its compactor, and what it continues from (the last call's non-system messages). */
interface ConversationState extends ContinuedThread {
  compactor: Compactor;
  origins: PromptOrigins;
  /** Usage the model reported for the last compacted prompt. */
  usage?: ProviderUsage;
}

/**
 * Creates an AI SDK middleware for `wrapLanguageModel` — a `LanguageModelV4Middleware` for ai 7 and
 * a `LanguageModelV3Middleware` for ai 6 — that passes the prompt through a compactor before every
 * model call. Each conversation keeps its own compactor and archive; a call that repeats the
 * previous prompt plus new messages (as a `generateText` tool loop does) continues from the
 * previous compacted result, so a hard summary is written once, not on every step. Usage the model
 * reports anchors the next call's token count.
 *
 * @example
 * import { generateText, stepCountIs, wrapLanguageModel } from 'ai';
 * import { createCompactionMiddleware } from 'agent-compact/ai-sdk';
 *
 * const model = wrapLanguageModel({
 *   model: baseModel,
 *   middleware: createCompactionMiddleware({ contextWindow: 200_000 }),
 * });
 * const { text } = await generateText({ model, tools, prompt: task, stopWhen: stepCountIs(50) });
 */
export function createCompactionMiddleware<Version extends AISDKSpecificationVersion = 'v3'>(
  options: CompactionMiddlewareOptions<Version> = {},
): CompactionMiddleware<Version> {
  // Checked here, not on a conversation's first call: a bad option fails where it was given.
  checkCompactorOptions(options, { maxConversations: 'positive', conversationId: 'function' });
  const {
    specificationVersion = 'v3' as Version,
    conversationId,
    maxConversations = 1000,
    ...compactorOptions
  } = options;
  // `get` marks a conversation most recently used; `set` past `max` drops the least recently used.
  const conversations = new RecentMap<string, ConversationState>({ max: maxConversations });
  const idsByParams = new WeakMap<object, string>();
  const routes = new ThreadRoutes();

  const stateFor = (id: string, version: PromptVersion, params: CompactionCallOptions): ConversationState => {
    const state = conversations.get(id) ?? newConversation(compactorOptions, id, version, params);
    conversations.set(id, state);
    return state;
  };

  const rememberUsage = (params: object, usage: CompactionUsage | undefined): void => {
    const id = idsByParams.get(params);
    const state = id === undefined ? undefined : conversations.peek(id);
    const providerUsage = providerUsageOf(usage);
    if (state && providerUsage) state.usage = providerUsage;
  };

  return {
    specificationVersion,
    async transformParams({ params, model }) {
      const named = conversationId?.(params);
      const opening = named ?? defaultConversationId(params);
      // ai 7 hands middleware a v4 model (wrapping older ones), ai 6 a v3 one.
      const version = (model?.specificationVersion ?? specificationVersion) === 'v4' ? 'v4' : 'v3';
      const preservedThinking = checksThinkingPrefix(model?.modelId);
      // Unnamed, a call goes to the thread of its opening it continues (see ThreadRoutes).
      return routes.serially(opening, async () => {
        const parts = promptParts(params);
        const id = named ?? routes.route(conversations, opening, parts.keys);
        // A call of another opening may continue the thread too (a sliding window): one at a time.
        return routes.serially(threadQueue(id), async () => {
          const state = stateFor(id, version, params);
          const transformed = await compactParams(state, params, parts, preservedThinking);
          idsByParams.set(transformed, id);
          return transformed;
        });
      });
    },
    async wrapGenerate({ doGenerate, params }) {
      const result = await doGenerate();
      rememberUsage(params, result.usage);
      return result;
    },
    async wrapStream({ doStream, params }) {
      const result = await doStream();
      type StreamPart = typeof result.stream extends ReadableStream<infer Part> ? Part : never;
      const watch = finishUsageWatcher<StreamPart>((usage) => rememberUsage(params, usage));
      return { ...result, stream: result.stream.pipeThrough(watch) };
    },
    compactorFor(id) {
      return conversations.peek(id)?.compactor;
    },
  };
}

/** A conversation's first call: a compactor of its own, its archive session named by the conversation id. */
function newConversation(
  compactorOptions: CompactorOptions,
  id: string,
  version: PromptVersion,
  params: CompactionCallOptions,
): ConversationState {
  // Archive ids and the recall sentence only for a model that can call `recall` (as the proxy
  // does without `--recall`): told of a tool it lacks, a model calls it or gives up on the content.
  const recall = compactorOptions.recall !== false && offersRecall(params);
  return {
    compactor: createCompactor({ ...compactorOptions, recall, sessionId: id }),
    origins: new PromptOrigins(version),
    consumedKeys: [],
    carried: [],
    previous: undefined,
    verbatim: new WeakSet(),
  };
}

/** Passes a stream's parts on, handing the usage of its `finish` part to `onUsage`. */
function finishUsageWatcher<Part extends { type: string }>(
  onUsage: (usage: CompactionUsage | undefined) => void,
): TransformStream<Part, Part> {
  return new TransformStream<Part, Part>({
    transform(part, controller) {
      if (part.type === 'finish') onUsage((part as { usage?: CompactionUsage }).usage);
      controller.enqueue(part);
    },
  });
}

/**
 * Compacts one call's prompt with its conversation's compactor, continuing from the previous
 * compacted result when the prompt repeats the previous one plus new messages.
 */
async function compactParams<Params extends CompactionCallOptions>(
  state: ConversationState,
  params: Params,
  parts: PromptParts,
  preservedThinking: boolean,
): Promise<Params> {
  const { systemMessages, rest, keys } = parts;
  // The system prompt may change between calls: the history decides whether a call continues.
  const continued = continuedMessages(state, keys, (from) =>
    toCanonicalMessages(rest.slice(from), state.origins),
  );
  const system = systemFromMessages(systemMessages);
  const result = await state.compactor.maybeCompact(continued.messages, {
    ...(system === undefined ? {} : { system }),
    ...(state.usage === undefined ? {} : { usage: state.usage }),
    ...(params.abortSignal === undefined ? {} : { signal: params.abortSignal }),
    ...(preservedThinking ? { preservedThinking } : {}),
  });
  rememberCall(state, { consumedKeys: keys, carried: result.messages }, continued.from);
  state.usage = undefined;
  return {
    ...params,
    prompt: [...systemMessages, ...fromCanonicalMessages(result.messages, state.origins)],
  };
}

type PromptParts = ReturnType<typeof promptParts>;

/** A prompt's leading system messages and the rest, each also as JSON keys. */
function promptParts(params: CompactionCallOptions) {
  // Both versions' prompts share the v3 message structure the conversion is typed with.
  const prompt = params.prompt as LanguageModelV3Prompt;
  const systemCount = leadingSystemCount(prompt);
  const systemMessages = prompt.slice(0, systemCount);
  const rest = prompt.slice(systemCount);
  return {
    systemMessages,
    rest,
    keys: rest.map((message) => JSON.stringify(message)),
  };
}

/** True when the call offers a tool named `recall` (the core's {@link recallTool}). */
function offersRecall(params: CompactionCallOptions): boolean {
  return params.tools?.some((tool) => tool?.name === recallTool.name) ?? false;
}

/** The provider usage the compactor anchors its count to, from the AI SDK's usage. */
function providerUsageOf(usage: CompactionUsage | undefined): ProviderUsage | undefined {
  const input = usage?.inputTokens;
  if (!input || input.total === undefined) return undefined;
  const cacheRead = input.cacheRead ?? 0;
  const cacheWrite = input.cacheWrite ?? 0;
  return {
    input_tokens: input.noCache ?? input.total - cacheRead - cacheWrite,
    cache_read_input_tokens: cacheRead,
    cache_creation_input_tokens: cacheWrite,
    ...(usage?.outputTokens.total === undefined ? {} : { output_tokens: usage.outputTokens.total }),
  };
}

/**
 * A stable id from the first message after the system prompt: the same conversation gives the same
 * id. Not from the system prompt, which apps rewrite on every call (the time, retrieved context).
 */
function defaultConversationId(params: CompactionCallOptions): string {
  const prompt = params.prompt as LanguageModelV3Prompt;
  const opening = JSON.stringify(prompt[leadingSystemCount(prompt)] ?? null);
  // FNV-1a, 32 bits, twice with different seeds: short, dependency-free, collisions unlikely.
  let first = 0x811c9dc5;
  let second = 0x01000193;
  for (let index = 0; index < opening.length; index += 1) {
    const code = opening.charCodeAt(index);
    first = Math.imul(first ^ code, 0x01000193);
    second = Math.imul(second ^ code, 0x811c9dc5);
  }
  return `ai-sdk-${(first >>> 0).toString(16).padStart(8, '0')}${(second >>> 0).toString(16).padStart(8, '0')}`;
}
