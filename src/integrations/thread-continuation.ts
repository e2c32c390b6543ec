import { repairMessages } from '../core/conversation/repair.js';
import type { Message } from '../core/model/messages.js';
import { allButLast, extendsKeys, windowNewItemsAt } from './thread-routes.js';

/** A call of a thread as the next call may continue it: its items, and what the compactor made of them. */
export interface ThreadCallSnapshot {
  /** Each item of the call, as JSON. */
  consumedKeys: readonly string[];
  /** What the compactor made of the call's items; the next call continues from it. */
  carried: Message[];
}

/** What a thread keeps between calls to continue the next one from its compacted result. */
export interface ContinuedThread extends ThreadCallSnapshot {
  /**
   * The call the last one continued from, when it continued one. An app may send a side call (a
   * title, suggestions, `generateObject`) with the history plus a message of its own; the
   * conversation's next call continues from the call before it.
   */
  previous: ThreadCallSnapshot | undefined;
  /**
   * Every message read from a call as the app sent it: an app may drop those, while what the
   * compactor wrote in their place (a summary, a masked result) is the thread's own.
   */
  verbatim: WeakSet<Message>;
}

/** The messages to compact for a call, and the call of the thread it continues, if any. */
export interface Continuation {
  messages: Message[];
  from: ThreadCallSnapshot | undefined;
}

/**
 * The messages to compact for a call of `thread`, whose items are `keys` and whose canonical
 * messages from item `from` on are `read(from)`.
 *
 * A call that repeats the last call and extends it continues from its compacted result; so does one
 * that holds all of the last call but its newest item and extends the call the last one continued
 * (the last was a side call, or the user edited their last message). So does a call of an app that
 * keeps only its last N messages (`messages.slice(-N)`): it holds the last call's newest two items
 * in a row and nothing before them the last call lacked, so the compacted result goes on without
 * the messages the app dropped, followed by the call's new items. Read whole, such calls would be
 * summarized again on every call over the hard threshold. Any other call is read whole.
 */
export function continuedMessages(
  thread: ContinuedThread,
  keys: readonly string[],
  read: (from: number) => Message[],
): Continuation {
  const readVerbatim = (from: number) => {
    const messages = read(from);
    for (const message of messages) thread.verbatim.add(message);
    return messages;
  };
  const continueFrom = (snapshot: ThreadCallSnapshot): Continuation => ({
    messages: [...snapshot.carried, ...readVerbatim(snapshot.consumedKeys.length)],
    from: snapshot,
  });
  if (extendsKeys(keys, thread.consumedKeys)) return continueFrom(thread);
  // The last call was a side call, or the user edited their last message: go on from the call before.
  const { previous } = thread;
  if (
    previous &&
    extendsKeys(keys, allButLast(thread.consumedKeys)) &&
    extendsKeys(keys, previous.consumedKeys)
  )
    return continueFrom(previous);
  const all = readVerbatim(0);
  const from = windowNewItemsAt(keys, thread.consumedKeys);
  if (from === undefined) return { messages: all, from: undefined };
  const added = readVerbatim(from);
  const kept = withoutDropped(thread.carried, thread.verbatim, all, added);
  return { messages: repaired([...kept, ...added]), from: thread };
}

/** Records a call of `thread`: its items, what the compactor made of them, and the call it continued. */
export function rememberCall(
  thread: ContinuedThread,
  call: ThreadCallSnapshot,
  from: ThreadCallSnapshot | undefined,
): void {
  // Copied first: `from` may be the thread itself.
  thread.previous = from && { consumedKeys: from.consumedKeys, carried: from.carried };
  thread.consumedKeys = call.consumedKeys;
  thread.carried = call.carried;
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
