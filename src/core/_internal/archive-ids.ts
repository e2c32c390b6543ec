import type { ArchiveItem } from '../archive/archive-store.js';
import type { ContentBlock, ToolResultBlock, ToolUseBlock } from '../model/messages.js';
import { safeJson, toolResultText } from './text.js';

/**
 * Hands out short archive ids (`r1`, `r2`, …) and gives the same id again for the same original,
 * so compacting the same history twice yields byte-identical output.
 */
export class ArchiveIds {
  private next = 1;
  /** The latest id each key was given. */
  private readonly byKey = new Map<string, string>();
  /** The key each id was given for (a key names more than one original when ids repeat). */
  private readonly keyOfId = new Map<string, string>();
  /** The ids whose original's print ({@link originalPrint}) was taken. */
  private readonly printed = new Set<string>();
  /** The id of each key and print, as `key` NUL `print`. */
  private readonly byPrint = new Map<string, string>();
  /** Keys given to more than one original: their latest id is no pointer to any one of them. */
  private readonly shared = new Set<string>();
  private readonly stored = new Set<string>();
  /** The keys with an original stored under them. */
  private readonly storedKeys = new Set<string>();
  private reuses = false;

  /**
   * True once the session was seen to reuse a tool call id (two calls under one id in a history,
   * or two archived originals under one key): from then on each original is told apart by its
   * print, so one under a reused id never takes another's archive id.
   */
  get reusesIds(): boolean {
    return this.reuses;
  }

  /** Records that the session reuses tool call ids (see {@link ArchiveIds.reusesIds}). */
  noteReusedIds(): void {
    this.reuses = true;
  }

  /** Continues numbering after the items a store already holds (a resumed session). */
  restore(items: readonly ArchiveItem[]): void {
    const byKey = new Map<string, ArchiveItem[]>();
    for (const item of items) {
      const number = Number(item.id.slice(1));
      if (Number.isInteger(number) && number >= this.next) this.next = number + 1;
      const key = keyOf(item);
      if (key !== undefined) {
        this.remember(key, item.id);
        const group = byKey.get(key);
        if (group) group.push(item);
        else byKey.set(key, [item]);
        this.storedKeys.add(key);
      }
      this.stored.add(item.id);
    }
    // Originals that share a key (a reused tool call id) are told apart by a hash of what they
    // hold; the others by their size, as they were printed when archived.
    for (const [key, group] of byKey) {
      const full = group.length > 1;
      if (full) this.reuses = true;
      for (const item of group)
        if (item.block !== undefined) this.remember(key, item.id, originalPrint(item.block, full));
    }
  }

  /**
   * The id for an original identified by `key`, and whether an item with that id is already
   * stored. A plan that is dropped keeps its ids but stores nothing, so `known` stays false.
   * `print` ({@link originalPrint}) tells two originals under one key apart: a client that reuses
   * a tool call id (`call_0` on every turn) gets a new id for each result, never another's.
   */
  idFor(key: string | undefined, print?: string): { id: string; known: boolean } {
    const found = key === undefined ? undefined : this.idOf(key, print);
    if (found !== undefined) return { id: found, known: this.stored.has(found) };
    const id = `r${this.next++}`;
    if (key !== undefined) this.remember(key, id, print);
    return { id, known: false };
  }

  /**
   * The id already given the original: with a print, the id given that print under the key, or
   * the key's latest id if that was given without one (an id of the state, not of the archive);
   * without a print, the key's latest id. Another print under a printed key is another original:
   * a new id loses nothing.
   */
  private idOf(key: string, print: string | undefined): string | undefined {
    const latest = this.byKey.get(key);
    if (print === undefined) return latest;
    const same = this.byPrint.get(`${key}\u0000${print}`);
    return same ?? (latest !== undefined && !this.printed.has(latest) ? latest : undefined);
  }

  /**
   * The id of a stored original, without handing one out (undefined when none is stored, or when
   * the key named several originals: a pointer to the latest could name another call's result).
   */
  storedId(key: string | undefined): string | undefined {
    if (key === undefined || this.shared.has(key)) return undefined;
    const id = this.byKey.get(key);
    return id !== undefined && this.stored.has(id) ? id : undefined;
  }

  /** Records items the store has accepted. */
  markStored(items: readonly ArchiveItem[]): void {
    for (const item of items) {
      this.stored.add(item.id);
      const key = this.keyOfId.get(item.id);
      if (key !== undefined) this.storedKeys.add(key);
    }
  }

