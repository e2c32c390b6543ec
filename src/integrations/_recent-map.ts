/**
 * A map that keeps its `max` most recently used entries: `get` and `set` mark an entry most
 * recently used, `peek` reads without marking, and a `set` past `max` drops the least recently
 * used. A `Map` iterates in insertion order, so re-inserting on use keeps the oldest first. The
 * core package has no runtime dependency, so this is not `lru-cache`.
 */
export class RecentMap<Key, Value> {
  readonly #entries = new Map<Key, Value>();
  readonly #max: number;

  constructor({ max }: { max: number }) {
    this.#max = Math.max(1, max);
  }

  get(key: Key): Value | undefined {
    if (!this.#entries.has(key)) return undefined;
    const value = this.#entries.get(key) as Value;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  peek(key: Key): Value | undefined {
    return this.#entries.get(key);
  }

  set(key: Key, value: Value): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    while (this.#entries.size > this.#max) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) break;
      this.#entries.delete(oldest.value);
    }
  }

  /** Every entry, least recently used first, without marking any. */
  entries(): IterableIterator<[Key, Value]> {
    return this.#entries.entries();
  }

  get size(): number {
    return this.#entries.size;
  }
}
