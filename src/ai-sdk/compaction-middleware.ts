import type {
  LanguageModelV3CallOptions,
  LanguageModelV3Middleware,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';
import { createCompactor } from '../core/compactor.js';
import type { Compactor, CompactorOptions } from '../core/compactor-options.js';
import type { Message, ProviderUsage } from '../core/conversation/types.js';
import {
  fromCanonicalMessages,
  leadingSystemCount,
  PromptOrigins,
  systemFromMessages,
  toCanonicalMessages,
} from './prompt-conversion.js';

/** Options of {@link createCompactionMiddleware}: the compactor's options, plus how to tell conversations apart. */
export interface CompactionMiddlewareOptions extends CompactorOptions {
  /**
   * Names the conversation a call belongs to; each conversation gets its own compactor and so its
   * own archive session (the id is the archive's `sessionId`). Return `undefined` for the default.
   * @default a hash of the system prompt and the first message — pass your chat id when two
   *   conversations may open with the same words
   */
  conversationId?: (params: LanguageModelV3CallOptions) => string | undefined;
  /**
   * Conversations kept in memory; the least recently used is dropped past this (its archive items
   * stay in the archive store).
   * @default 1000
   */
  maxConversations?: number;
}

/** The middleware, plus access to each conversation's compactor (for `recall`, the archive, stats). */
export interface CompactionMiddleware extends LanguageModelV3Middleware {
  /** The compactor of a conversation, once it has seen a call. */
  compactorFor(conversationId: string): Compactor | undefined;
}

interface ConversationState {
  compactor: Compactor;
  origins: PromptOrigins;
  /** The system messages of the last call, as JSON. */
  systemKey: string;
  /** Each non-system prompt message of the last call, as JSON. */
  consumedKeys: string[];
  /** What the compactor made of those messages; the next call continues from it. */
  carried: Message[];
  /** Usage the model reported for the last compacted prompt. */
  usage?: ProviderUsage;
  /** Calls of one conversation run one after another. */
  queue: Promise<unknown>;
}

/**
 * Creates an AI SDK v6 middleware (`LanguageModelV3Middleware`, for `wrapLanguageModel`) that passes
 * the prompt through a compactor before every model call. Each conversation keeps its own
 * compactor and archive; a call that repeats the previous prompt plus new messages (as a
 * `generateText` tool loop does) continues from the previous compacted result, so a hard summary is
 * written once, not on every step. Usage the model reports anchors the next call's token count.
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
export function createCompactionMiddleware({
  conversationId,
  maxConversations = 1000,
  ...compactorOptions
}: CompactionMiddlewareOptions = {}): CompactionMiddleware {
  const conversations = new Map<string, ConversationState>();
  const idsByParams = new WeakMap<LanguageModelV3CallOptions, string>();

  const stateFor = (id: string): ConversationState => {
    let state = conversations.get(id);
    if (state) {
      // Re-insert so the map's order is least recently used first.
      conversations.delete(id);
    } else {
      state = {
        compactor: createCompactor({ ...compactorOptions, sessionId: id }),
        origins: new PromptOrigins(),
        systemKey: '',
        consumedKeys: [],
        carried: [],
        queue: Promise.resolve(),
      };
    }
    conversations.set(id, state);
    while (conversations.size > Math.max(1, maxConversations)) {
      const oldest = conversations.keys().next().value;
      if (oldest === undefined) break;
      conversations.delete(oldest);
    }
    return state;
  };

  const compactParams = async (
    state: ConversationState,
    params: LanguageModelV3CallOptions,
  ): Promise<LanguageModelV3CallOptions> => {
    const { prompt } = params;
    const systemCount = leadingSystemCount(prompt);
    const systemMessages = prompt.slice(0, systemCount);
    const rest = prompt.slice(systemCount);
    const systemKey = JSON.stringify(systemMessages);
    const keys = rest.map((message) => JSON.stringify(message));
    const continues =
      state.consumedKeys.length > 0 &&
      systemKey === state.systemKey &&
      keys.length >= state.consumedKeys.length &&
      state.consumedKeys.every((key, index) => keys[index] === key);
    const working = continues
      ? [...state.carried, ...toCanonicalMessages(rest.slice(state.consumedKeys.length), state.origins)]
      : toCanonicalMessages(rest, state.origins);
    const system = systemFromMessages(systemMessages);
    const result = await state.compactor.maybeCompact(working, {
      ...(system === undefined ? {} : { system }),
      ...(state.usage === undefined ? {} : { usage: state.usage }),
      ...(params.abortSignal === undefined ? {} : { signal: params.abortSignal }),
    });
    state.systemKey = systemKey;
    state.consumedKeys = keys;
    state.carried = result.messages;
    state.usage = undefined;
    return {
      ...params,
      prompt: [...systemMessages, ...fromCanonicalMessages(result.messages, state.origins)],
    };
  };

  const rememberUsage = (
    params: LanguageModelV3CallOptions,
    usage: LanguageModelV3Usage | undefined,
  ): void => {
    const id = idsByParams.get(params);
    const state = id === undefined ? undefined : conversations.get(id);
    const providerUsage = providerUsageOf(usage);
    if (state && providerUsage) state.usage = providerUsage;
  };

  return {
    specificationVersion: 'v3',
    async transformParams({ params }) {
      const id = conversationId?.(params) ?? defaultConversationId(params);
      const state = stateFor(id);
      const run = state.queue.then(() => compactParams(state, params));
      state.queue = run.catch(() => undefined);
      const transformed = await run;
      idsByParams.set(transformed, id);
      return transformed;
    },
    async wrapGenerate({ doGenerate, params }) {
      const result = await doGenerate();
      rememberUsage(params, result.usage);
      return result;
    },
    async wrapStream({ doStream, params }) {
      const result = await doStream();
      const watch = new TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart>({
        transform(part, controller) {
          if (part.type === 'finish') rememberUsage(params, part.usage);
          controller.enqueue(part);
        },
      });
      return { ...result, stream: result.stream.pipeThrough(watch) };
    },
    compactorFor(id) {
      return conversations.get(id)?.compactor;
    },
  };
}

/** The provider usage the compactor anchors its count to, from the AI SDK's usage. */
function providerUsageOf(usage: LanguageModelV3Usage | undefined): ProviderUsage | undefined {
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

/** A stable id from the system prompt and the first message: the same conversation gives the same id. */
function defaultConversationId(params: LanguageModelV3CallOptions): string {
  const systemCount = leadingSystemCount(params.prompt);
  const opening = JSON.stringify([params.prompt.slice(0, systemCount), params.prompt[systemCount]]);
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
