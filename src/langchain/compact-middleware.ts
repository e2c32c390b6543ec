import { type AIMessage, type BaseMessage, RemoveMessage } from '@langchain/core/messages';
import { createMiddleware } from 'langchain';
import { fromOpenAIMessages } from '../core/conversation/openai-format.js';
import type { Message, ProviderUsage } from '../core/model/messages.js';
import { ConversationThreads, type IntegrationOptions } from '../integrations/conversation-threads.js';
import { fromCoreMessages, toChatView } from './message-conversion.js';
import { placeSystemMessagesBack, splitSystemMessages } from './system-placement.js';

/** LangGraph's "remove every message" id, understood by the messages reducer. */
const REMOVE_ALL_MESSAGES = '__remove_all__';

/** Options of {@link agentCompactMiddleware}. */
export interface AgentCompactMiddlewareOptions extends IntegrationOptions {
  /**
   * `false` (default): compact in `wrapModelCall`, per model call; the graph's state keeps every
   * message. `true`: compact in `beforeModel` and write the result into the state (older messages
   * are replaced through the messages reducer), so checkpoints hold the compacted conversation.
   * `beforeModel` is not told the model call's tools: there placeholders name archive ids only
   * with `recall: true`.
   * @default false
   */
  persist?: boolean;
  /**
   * Tells conversations apart. By default a call continues the conversation (same first message, in
   * the same LangGraph thread when the agent runs on one) whose last call it repeats and extends, or
   * whose last call's newest two messages it still holds in a row (earlier ones dropped or
   * rewritten); two that open alike never share one.
   */
  conversationId?: (messages: readonly BaseMessage[]) => string | undefined;
}

/**
 * A LangChain `createAgent` middleware that keeps the conversation inside the model's window with
 * agent-compact's three layers, anchored on the last `AIMessage`'s `usage_metadata`.
 *
 * @example
 * import { createAgent } from 'langchain';
 * const agent = createAgent({ model: 'openai:gpt-5', tools, middleware: [agentCompactMiddleware({ contextWindow: 128_000 })] });
 */
export function agentCompactMiddleware(options: AgentCompactMiddlewareOptions = {}) {
  const { persist = false, conversationId, ...integration } = options;
  const threads = new ConversationThreads(integration);
  const compactMessages = async (
    messages: BaseMessage[],
    systemPrompt: string | undefined,
    tools: readonly unknown[] | undefined,
    threadId: string | undefined,
  ) => {
    // System messages stay out of compaction and go back where they stood.
    const split = splitSystemMessages(messages);
    const systemMessages = messages.filter((message) => message.type === 'system');
    const view = toChatView(split.conversation);
    // Persisted, the compacted messages come back as the next call's history: that call continues.
    // They are written once here, and handed back below.
    let written: BaseMessage[] | undefined;
    const keysOf = persist
      ? (compacted: Message[]) => {
          written = fromCoreMessages(compacted, view);
          return toChatView(written).chat.map((message) => JSON.stringify(message));
        }
      : undefined;
    threads.warnAbout(view.unknownTypes, 'message');
    // The agent's prompt, then each system message's text, collected as the core collects them.
    const { system } = fromOpenAIMessages([
      ...(systemPrompt ? [{ role: 'system' as const, content: systemPrompt }] : []),
      ...toChatView(systemMessages).chat,
    ]);
    const compacted = await threads.compact({
      conversationId: conversationId?.(messages),
      // Not the system prompt, which apps rewrite on every call (the time, retrieved context).
      opening: openingOf(view.chat[0] ?? null, threadId),
      keys: view.chat.map((message) => JSON.stringify(message)),
      read: (from) => fromOpenAIMessages(view.chat.slice(from)).messages,
      system,
      usage: lastUsage(messages),
      toolNames: tools && (() => tools.flatMap(toolName)),
      ...(keysOf ? { keysOf } : {}),
    });
    return placeSystemMessagesBack(written ?? fromCoreMessages(compacted, view), split);
  };
  const middleware = persist
    ? createMiddleware({
        name: 'AgentCompactMiddleware',
        beforeModel: async (state, runtime) => {
          const messages = state.messages as BaseMessage[];
          // `beforeModel` is not told the model call's tools.
          const compacted = await compactMessages(messages, undefined, undefined, threadIdOf(runtime));
          if (
            compacted.length === messages.length &&
            compacted.every((message, index) => message === messages[index])
          ) {
            return undefined;
          }
          return { messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...compacted] };
        },
      })
    : createMiddleware({
        name: 'AgentCompactMiddleware',
        wrapModelCall: async (request, handler) =>
          handler({
            ...request,
            messages: await compactMessages(
              request.messages,
              request.systemPrompt,
              request.tools,
              threadIdOf(request.runtime),
            ),
          }),
      });
  return Object.assign(middleware, { compactorFor: (id: string) => threads.compactorFor(id) });
}

/**
 * What names a conversation's compactor (and its archive and state store session) when no
 * `conversationId` does: its first message, within the LangGraph thread when the agent runs on one.
 * Two threads often open alike ("hi"); named by the first message alone, their sessions were
 * numbered in the order they were first seen, which a restarted process may see the other way
 * round, and a thread resumed there loaded the other's ledger and summary from the stores.
 */
function openingOf(first: unknown, threadId: string | undefined): unknown {
  return threadId === undefined ? first : { thread: threadId, first };
}

/** The LangGraph thread the agent runs on (`configurable.thread_id`), if any. */
function threadIdOf(runtime: { configurable?: { thread_id?: unknown } } | undefined): string | undefined {
  const threadId = runtime?.configurable?.thread_id;
  return typeof threadId === 'string' ? threadId : undefined;
}

/** The prompt size the provider reported for the last model call, from its `usage_metadata`. */
function lastUsage(messages: readonly BaseMessage[]): ProviderUsage | undefined {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (message.type !== 'ai') continue;
    const usage = (message as AIMessage).usage_metadata;
    if (!usage) return undefined;
    return { prompt_tokens: usage.input_tokens, completion_tokens: usage.output_tokens };
  }
  return undefined;
}

/**
 * The name a model call's tool goes by: a LangChain tool's `name`, or a provider tool given as a
 * plain object (`{ name }`, or Chat Completions' `{ type: 'function', function: { name } }`).
 */
function toolName(tool: unknown): string[] {
  if (typeof tool !== 'object' || tool === null) return [];
  const { name, function: fn } = tool as { name?: unknown; function?: { name?: unknown } };
  if (typeof name === 'string') return [name];
  return typeof fn?.name === 'string' ? [fn.name] : [];
}
