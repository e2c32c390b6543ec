/** Runs the requests of one session one after another, different sessions in parallel. */

/** A queue per key. */
export interface SessionQueue {
  /** Runs `task` after every earlier task of the same key has settled. */
  run<T>(key: string, task: () => Promise<T>): Promise<T>;
}

/** Creates an empty {@link SessionQueue}. */
export function createSessionQueue(): SessionQueue {
  const tails = new Map<string, Promise<unknown>>();
  return {
    run(key, task) {
      const previous = tails.get(key) ?? Promise.resolve();
      const result = previous.then(task, task);
      const tail = result.catch(() => {});
      tails.set(key, tail);
      // The last task of a key removes the key, so idle sessions cost nothing here.
      void tail.then(() => {
        if (tails.get(key) === tail) tails.delete(key);
      });
      return result;
    },
  };
}
