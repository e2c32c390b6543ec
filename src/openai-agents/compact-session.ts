import type { AgentInputItem, Session } from '@openai/agents';
import type { Compactor } from '../core/compactor-options.js';
import { type AgentsCompactionOptions, AgentsConversations } from './conversation-compaction.js';
import type { AgentItem } from './item-conversion.js';

/** Options of {@link AgentCompactSession}. */
export interface AgentCompactSessionOptions extends AgentsCompactionOptions {
  /** The instructions the agent runs with: counted and kept as the system prompt when compacting. */
  instructions?: string;
}

/**
 * A `Session` that keeps the whole history in the session it wraps (any `Session`: memory, SQLite,
 * OpenAI Conversations) and hands the runner a compacted view of it. Writes go straight through.
 *
 * @example
 * import { MemorySession, run } from '@openai/agents';
 * const session = new AgentCompactSession(new MemorySession(), { contextWindow: 32_000 });
 * await run(agent, 'Fix the failing test', { session });
 */
export class AgentCompactSession implements Session {
  readonly #inner: Session;
  readonly #conversations: AgentsConversations;
  readonly #instructions: string | undefined;

  constructor(inner: Session, { instructions, ...options }: AgentCompactSessionOptions = {}) {
    this.#inner = inner;
    this.#conversations = new AgentsConversations(options);
    this.#instructions = instructions;
  }

  getSessionId(): Promise<string> {
    return this.#inner.getSessionId();
  }

  /** The history as the model should see it: compacted, the latest `limit` items when given. */
  async getItems(limit?: number): Promise<AgentInputItem[]> {
    const items = await this.#inner.getItems();
    const compacted = await this.#conversations.compactItems(items as unknown as AgentItem[], {
      conversationId: await this.#inner.getSessionId(),
      ...(this.#instructions === undefined ? {} : { instructions: this.#instructions }),
    });
    const view = compacted as unknown as AgentInputItem[];
    return limit === undefined ? view : view.slice(-limit);
  }

  /** The whole history, uncompacted, as the wrapped session holds it. */
  getFullItems(limit?: number): Promise<AgentInputItem[]> {
    return this.#inner.getItems(limit);
  }

  addItems(items: AgentInputItem[]): Promise<void> {
    return this.#inner.addItems(items);
  }

  popItem(): Promise<AgentInputItem | undefined> {
    return this.#inner.popItem();
  }

  clearSession(): Promise<void> {
    return this.#inner.clearSession();
  }

  /** The compactor of this session's conversation, once the history has been read. */
  async compactor(): Promise<Compactor | undefined> {
    return this.#conversations.compactorFor(await this.#inner.getSessionId());
  }
}
