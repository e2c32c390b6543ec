import type { RecentMap } from './_recent-map.js';

/** What routing reads of a thread: the items of its last call, as JSON keys. */
export interface RoutedThread {
  consumedKeys: readonly string[];
  /** The keys of the last call's compacted messages, when the framework keeps those instead. */
  carriedKeys?: readonly string[];
}

/**
 * Which thread a call without a conversation id belongs to, and one call at a time per opening.
 *
 * Without an id, a call is known only by how it opens (its first message, not the system prompt,
 * which may change on every call), and two users' chats may open alike ("hi"). A thread's
 * compactor carries what it saw (its summary, ledger, working set and archive), so a call goes to a
 * thread whose last call it repeats item for item and extends: whatever the thread carries came
 * from messages the call itself holds. An app that drops or rewrites earlier messages repeats no
 * last call, but still holds that call's newest two items one after the other (the model's last
 * answer and what followed it, which another chat does not send): such a call continues that
 * thread too. So does one of another opening that holds nothing before those two the last call
 * lacked, as an app that sends only its last N messages opens each call with another one. A call
 * that holds all of the last call but its newest item (a side call's own message, or the message
 * the user edited) continues the thread too. Any other call starts a thread of its own, named
 * after the opening with a number (`conv-…`, then `conv-….1`).
 */
export class ThreadRoutes {
  #forks = 0;
  readonly #queues = new Map<string, Promise<unknown>>();

  /**
   * The thread of `opening` the call continues (the one whose last call is the longest prefix of
   * `keys`), else a new id: `opening` itself while it names no thread, else a numbered fork.
   */
  route<Thread extends RoutedThread>(
    threads: RecentMap<string, Thread>,
    opening: string,
    keys: readonly string[],
  ): string {
    const ofOpening = [...threads.entries()].filter(([id]) => isOf(id, opening));
    const holdsNewestOf = ([, thread]: [string, Thread]) =>
      [thread.consumedKeys, thread.carriedKeys ?? []].some((last) => holdsNewest(keys, last));
    return (
      longestExtended(ofOpening, keys, (thread) => [thread.consumedKeys, thread.carriedKeys ?? []]) ??
      // The last call was a side call, or the user edited their last message.
      longestExtended(ofOpening, keys, (thread) => [allButLast(thread.consumedKeys)]) ??
      ofOpening.find(holdsNewestOf)?.[0] ??
      // An app that sends its last N messages opens each call with another one once the window
      // slides; it holds nothing before the newest two that the thread's last call lacked.
      [...threads.entries()].find(
        ([, thread]) => windowNewItemsAt(keys, thread.consumedKeys) !== undefined,
      )?.[0] ??
      this.#newId(threads, opening)
    );
  }

  /** `opening` itself while it names no thread, else a numbered fork. */
  #newId(threads: RecentMap<string, RoutedThread>, opening: string): string {
    if (threads.peek(opening) === undefined) return opening;
    this.#forks += 1;
    return `${opening}.${this.#forks}`;
  }

  /**
   * Runs `task` after every task queued under `key` has settled: a route is decided on the state
   * the previous call of the same opening left, and one compactor never runs two calls at once.
   */
  serially<Result>(key: string, task: () => Promise<Result>): Promise<Result> {
    const previous = this.#queues.get(key) ?? Promise.resolve();
    const run = previous.then(task);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.#queues.set(key, settled);
    // The map holds a key only while a call of it is queued or running.
    void settled.then(() => {
      if (this.#queues.get(key) === settled) this.#queues.delete(key);
    });
    return run;
  }
}

/**
 * True when `keys` holds the newest two of `last` one after the other, past its opening item: the
 * same conversation with earlier items dropped or rewritten. Two items, not one, as one short
 * message ("ok", "continue") may well end another chat of the same opening.
 */
export function holdsNewest(keys: readonly string[], last: readonly string[]): boolean {
  return newestPairAt(keys, last) !== undefined;
}

/** Where `keys` holds the newest two of `last` one after the other, past its opening item (see {@link holdsNewest}). */
function newestPairAt(keys: readonly string[], last: readonly string[]): number | undefined {
  if (last.length < 3) return undefined;
  const [before, newest] = last.slice(-2);
  for (let index = 1; index + 1 < keys.length; index++) {
    if (keys[index] === before && keys[index + 1] === newest) return index;
  }
  return undefined;
}

/**
 * The {@link ThreadRoutes.serially} key of thread `id`'s compactor, apart from the openings' keys:
 * a call waits for its opening's route, then for the thread, which a call of another opening may
 * be compacting.
 */
export function threadQueue(id: string): string {
  return `thread ${id}`;
}

/** The thread with the longest of its `prefixesOf` that `keys` extends, if any. */
function longestExtended<Thread>(
  threads: readonly [string, Thread][],
  keys: readonly string[],
  prefixesOf: (thread: Thread) => readonly (readonly string[])[],
): string | undefined {
  let best: string | undefined;
  let bestLength = -1;
  for (const [id, thread] of threads) {
    for (const prefix of prefixesOf(thread)) {
      if (prefix.length <= bestLength || !extendsKeys(keys, prefix)) continue;
      best = id;
      bestLength = prefix.length;
    }
  }
  return best;
}

/** True when thread `id` was started by a call of `opening` (its name, or a numbered fork of it). */
function isOf(id: string, opening: string): boolean {
  return id === opening || id.startsWith(`${opening}.`);
}

/**
 * Every item of a last call but its newest, which a call holds after a side call (the history plus
 * a message of its own: a title, suggestions, structured output) or when it edits its last message:
 * the same conversation, as it holds the model's answers. None for a call of under three items,
 * whose opening alone another chat may repeat (see {@link holdsNewest}).
 */
export function allButLast(last: readonly string[]): readonly string[] {
  return last.length < 3 ? [] : last.slice(0, -1);
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

/** True when `keys` repeats every one of `consumed`, in order, from the start. */
export function extendsKeys(keys: readonly string[], consumed: readonly string[]): boolean {
  return (
    consumed.length > 0 &&
    keys.length >= consumed.length &&
    consumed.every((key, index) => keys[index] === key)
  );
}
