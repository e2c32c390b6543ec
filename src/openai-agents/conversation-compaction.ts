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
    // System and developer messages stay out of compaction and go back first, as the core
    // collects them; their text is counted with the instructions.
    const systemItems = items.filter(isSystemMessage);
    const rest = items.filter((item) => !isSystemMessage(item));
    const view = toResponsesView(rest);
    this.warnAbout(view.unknownTypes, 'item');
    const options = instructions === undefined ? {} : { instructions };
    const messages = await this.compact({
      conversationId,
      opening: [instructions ?? null, systemItems, rest[0] ?? null],
      keys: rest.map((item) => JSON.stringify(item)),
      read: (from) => fromResponsesInput(view.input.slice(from), options).messages,
      system: fromResponsesInput(toResponsesView(systemItems).input, options).system,
      toolNames,
    });
    return [...systemItems, ...fromResponsesView(toResponsesInput(messages), view)];
  }
}

/** A `system` or `developer` message item (`{ role, content }`, with or without `type: 'message'`). */
function isSystemMessage(item: AgentItem): boolean {
  return (
    (item.type === undefined || item.type === 'message') &&
    (item.role === 'system' || item.role === 'developer')
  );
}
