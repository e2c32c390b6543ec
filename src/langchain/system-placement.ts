/**
 * Where a LangChain list's system messages go after compaction. They stay out of compaction and go
 * back where they stood: those the list opens with first, a later one (an instruction the app adds
 * mid-conversation) before the message it stood before, as the core places Anthropic's. ChatOpenAI
 * sends a mid-list `SystemMessage` where it stands, and ChatAnthropic and the Google models refuse
 * one that is not first rather than move it, so its place is the app's to choose, not ours.
 */
import type { AIMessage, BaseMessage, ToolMessage } from '@langchain/core/messages';
import { placeSystemMessages, type SystemMessagesAmong } from '../core/request/system-messages.js';

/** A list's system messages: those it opens with, and each later one with its place. */
export interface SystemSplit extends SystemMessagesAmong<BaseMessage> {
  leading: BaseMessage[];
}

/** Takes the system messages out of `messages`, noting where each stood. */
export function splitSystemMessages(messages: readonly BaseMessage[]): SystemSplit {
  const split = {
    leading: [] as BaseMessage[],
    conversation: [] as BaseMessage[],
    placed: [] as { message: BaseMessage; before: number }[],
  };
  for (const message of messages) {
    if (message.type !== 'system') split.conversation.push(message);
    else if (split.conversation.length === 0) split.leading.push(message);
    else split.placed.push({ message, before: split.conversation.length });
  }
  return split;
}

/** `compacted` (the other messages, compacted) with the system messages back where they stood. */
export function placeSystemMessagesBack(
  compacted: readonly BaseMessage[],
  split: SystemSplit,
): BaseMessage[] {
  // Micro and mid rewrite content and never move a message: a rewritten message (a new object)
  // still stands in its old place, so each system message goes back at its own index.
  const inPlace =
    compacted.length === split.conversation.length &&
    compacted.every((message, index) => sameSlot(message, split.conversation[index]!));
  return [...split.leading, ...(placeSystemMessages(compacted, split, { inPlace }) as BaseMessage[])];
}

/** Same type, and the same tool call ids asked or answered. */
function sameSlot(a: BaseMessage, b: BaseMessage): boolean {
  const calls = (message: BaseMessage) =>
    JSON.stringify(((message as AIMessage).tool_calls ?? []).map((call) => call.id));
  return (
    a.type === b.type &&
    (a as ToolMessage).tool_call_id === (b as ToolMessage).tool_call_id &&
    calls(a) === calls(b)
  );
}
