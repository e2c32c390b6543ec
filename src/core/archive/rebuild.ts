import { archiveIdInPlaceholder, isElidedField, isPlaceholderText } from '../_internal/placeholder.js';
import { toolResultText } from '../_internal/text.js';
import type { ContentBlock, Message, ToolResultBlock } from '../model/messages.js';
import type { ArchiveItem } from './archive-store.js';

const summaryHeadPattern = /^<context_summary recall="(r\d+)">/;
const summaryHeadWithoutId = '<context_summary>';

/**
 * The archive items by id, and by what names them when the text does not (a compactor with
 * `recall: false` writes no ids): a tool result or input by its call, a summary head or shortened
 * text by the placeholder recorded with it.
 */
interface ItemIndex {
  byId: Map<string, ArchiveItem>;
  /** Items of a tool call (`tool-result:<id>`), oldest first: a reused call id has one per result. */
  byCall: Map<string, ArchiveItem[]>;
  /** Items of a tool call by the placeholder each was replaced with (a compactor without recall). */
  bySaid: Map<string, ArchiveItem[]>;
  unnamed: UnnamedPlaceholders;
  /** Summary items by their summary, oldest first: two hard compactions may write the same one. */
  bySummary: Map<string, ArchiveItem[]>;
  byPlaceholder: Map<string, ArchiveItem>;
}

/**
 * How placeholders without an id take a call's items when it has several (a reused call id). A
 * first pass counts them per slot (the call, or the call and the placeholder's text when items
 * were archived with it) and gathers the ids other placeholders name; the second gives each slot
 * its newest items in order (older ones may stand for results a later summary holds whole).
 */
interface UnnamedPlaceholders {
  counting: boolean;
  named: Set<string>;
  met: Map<string, number>;
  next: Map<string, number>;
}

function push<Key>(map: Map<Key, ArchiveItem[]>, key: Key, item: ArchiveItem): void {
  const list = map.get(key);
  if (list) list.push(item);
  else map.set(key, [item]);
}

function indexItems(items: readonly ArchiveItem[]): ItemIndex {
  const index: ItemIndex = {
    byId: new Map(),
    byCall: new Map(),
    bySaid: new Map(),
    unnamed: { counting: false, named: new Set(), met: new Map(), next: new Map() },
    bySummary: new Map(),
    byPlaceholder: new Map(),
  };
  for (const item of items) {
    index.byId.set(item.id, item);
    if ((item.kind === 'tool-result' || item.kind === 'tool-input') && item.toolUseId !== undefined) {
      const call = `${item.kind}:${item.toolUseId}`;
      push(index.byCall, call, item);
      if (item.placeholder !== undefined) push(index.bySaid, `${call}\u0000${item.placeholder}`, item);
    }
    const summary = item.placeholder === undefined ? undefined : summaryBlock(item.placeholder);
    if (item.kind === 'messages' && summary?.startsWith(summaryHeadWithoutId))
      push(index.bySummary, summary, item);
    if (item.kind === 'assistant-text' && item.placeholder !== undefined)
      index.byPlaceholder.set(item.placeholder, item);
  }
  return index;
}

/**
 * Rebuilds the original conversation from a compacted one and its archive: placeholders become the
 * archived blocks again and each summary becomes the messages it replaced. This is the proof that
 * compaction loses nothing.
 *
 * @example
 * const original = rebuildConversation(result.messages, await compactor.archive.list(compactor.sessionId));
 */
export function rebuildConversation(messages: readonly Message[], items: readonly ArchiveItem[]): Message[] {
  const index = indexItems(items);
  if (![...index.byCall.values()].some((queue) => queue.length > 1)) return rebuildWith(messages, index, 0);
  // A reused call id: count its placeholders without an id, then give them its newest items that
  // no placeholder names by id and none was archived saying (a session seen reusing ids names
  // them from then on; without recall, one archived with its placeholder's text is that one's).
  const { unnamed } = index;
  unnamed.counting = true;
  rebuildWith(messages, index, 0);
  unnamed.counting = false;
  for (const [call, queue] of index.byCall) {
    const left = queue.filter((item) => !unnamed.named.has(item.id) && item.placeholder === undefined);
    if (left.length > 0) index.byCall.set(call, left);
  }
  return rebuildWith(messages, index, 0);
}

/** `within`: the summary items being expanded around `messages`, which a head inside them is not. */
function rebuildWith(
  messages: readonly Message[],
  items: ItemIndex,
  depth: number,
  within: ReadonlySet<ArchiveItem> = new Set(),
): Message[] {
  if (depth > 1000) throw new Error('archive items refer to each other in a cycle');
  const output: Message[] = [];
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index]!;
    const summarized = summarizedBy(message, items, within);
    if (summarized?.messages) {
      output.push(...rebuildWith(summarized.messages, items, depth + 1, new Set([...within, summarized])));
      index += (summarized.headLength ?? 2) - 1;
      continue;
    }
    output.push(restoreMessage(message, items));
  }
  return output;
}

