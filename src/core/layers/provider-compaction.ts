import type { Message } from '../model/messages.js';

/**
 * What {@link providerCompactionBoundary} found in an array: callers push the next turn onto the
 * array they got back, so the next call scans only the messages added since (a message replaced
 * at the last scanned position, or a shorter array, means a new history: it is scanned whole).
 */
const scans = new WeakMap<readonly Message[], Scan>();

interface Scan {
  length: number;
  last: Message | undefined;
  boundary: number;
}

/**
 * Where an earlier provider-side compaction ends: the index of the last message holding a
 * `compaction` block that carries a summary (Anthropic server-side compaction; OpenAI Responses
 * `compaction` items read into the canonical model the same way), or -1. The provider drops what
 * precedes such a block and the block itself is signed, so the compactor leaves everything up to
 * and including that message as it came. A block with neither `content` nor `encrypted_content`
 * is a failed compaction the provider ignores, and no boundary.
 *
 * `previous`: an array scanned before that `messages` may start with (the last request, which an
 * agent copies into a new array with the next turn after it): then only what follows is scanned.
 */
export function providerCompactionBoundary(
  messages: readonly Message[],
  previous?: readonly Message[],
): number {
  const known = scannedPrefix(messages, messages) ?? (previous && scannedPrefix(previous, messages));
  const from = known ? known.length : 0;
  let boundary = known ? known.boundary : -1;
  for (let index = messages.length - 1; index >= from; index--) {
    if (holdsCompaction(messages[index]!)) {
      boundary = index;
      break;
    }
  }
  scans.set(messages, { length: messages.length, last: messages[messages.length - 1], boundary });
  return boundary;
}

/** The scan of `scanned` when `messages` still starts with what it scanned. */
function scannedPrefix(scanned: readonly Message[], messages: readonly Message[]): Scan | undefined {
  const known = scans.get(scanned);
  if (known === undefined || known.length > messages.length) return undefined;
  // The last message scanned still in place: the array was only pushed onto since.
  if (messages[known.length - 1] !== known.last) return undefined;
  if (scanned === messages) return known;
  // Comparing references is far cheaper than looking into every message's blocks.
  for (let index = 0; index < known.length; index++) if (messages[index] !== scanned[index]) return undefined;
  return known;
}

function holdsCompaction(message: Message): boolean {
  const { content } = message;
  if (!Array.isArray(content)) return false;
  for (const block of content) {
    if (typeof block !== 'object' || block === null || block.type !== 'compaction') continue;
    const { content: summary, encrypted_content: encrypted } = block as {
      content?: unknown;
      encrypted_content?: unknown;
    };
    if (isPresent(summary) || isPresent(encrypted)) return true;
  }
  return false;
}

/** A history split at the latest provider compaction (see {@link providerCompactionBoundary}). */
export interface ProviderCompactionSplit {
  /** Up to and including the message with the compaction: sent as it came. Empty when there is none. */
  head: readonly Message[];
  /** What follows: the part the layers plan on (the input itself when there is no boundary). */
  rest: readonly Message[];
}

/** Splits `messages` at the latest provider compaction (`previous` as {@link providerCompactionBoundary} reads it). */
export function splitAtProviderCompaction(
  messages: readonly Message[],
  previous?: readonly Message[],
): ProviderCompactionSplit {
  const boundary = providerCompactionBoundary(messages, previous);
  if (boundary === -1) return { head: [], rest: messages };
  // A compaction turn that also calls tools keeps its results with it: a layer that summarized
  // them away would leave a `tool_use` with no `tool_result`.
  const end = callsTools(messages[boundary]!) && boundary + 1 < messages.length ? boundary + 2 : boundary + 1;
  return { head: messages.slice(0, end), rest: messages.slice(end) };
}

function callsTools(message: Message): boolean {
  return Array.isArray(message.content) && message.content.some((block) => block.type === 'tool_use');
}

function isPresent(value: unknown): boolean {
  return value !== undefined && value !== null;
}
