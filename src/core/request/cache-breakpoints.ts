/**
 * Anthropic prompt-cache breakpoints (`cache_control` on a block) across a compaction: the
 * client's breakpoints on blocks that survive stay, the last message keeps one when it had one,
 * and the request never carries more than the API accepts.
 */
import type { CacheControl, ContentBlock, Message, ToolResultBlock } from '../model/messages.js';
import { isPlainObject } from './request-format.js';

/** Anthropic rejects a request with more `cache_control` blocks than this. */
export const MAX_CACHE_BREAKPOINTS = 4;

/** Blocks the API refuses a `cache_control` on. */
const uncacheableTypes = new Set(['thinking', 'redacted_thinking']);

/** Options of {@link keepCacheBreakpoints}. */
export interface KeepCacheBreakpointsOptions {
  /** The messages as the client sent them. */
  before: readonly Message[];
  /** The messages after compaction. */
  after: readonly Message[];
  /** Breakpoints outside the messages (system blocks, tool definitions); never moved. */
  fixedBreakpoints: number;
}

/**
 * Returns `after` with the client's breakpoints restored on the blocks that survived (a tool
 * result replaced by its placeholder is the same block), one on the last message when the client
 * had one there, and the oldest message breakpoints dropped while the request has more than
 * {@link MAX_CACHE_BREAKPOINTS}. Messages it does not change are the same objects.
 */
export function keepCacheBreakpoints({
  before,
  after,
  fixedBreakpoints,
}: KeepCacheBreakpointsOptions): Message[] {
  const byBlock = clientBreakpoints(before);
  let output = after.map((message) => (byBlock.size === 0 ? message : restoreOnBlocks(message, byBlock)));
  const lastBefore = before.at(-1);
  const lastMark = lastBefore ? lastBreakpoint(lastBefore) : undefined;
  const lastAfter = output.at(-1);
  if (lastMark && lastAfter && !lastBreakpoint(lastAfter)) {
    output = [...output.slice(0, -1), markLastBlock(lastAfter, lastMark)];
  }
  return dropOldest(output, fixedBreakpoints);
}

/** How many breakpoints the system prompt and the tool definitions carry. */
export function countFixedBreakpoints(system: unknown, tools: readonly object[] | undefined): number {
  const marked = (value: unknown) => isPlainObject(value) && isPlainObject(value.cache_control);
  const systemCount = Array.isArray(system) ? system.filter(marked).length : 0;
  return systemCount + (tools ?? []).filter(marked).length;
}

/** How many breakpoints the messages carry, tool result contents included. */
export function countMessageBreakpoints(messages: readonly Message[]): number {
  let count = 0;
  for (const message of messages) {
    if (typeof message.content === 'string') continue;
    for (const block of message.content) count += blockBreakpoints(block);
  }
  return count;
}

function blockBreakpoints(block: ContentBlock): number {
  const own = hasMark(block) ? 1 : 0;
  const content = (block as ToolResultBlock).content;
  if (block.type !== 'tool_result' || !Array.isArray(content)) return own;
  return own + content.filter(hasMark).length;
}

/** The client's breakpoints on tool calls and results, by the id that survives compaction. */
function clientBreakpoints(messages: readonly Message[]): Map<string, CacheControl> {
  const marks = new Map<string, CacheControl>();
  for (const message of messages) {
    if (typeof message.content === 'string') continue;
    for (const block of message.content) {
      const key = blockKey(block);
      if (key && hasMark(block)) marks.set(key, block.cache_control as CacheControl);
    }
  }
  return marks;
}

function blockKey(block: ContentBlock): string | undefined {
  if (block.type === 'tool_use' && typeof block.id === 'string') return `use:${block.id}`;
  if (block.type === 'tool_result' && typeof block.tool_use_id === 'string')
    return `result:${block.tool_use_id}`;
  return undefined;
}

function restoreOnBlocks(message: Message, byBlock: Map<string, CacheControl>): Message {
  if (typeof message.content === 'string') return message;
  let changed = false;
  const content = message.content.map((block) => {
    const key = blockKey(block);
    const mark = key === undefined ? undefined : byBlock.get(key);
    if (!mark || hasMark(block)) return block;
    changed = true;
    return { ...block, cache_control: mark };
  });
  return changed ? { ...message, content } : message;
}

function lastBreakpoint(message: Message): CacheControl | undefined {
  if (typeof message.content === 'string') return undefined;
  for (const block of message.content.toReversed()) {
    if (hasMark(block)) return block.cache_control as CacheControl;
    const inner = (block as ToolResultBlock).content;
    if (block.type === 'tool_result' && Array.isArray(inner)) {
      const marked = inner.findLast(hasMark);
      if (marked) return marked.cache_control as CacheControl;
    }
  }
  return undefined;
}

/** Puts the breakpoint on the last block that may carry one. */
function markLastBlock(message: Message, mark: CacheControl): Message {
  const content: ContentBlock[] =
    typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content.slice();
  const index = content.findLastIndex((block) => !uncacheableTypes.has(block.type));
  if (index === -1) return message;
  content[index] = { ...content[index]!, cache_control: mark };
  return { ...message, content };
}

/** Drops message breakpoints from the oldest on while the request has too many; the last message keeps its own. */
function dropOldest(messages: Message[], fixedBreakpoints: number): Message[] {
  let excess = fixedBreakpoints + countMessageBreakpoints(messages) - MAX_CACHE_BREAKPOINTS;
  if (excess <= 0) return messages;
  const output = messages.slice();
  for (let index = 0; index < output.length - 1 && excess > 0; index++) {
    const message = output[index]!;
    if (typeof message.content === 'string') continue;
    const content = message.content.map((block) => {
      if (excess <= 0 || blockBreakpoints(block) === 0) return block;
      excess -= blockBreakpoints(block);
      return withoutMarks(block);
    });
    output[index] = { ...message, content };
  }
  return output;
}

function withoutMarks(block: ContentBlock): ContentBlock {
  const { cache_control: _dropped, ...rest } = block as ContentBlock & { cache_control?: unknown };
  const content = (rest as ToolResultBlock).content;
  if (rest.type !== 'tool_result' || !Array.isArray(content)) return rest as ContentBlock;
  return { ...rest, content: content.map((inner) => withoutMarks(inner)) } as ContentBlock;
}

function hasMark(block: unknown): block is { cache_control: CacheControl } {
  return isPlainObject(block) && isPlainObject(block.cache_control);
}
