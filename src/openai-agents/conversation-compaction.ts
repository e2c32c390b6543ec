import { createHash } from 'node:crypto';
import { createCompactor } from '../core/compactor.js';
import type { Compactor, CompactorOptions } from '../core/compactor-options.js';
import { fromResponsesInput, toResponsesInput } from '../core/conversation/responses-format.js';
import type { Message } from '../core/conversation/types.js';
import { type AgentItem, fromResponsesView, toResponsesView } from './item-conversion.js';

/** Options shared by the filter and the session: the compactor's, plus a warning hook. */
export interface AgentsCompactionOptions extends CompactorOptions {
  /** Told once per item type the conversion does not know (such items pass through whole). */
  onWarning?: (message: string) => void;
}

/** One conversation's compactor and what it compacted last, so the next call continues from it. */
interface ConversationState {
  compactor: Compactor;
  /** The JSON of each item the last call was given. */
  consumedKeys: string[];
  /** The compacted conversation of the last call, in the canonical model. */
  carried: Message[];
}

/**
 * Compacts Agents SDK item lists, one compactor per conversation. A call whose items repeat the
 * previous call's plus new ones continues from the previous compacted result, so a hard
 * compaction holds across turns (the SDK sends the whole history each time).
 */
export class AgentsConversations {
  readonly #options: AgentsCompactionOptions;
  readonly #conversations = new Map<string, ConversationState>();
  readonly #warned = new Set<string>();

  constructor(options: AgentsCompactionOptions) {
    this.#options = options;
  }

  /** The compactor of a conversation, once it has been seen. */
  compactorFor(id: string): Compactor | undefined {
    return this.#conversations.get(id)?.compactor;
  }

  /** The items the model should see for `items`, compacted when the compactor decides to. */
  async compact(
    items: readonly AgentItem[],
    {
      instructions,
      conversationId,
      signal,
    }: { instructions?: string; conversationId?: string; signal?: AbortSignal },
  ): Promise<AgentItem[]> {
    const id = conversationId ?? defaultConversationId(instructions, items);
    const state = this.#stateOf(id);
    const keys = items.map((item) => JSON.stringify(item));
    const continues =
      state.consumedKeys.length > 0 &&
      keys.length >= state.consumedKeys.length &&
      state.consumedKeys.every((key, index) => keys[index] === key);
    const view = toResponsesView(items);
    this.#warnAbout(view.unknownTypes);
    const fresh = continues ? view.input.slice(state.consumedKeys.length) : view.input;
    const converted = fromResponsesInput(fresh, instructions === undefined ? {} : { instructions });
    const working = continues ? [...state.carried, ...converted.messages] : converted.messages;
    const system = fromResponsesInput([], instructions === undefined ? {} : { instructions }).system;
    const result = await state.compactor.maybeCompact(working, {
      ...(system === undefined ? {} : { system }),
      ...(signal === undefined ? {} : { signal }),
    });
    state.consumedKeys = keys;
    state.carried = result.messages;
    return fromResponsesView(toResponsesInput(result.messages), view);
  }

  #stateOf(id: string): ConversationState {
    let state = this.#conversations.get(id);
    if (!state) {
      const { onWarning: _, ...compactorOptions } = this.#options;
      state = {
        compactor: createCompactor({ ...compactorOptions, sessionId: id }),
        consumedKeys: [],
        carried: [],
      };
      this.#conversations.set(id, state);
    }
    return state;
  }

  #warnAbout(types: readonly string[]) {
    for (const type of types) {
      if (this.#warned.has(type)) continue;
      this.#warned.add(type);
      this.#options.onWarning?.(
        `agent-compact: item type "${type}" is not converted; it passes through whole`,
      );
    }
  }
}

/** A stable id from the instructions and the first item: the same conversation gives the same id. */
function defaultConversationId(instructions: string | undefined, items: readonly AgentItem[]): string {
  const opening = JSON.stringify([instructions ?? null, items[0] ?? null]);
  return `agents-${createHash('sha256').update(opening).digest('hex').slice(0, 16)}`;
}