  /**
   * True when an original under `key` is stored: a placeholder without an id for that key is this
   * session's, though under a reused tool call id no one id says which original it stands for.
   */
  holdsKey(key: string | undefined): boolean {
    return key !== undefined && this.storedKeys.has(key);
  }

  /**
   * True when `id` is an id this session gave an original `key` names: a placeholder naming it
   * stands in for that original. Text that only looks like a placeholder names some other id.
   */
  issued(key: string | undefined, id: string): boolean {
    return key !== undefined && this.keyOfId.get(id) === key && this.stored.has(id);
  }

  /** The ids handed out, as plain JSON (what the archive alone cannot tell: ids of dropped plans). */
  toState(): { next: number; keys: Record<string, string> } {
    return { next: this.next, keys: Object.fromEntries(this.byKey) };
  }

  /** Continues from {@link ArchiveIds.toState}, after {@link ArchiveIds.restore} read the archive. */
  restoreState(state: { next: number; keys: Record<string, string> }): void {
    this.next = Math.max(this.next, state.next);
    for (const [key, id] of Object.entries(state.keys)) this.remember(key, id);
  }

  private remember(key: string, id: string, print?: string): void {
    const latest = this.byKey.get(key);
    if (latest !== undefined && latest !== id) this.shared.add(key);
    this.byKey.set(key, id);
    this.keyOfId.set(id, key);
    if (print === undefined) return;
    this.printed.add(id);
    this.byPrint.set(`${key}\u0000${print}`, id);
  }
}

/** Characters of each end of a text a cheap print hashes. */
const PRINT_SAMPLE_CHARS = 256;

/**
 * What an archived block held, short: two originals under one tool call id differ in it. `full`:
 * a hash of all of it, for a session seen reusing ids (where a key names several calls); else its
 * size and a hash of its two ends, which costs little and still tells apart the results of an id
 * reused before the session noticed (the first one summarized away, the next one masked).
 */
export function originalPrint(block: ContentBlock, full: boolean, text?: string): string {
  if (full) return `h:${hashText(safeJson(block))}`;
  if (block.type === 'tool_result') {
    const result = block as ToolResultBlock;
    // Parts other than text (images, documents) show in the JSON of the content, not in its text.
    const shown =
      typeof result.content === 'string' || result.content === undefined
        ? (text ?? toolResultText(result))
        : safeJson(result.content);
    return `n:${endsPrint(shown)}${result.is_error === true ? 'e' : ''}`;
  }
  return `n:${endsPrint(safeJson(block.type === 'tool_use' ? (block as ToolUseBlock).input : block))}`;
}

/** A text's length and a hash of its first and last {@link PRINT_SAMPLE_CHARS} characters. */
function endsPrint(text: string): string {
  const sample =
    text.length <= 2 * PRINT_SAMPLE_CHARS
      ? text
      : text.slice(0, PRINT_SAMPLE_CHARS) + text.slice(-PRINT_SAMPLE_CHARS);
  return `${text.length}:${hashText(sample)}`;
}

/** The identity of an archived original, used to give it the same id every time. */
export function archiveKey(
  kind: ArchiveItem['kind'],
  toolUseId: string | undefined,
  text = '',
): string | undefined {
  switch (kind) {
    case 'tool-result':
    case 'tool-input':
      return toolUseId === undefined ? undefined : `${kind}:${toolUseId}`;
    case 'assistant-text':
      return `${kind}:${hashText(text)}`;
    case 'messages':
      // The dropped history itself (as JSON): a hard compaction retried after a crash between its
      // archive write and its state save finds its item and reuses its id instead of a new one.
      return `${kind}:${hashText(text)}`;
    default: {
      const exhaustive: never = kind;
      return exhaustive;
    }
  }
}

function keyOf(item: ArchiveItem): string | undefined {
  if (item.kind === 'messages') return archiveKey(item.kind, undefined, JSON.stringify(item.messages ?? []));
  const text = item.block?.type === 'text' && typeof item.block.text === 'string' ? item.block.text : '';
  return archiveKey(item.kind, item.toolUseId, text);
}

/** FNV-1a over the text plus its length: enough to tell originals apart inside one session. */
export function hashText(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return `${(hash >>> 0).toString(36)}.${text.length}`;
}
