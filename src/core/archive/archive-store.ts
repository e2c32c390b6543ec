import type { ContentBlock, Message } from '../model/messages.js';

/** What kind of thing an archive item holds. */
export type ArchiveItemKind =
  /** A tool result that was replaced by a placeholder. */
  | 'tool-result'
  /** A large `tool_use` input that was elided. */
  | 'tool-input'
  /** Assistant text that was shortened. */
  | 'assistant-text'
  /** Whole messages a summary replaced. */
  | 'messages';

/** One thing that left the context, kept whole so it can be recalled and the history rebuilt. */
export interface ArchiveItem {
  /** Short id, unique in its session, e.g. `r17`. */
  id: string;
  /** The session the item belongs to. */
  sessionId: string;
  kind: ArchiveItemKind;
  /** Milliseconds since the epoch. */
  createdAt: number;
  /** The tool call the item belongs to, for tool results and inputs. */
  toolUseId?: string;
  /** The tool's name, for tool results and inputs. */
  toolName?: string;
  /** The original block (tool-result, tool-input, assistant-text) as it was before the change. */
  block?: ContentBlock;
  /** The original messages (kind `messages`). */
  messages?: Message[];
  /**
   * Kind `messages`: how many messages at the start of the compacted history stand in for them
   * (summary, acknowledgement, request); used to rebuild the original conversation.
   */
  headLength?: number;
  /**
   * The exact text that stood in for the original (a shortened assistant text, a summary's first
   * block). Rebuild replaces only a block with this text, so text that merely looks like a
   * placeholder is never taken for one.
   */
  placeholder?: string;
}

/** Options of {@link ArchiveStore.put}. */
export interface ArchivePutOptions {
  /** Aborted (with the call's `ARCHIVE_FAILED` error as its reason) when the compactor stops waiting. */
  signal?: AbortSignal;
}

/**
 * Where compaction puts what leaves the context. The in-memory store ships in core
 * ({@link createMemoryArchiveStore}); an append-only file store ships in `agent-compact/archive`.
 */
export interface ArchiveStore {
  readonly specificationVersion: 'v1';
  /**
   * Stores items durably before they leave the context. Must not return before they are stored.
   * `options.signal` aborts when the compactor stopped waiting (no answer within 30 s, the call
   * failed `ARCHIVE_FAILED`): a store may then give up a write it has not started. Optional: a
   * store that ignores it stays correct, its late write only archives items no context refers to.
   */
  put(items: readonly ArchiveItem[], options?: ArchivePutOptions): Promise<void>;
  /** One item by id, or undefined. */
  get(sessionId: string, id: string): Promise<ArchiveItem | undefined>;
  /** Every item of a session, in the order stored. */
  list(sessionId: string): Promise<ArchiveItem[]>;
  /** The ids of the sessions that hold items, where the store can list them (the MCP server's `sessions`). */
  sessions?(): Promise<string[]>;
}

/**
 * The items of one {@link ArchiveStore.put} grouped by session, in the order given: a store that
 * keeps one log per session appends each group on its own.
 *
 * @example
 * for (const [sessionId, items] of groupItemsBySession(batch)) await appendToLog(sessionId, items);
 */
export function groupItemsBySession(items: readonly ArchiveItem[]): Map<string, ArchiveItem[]> {
  const bySession = new Map<string, ArchiveItem[]>();
  for (const item of items) {
    const list = bySession.get(item.sessionId) ?? [];
    list.push(item);
    bySession.set(item.sessionId, list);
  }
  return bySession;
}
