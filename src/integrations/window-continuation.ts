import { repairMessages } from '../core/conversation/repair.js';
import type { Message } from '../core/model/messages.js';
import { extendsKeys, newestPairAt } from './thread-routes.js';

/** What a thread keeps between calls to continue the next one from its compacted result. */
export interface ContinuedThread {
  /** Each item of the last call, as JSON. */
  consumedKeys: readonly string[];
  /** What the compactor made of the last call; the next call continues from it. */
  carried: Message[];
  /**
   * Every message read from a call as the app sent it: an app may drop those, while what the
   * compactor wrote in their place (a summary, a masked result) is the thread's own.
   */
  verbatim: WeakSet<Message>;
}

/**
 * The messages to compact for a call of `thread`, whose items are `keys` and whose canonical
 * messages from item `from` on are `read(from)`.
 *
 * A call that repeats the last call and extends it continues from the compacted result. So does a
 * call of an app that keeps only its last N messages (`messages.slice(-N)`): it holds the last
 * call's newest two items in a row and nothing before them the last call lacked, so the compacted
 * result goes on without the messages the app dropped, followed by the call's new items. Read
 * whole, such a call would be summarized again on every call over the hard threshold. Any other
 * call is read whole.
 */
export function continuedMessages(
  thread: ContinuedThread,
  keys: readonly string[],
  read: (from: number) => Message[],
): Message[] {
  const readVerbatim = (from: number) => {
    const messages = read(from);
    for (const message of messages) thread.verbatim.add(message);
    return messages;
  };
  const { consumedKeys, carried } = thread;
  if (extendsKeys(keys, consumedKeys)) return [...carried, ...readVerbatim(consumedKeys.length)];
  const all = readVerbatim(0);
  const from = windowNewItemsAt(keys, consumedKeys);
  if (from === undefined) return all;
  const added = readVerbatim(from);
  return repaired([...withoutDropped(carried, thread.verbatim, all, added), ...added]);
}

/**
 * `carried` without the messages the app dropped: each message taken from a call as it was (in
 * `verbatim`) stays only while the call still holds it before its new messages, newest first, as
 * often as it holds it ("ok" may answer many questions).
 */
function withoutDropped(
  carried: readonly Message[],
  verbatim: WeakSet<Message>,
  all: readonly Message[],
  added: readonly Message[],
): Message[] {
  const held = new Map<string, number>();
  const count = (message: Message, by: number) => {
    const key = JSON.stringify(message);
    held.set(key, (held.get(key) ?? 0) + by);
  };
  for (const message of all) count(message, 1);
  for (const message of added) count(message, -1);
  const kept: Message[] = [];
  for (const message of [...carried].reverse()) {
    const key = JSON.stringify(message);
    const copies = held.get(key) ?? 0;
    if (verbatim.has(message) && copies <= 0) continue;
    if (verbatim.has(message)) held.set(key, copies - 1);
    kept.push(message);
  }
  return kept.reverse();
}

/** A kept tool result may have lost its call with the messages the app dropped: the core repairs that. */
function repaired(messages: Message[]): Message[] {
  try {
    return repairMessages(messages).messages;
  } catch {
    // Not well-typed enough to repair without guessing: the compactor reports it as it is.
    return messages;
  }
}

/**
 * Where the new items of a call begin when it holds the newest two items of the last call
 * (`consumed`) in a row and, before them, only items the last call held: the last N messages of
 * the same conversation. `undefined` for any other call.
 */
export function windowNewItemsAt(keys: readonly string[], consumed: readonly string[]): number | undefined {
  const pair = newestPairAt(keys, consumed);
  if (pair === undefined) return undefined;
  const earlier = new Set(consumed);
  return keys.slice(0, pair).every((key) => earlier.has(key)) ? pair + 2 : undefined;
}
