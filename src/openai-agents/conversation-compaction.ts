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
    const view = toResponsesView(items);
    this.warnAbout(view.unknownTypes, 'item');
    const options = instructions === undefined ? {} : { instructions };
    const messages = await this.compact({
      conversationId,
      opening: [instructions ?? null, items[0] ?? null],
      keys: items.map((item) => JSON.stringify(item)),
      read: (from) => fromResponsesInput(view.input.slice(from), options).messages,
      system: fromResponsesInput([], options).system,
      toolNames,
    });
    return fromResponsesView(toResponsesInput(messages), view);
  }
}
