/**
 * One byte budget for everything the proxy holds per session or per client (`--max-memory`): live
 * compactors with their session state and in-memory archives, kept request bodies, dashboard
 * subscribers' unsent bytes, and the requests in flight. Each holder charges entries by key; past
 * the budget the least recently used entries of any holder are evicted first, each by its holder's
 * own `evict`. Requests in flight are reserved, never evicted: the next charge evicts for them, or they
 * wait (`in-flight.ts`).
 */

/**
 * The default budget, 512 MiB: next to the proxy's own ~70 MB at start it keeps the process well
 * under 1 GB, which a laptop with 8 GB spares for a tool that runs all day, and it holds about a
 * hundred Claude Code sessions at 150k tokens (about 1.5 MB of JSON each, charged twice, see
 * {@link HEAP_BYTES_PER_JSON_BYTE}, with their bodies and archives).
 */
export const DEFAULT_MAX_MEMORY_BYTES = 512 * 1024 * 1024;

/**
 * What a parsed JSON value takes in V8's heap per byte of its text. Measured: 1.06 for a
 * conversation of tool results (`JSON.parse`, strings of one byte per character), 1.15 for its
 * `structuredClone`; small objects and text outside Latin-1 (two bytes a character) take more, so
 * entries are charged at twice their JSON bytes.
 */
export const HEAP_BYTES_PER_JSON_BYTE = 2;

interface Entry {
  bytes: number;
  evict: () => void;
  /** The session the entry belongs to: charging one of its entries never evicts another. */
  group: string;
}

/** The shared budget; entries in least-recently-used order (a `Map` keeps insertion order). */
export class MemoryBudget {
  private readonly entries = new Map<string, Entry>();
  /** Charged by {@link MemoryBudget.chargeLater} since the last eviction: spared by it. */
  private readonly spared = new Set<string>();
  private total = 0;
  /** Bytes of the requests in flight ({@link MemoryBudget.reserve}): counted, never evicted. */
  private reservedBytes = 0;
  private evictions = 0;

  constructor(readonly maxBytes: number = DEFAULT_MAX_MEMORY_BYTES) {}

  /**
   * Sets what `key` holds to `bytes` and marks it most recently used, then evicts the least
   * recently used other entries while the total is over the budget. `evict` is what dropping the
   * entry does; it is never called here for an entry of `group` (the session being served, whose
   * compactor and body are charged apart), which is `key` unless given.
   */
  charge(key: string, bytes: number, evict: () => void, group: string = key): void {
    this.set(key, { bytes, evict, group });
    this.trim(group);
  }

  /**
   * Charges `key` without evicting anything yet: for what a request holds before its session is
   * known (its body's parse), so that parse cannot evict the state of the very session it serves.
   * The next {@link MemoryBudget.charge} evicts for it, and spares it.
   */
  chargeLater(key: string, bytes: number, evict: () => void): void {
    this.set(key, { bytes, evict, group: key });
    this.spared.add(key);
  }

  /**
   * Reserves `bytes` for a request in flight. Like {@link MemoryBudget.chargeLater} it evicts
   * nothing yet: the request's session is not known before its body is parsed, and the next
   * {@link MemoryBudget.charge} (that session's, as its exchange starts) evicts least recently used
   * entries for it, sparing the session it serves. When even evicting every entry would not make
   * room beside the reservations already held it returns false, unless `alone` (no other request in
   * flight: it goes through anyway, so a request larger than the budget is slowed, never refused).
   */
  reserve(bytes: number, alone: boolean): boolean {
    if (!alone && this.reservedBytes + bytes > this.maxBytes) return false;
    this.reservedBytes += bytes;
    return true;
  }

  /** Gives back what {@link MemoryBudget.reserve} took. */
  unreserve(bytes: number): void {
    this.reservedBytes -= bytes;
  }

  /** Marks `key` most recently used, its size unchanged. */
  touch(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.entries.set(key, entry);
  }

  /** The bytes charged to `key`, 0 when none. */
  bytesOf(key: string): number {
    return this.entries.get(key)?.bytes ?? 0;
  }

  /** Forgets `key` without evicting it (its holder dropped it). */
  release(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.total -= entry.bytes;
    this.entries.delete(key);
  }

  /** Bytes charged now, the reservations of requests in flight included. */
  get used(): number {
    return this.total + this.reservedBytes;
  }

  /** Bytes reserved now by requests in flight. */
  get reserved(): number {
    return this.reservedBytes;
  }

  /** Entries evicted since start. */
  get evicted(): number {
    return this.evictions;
  }

  private set(key: string, entry: Entry): void {
    const existing = this.entries.get(key);
    if (existing) {
      this.total -= existing.bytes;
      this.entries.delete(key);
    }
    this.entries.set(key, entry);
    this.total += entry.bytes;
  }

  private trim(keep: string): void {
    const spared = new Set(this.spared);
    this.spared.clear();
    for (const [key, entry] of this.entries) {
      if (this.used <= this.maxBytes) return;
      if (entry.group === keep || spared.has(key)) continue;
      this.release(key);
      this.evictions += 1;
      entry.evict();
    }
  }
}
