import { placeSystemMessages } from '../core/request/system-messages.js';
import { fromResponsesInput, toResponsesInput } from '../core/wire/responses/responses-format.js';
import { ConversationThreads, type IntegrationOptions } from '../integrations/conversation-threads.js';
import { type AgentItem, fromResponsesView, toResponsesView } from './item-conversion.js';

/** Options shared by the filter and the session: the compactor's, plus a warning hook. */
export type AgentsCompactionOptions = IntegrationOptions;

/** Compacts Agents SDK item lists, one compactor per conversation (see {@link ConversationThreads}). */
export class AgentsConversations extends ConversationThreads {
  /** The items the model should see for `items`, compacted when the compactor decides to. */
  async compactItems(
    items: readonly AgentItem[],
    {
      instructions,
      conversationId,
      toolNames,
    }: {
      instructions?: string;
      conversationId?: string;
      /** The names of the tools the model call offers, when the caller knows them. */
      toolNames?: () => Promise<readonly string[]>;
    },
  ): Promise<AgentItem[]> {
    // System and developer messages stay out of compaction and go back where they stood (an
    // instruction added mid-run stays after what came before it); their text is counted with the
    // instructions.
    const { leading, rest, placed } = splitSystemItems(items);
    const systemItems = items.filter(isSystemMessage);
    const view = toResponsesView(rest);
    this.warnAbout(view.unknownTypes, 'item');
    const options = instructions === undefined ? {} : { instructions };
    const messages = await this.compact({
      conversationId,
      // Not the instructions, which an agent may compute on every run (the time, retrieved context).
      opening: rest[0] ?? null,
      keys: rest.map(itemKey),
      read: (from) => fromResponsesInput(view.input.slice(from), options).messages,
      system: fromResponsesInput(toResponsesView(systemItems).input, options).system,
      toolNames,
    });
    const compacted = fromResponsesView(toResponsesInput(messages), view);
    // Micro and mid never move an item: a rewritten one still stands in its old place.
    const inPlace =
      compacted.length === rest.length && compacted.every((item, index) => sameSlot(item, rest[index]!));
    return [
      ...leading,
      ...(placeSystemMessages(compacted, { conversation: rest, placed }, { inPlace }) as AgentItem[]),
    ];
  }
}

/**
 * An item as the thread routes know it: its JSON, without the `id` of a call or its result. The SDK
 * drops that id (and the one in its `providerData`) when it saves a run's items to a session, so the
 * next run holds the same calls without it; keyed with it, each run on a session started a new
 * conversation and summarized the whole history again. The call id tells calls apart.
 */
function itemKey(item: AgentItem): string {
  if (item.type !== 'function_call' && item.type !== 'function_call_result') return JSON.stringify(item);
  return JSON.stringify(item, (key, value: unknown) => (key === 'id' ? undefined : value));
}

/** The system and developer items a list opens with, the other items, and each later one with its place. */
function splitSystemItems(items: readonly AgentItem[]) {
  const leading: AgentItem[] = [];
  const rest: AgentItem[] = [];
  const placed: { message: AgentItem; before: number }[] = [];
  for (const item of items) {
    if (!isSystemMessage(item)) rest.push(item);
    else if (rest.length === 0) leading.push(item);
    else placed.push({ message: item, before: rest.length });
  }
  return { leading, rest, placed };
}

/** Same type and role, and the same call answered or asked. */
function sameSlot(a: AgentItem, b: AgentItem): boolean {
  return a.type === b.type && a.role === b.role && a.callId === b.callId;
}

/** A `system` or `developer` message item (`{ role, content }`, with or without `type: 'message'`). */
function isSystemMessage(item: AgentItem): boolean {
  return (
    (item.type === undefined || item.type === 'message') &&
    (item.role === 'system' || item.role === 'developer')
  );
}