/**
 * The summary item this message is the head of, when it is one (not text that looks like one): by
 * the id its head names, or, for a head without one, by the summary recorded with the item.
 */
function summarizedBy(
  message: Message,
  items: ItemIndex,
  within: ReadonlySet<ArchiveItem>,
): ArchiveItem | undefined {
  if (message.role !== 'user' || typeof message.content === 'string') return undefined;
  const first = message.content[0];
  if (first?.type !== 'text' || typeof first.text !== 'string') return undefined;
  const id = summaryHeadPattern.exec(first.text)?.[1];
  const summary = id === undefined ? summaryBlock(first.text) : undefined;
  // Without an id, the newest item with that summary not already being expanded (an older
  // compaction that wrote the same summary is the one inside it).
  const item =
    id !== undefined
      ? items.byId.get(id)
      : summary === undefined
        ? undefined
        : items.bySummary
            .get(summary)
            ?.filter((each) => !within.has(each))
            .at(-1);
  return item?.kind === 'messages' && matchesPlaceholder(item, first.text) ? item : undefined;
}

/**
 * Items written before `placeholder` existed match by id and kind alone. A summary head matches on
 * its `<context_summary>` block: the session ledger after it is the compactor's running record, which
 * a call retried after a crash may render with more in it than the attempt that archived the item.
 */
function matchesPlaceholder(item: ArchiveItem, text: string): boolean {
  if (item.placeholder === undefined || item.placeholder === text) return true;
  const summary = summaryBlock(item.placeholder);
  return summary !== undefined && summary === summaryBlock(text);
}

function summaryBlock(text: string): string | undefined {
  const end = text.indexOf(summaryClose);
  return end < 0 ? undefined : text.slice(0, end + summaryClose.length);
}

const summaryClose = '</context_summary>';

function restoreMessage(message: Message, items: ItemIndex): Message {
  if (typeof message.content === 'string') return message;
  let changed = false;
  const content = message.content.map((block) => {
    const original = archivedOriginal(block, items);
    if (original === undefined) return block;
    changed = true;
    return original;
  });
  return changed ? { ...message, content } : message;
}

/**
 * The archived original a block stands in for. A block is taken for a placeholder only when the
 * item its text names was archived for that very block: a tool result or input of the same
 * `tool_use` id, or a text equal to the placeholder recorded with the item. A tool output that
 * merely reads like a placeholder stays as it is.
 */
function archivedOriginal(block: ContentBlock, items: ItemIndex): ContentBlock | undefined {
  if (block.type === 'tool_result') {
    const result = block as ToolResultBlock;
    const item = itemNamedBy(toolResultText(result), items, `tool-result:${result.tool_use_id}`);
    return item?.kind === 'tool-result' && item.toolUseId === result.tool_use_id ? item.block : undefined;
  }
  if (block.type === 'text' && typeof block.text === 'string') {
    const item = itemNamedBy(block.text, items) ?? items.byPlaceholder.get(block.text);
    return item?.kind === 'assistant-text' && matchesPlaceholder(item, block.text) ? item.block : undefined;
  }
  if (block.type === 'tool_use' && typeof block.input === 'object' && block.input !== null) {
    for (const value of Object.values(block.input as Record<string, unknown>)) {
      if (!isElidedField(value)) continue;
      const item = itemNamedBy(value, items, `tool-input:${String(block.id)}`);
      if (item?.kind === 'tool-input' && item.toolUseId === block.id) return item.block;
    }
  }
  return undefined;
}

/**
 * The item a placeholder names by id, or, for one without an id, the next item archived for
 * `call` (see {@link UnnamedPlaceholders}; the last one again once all are taken).
 */
function itemNamedBy(text: string, items: ItemIndex, call?: string): ArchiveItem | undefined {
  const id = archiveIdInPlaceholder(text);
  if (id !== undefined) {
    if (items.unnamed.counting) items.unnamed.named.add(id);
    return items.byId.get(id);
  }
  if (call === undefined || !isPlaceholderText(text)) return undefined;
  const all = items.byCall.get(call);
  if (!all || all.length < 2) return all?.[0];
  const slot = `${call}\u0000${text}`;
  const said = items.bySaid.get(slot);
  return takeInOrder(said ? slot : call, said ?? all, items.unnamed);
}

/** The next of `candidates` for a placeholder without an id in `slot` (see {@link UnnamedPlaceholders}). */
function takeInOrder(
  slot: string,
  candidates: readonly ArchiveItem[],
  state: UnnamedPlaceholders,
): ArchiveItem {
  if (state.counting) {
    state.met.set(slot, (state.met.get(slot) ?? 0) + 1);
    return candidates[0]!;
  }
  const position = state.next.get(slot) ?? Math.max(0, candidates.length - (state.met.get(slot) ?? 0));
  state.next.set(slot, position + 1);
  return candidates[Math.min(position, candidates.length - 1)]!;
}
