/**
 * The `langchain` peer: LangChain v1 agent middleware, replayed.
 *
 * Sources: langchain-ai/langchainjs `libs/langchain/src/agents/middleware/summarization.ts` and
 * `contextEditing.ts` (langchain 1.x on npm).
 * - `summarizationMiddleware({ trigger: { tokens: hard }, keep: { messages: 20 } })`: before a model
 *   call whose state passes the trigger, everything but the last 20 messages is summarized; the
 *   cut-off moves earlier until it does not split an AI message with tool calls from its tool
 *   messages. The state becomes the summary (a human message) plus the kept messages — a change to
 *   the history. Messages are counted as LangChain does: each tool result is its own message.
 * - `contextEditingMiddleware({ edits: [new ClearToolUsesEdit({ trigger: { tokens: mid }, keep:
 *   { messages: 3 } })] })`: on each model call over the trigger, every tool result but the 3 newest
 *   is replaced with `[cleared]` in the request only; the state keeps the originals, so each request
 *   is edited afresh.
 * Clearing counts as `micro`, a summary as `hard`.
 */
import type { Message } from 'agent-compact';
import { contentBlocks } from 'agent-compact/wire';
import type { ReplayStrategy } from '../replay-strategy.js';
import { createSummarizeThenClearStrategy } from './_peer-steps.js';
import { isToolResultMessage, type PeerOptions } from './_peer-tools.js';

/** Messages `summarizationMiddleware` keeps after a summary (`keep: { messages: 20 }`). */
export const LANGCHAIN_KEEP_MESSAGES = 20;
/** Tool results `ClearToolUsesEdit` keeps (`keep: { messages: 3 }`, its default). */
export const LANGCHAIN_CLEAR_KEEP = 3;
/** `ClearToolUsesEdit`'s default placeholder. */
export const LANGCHAIN_CLEARED_PLACEHOLDER = '[cleared]';

const framing = 'Here is a summary of the conversation to date:';

/** LangChain's number of messages in a canonical message: each tool result is a `ToolMessage`. */
function langchainMessageCount(message: Message): number {
  if (!isToolResultMessage(message)) return 1;
  return contentBlocks(message).length;
}

/** Index of the first kept message: the last 20 LangChain messages, moved earlier to keep tool pairs whole. */
function cutoffIndex(messages: readonly Message[]): number {
  let kept = 0;
  let index = messages.length;
  while (index > 0 && kept < LANGCHAIN_KEEP_MESSAGES) {
    index--;
    kept += langchainMessageCount(messages[index]!);
  }
  // A cut-off on tool results would leave them without their call: move earlier to the call.
  while (index > 0 && isToolResultMessage(messages[index]!)) index--;
  return index;
}

/** LangChain's summarization and context-editing middleware over the run's thresholds. */
export function createLangchainStrategy(options: PeerOptions): ReplayStrategy {
  // The agent state is the previous request with the request-only clearing undone.
  return createSummarizeThenClearStrategy('langchain', options, {
    framing,
    keepFrom: cutoffIndex,
    keep: LANGCHAIN_CLEAR_KEEP,
    placeholder: LANGCHAIN_CLEARED_PLACEHOLDER,
  });
}
