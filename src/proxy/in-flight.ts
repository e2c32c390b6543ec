/**
 * Admission of the requests in flight into `--max-memory`. A request whose body the proxy reads
 * holds the bytes, their parse and the compaction work until its answer is done; that is reserved
 * in the {@link MemoryBudget} (evicting idle sessions first), and a request it has no room for
 * waits, first come first served, until earlier ones are done. So concurrency costs time, not
 * memory. A request larger than the budget ever gives still goes through once it is alone, so
 * `--max-body` stays the only size limit and nothing waits forever.
 */
import { HEAP_BYTES_PER_JSON_BYTE, type MemoryBudget } from './memory-budget.js';

/**
 * What a request holds per byte of its body while in flight: the bytes and their parse
 * ({@link HEAP_BYTES_PER_JSON_BYTE}), and one more for the compaction's work and its garbage.
 * Measured on 25 MB requests of tool results (`npm run bench -- memory`): 3.2 bytes a byte retained
 * (heap and external after a full GC) while a request waits for its answer, 4 to 7 with its garbage
 * at the peak of the one being compacted (one thread compacts one at a time), 4.0–4.4 of RSS growth
 * with eight in flight at once.
 */
export const IN_FLIGHT_BYTES_PER_BODY_BYTE = 2 + HEAP_BYTES_PER_JSON_BYTE;

/** A request let in: its reservation, held until `release` (called once or many times). */
export interface Admitted {
  type: 'admitted';
  /** True when it waited for room: its body, left unread meanwhile, may belong to a client gone. */
  waited: boolean;
  /** Raises the reservation to `bodyBytes` (a body larger once decoded), without waiting. */
  grow(bodyBytes: number): void;
  release(): void;
}

/** How a request's wait ended: let in, its client gone, or waited `timeoutMs` in vain. */
export type Admission = Admitted | { type: 'closed' } | { type: 'timed-out' };

/** How long a request may wait, and who hears that it does. */
export interface AdmitOptions {
  signal: AbortSignal;
  timeoutMs: number;
  onWait?: () => void;
}

interface Waiter {
  bytes: number;
  admit(): void;
}

/** The requests in flight and the ones waiting for room, in arrival order. */
export class InFlightRequests {
  private readonly waiting: Waiter[] = [];
  private admitted = 0;

  constructor(private readonly budget: MemoryBudget) {}

  /**
   * Lets a request with a body of `bodyBytes` in, at once or once there is room (`onWait` hears
   * that it waits); gives up when `signal` aborts (its client left) or after `timeoutMs`.
   */
  admit(bodyBytes: number, { signal, timeoutMs, onWait }: AdmitOptions): Promise<Admission> {
    const bytes = bodyBytes * IN_FLIGHT_BYTES_PER_BODY_BYTE;
    if (signal.aborted) return Promise.resolve({ type: 'closed' });
    // Behind anyone waiting, even when it would fit: a large request is not overtaken forever.
    if (this.waiting.length === 0 && this.reserve(bytes))
      return Promise.resolve(this.admission(bytes, false));
    onWait?.();
    return this.wait(bytes, signal, timeoutMs);
  }

  /** Requests let in and not yet released. */
  get size(): number {
    return this.admitted;
  }

  /** Requests waiting for room. */
  get queued(): number {
    return this.waiting.length;
  }

  private wait(bytes: number, signal: AbortSignal, timeoutMs: number): Promise<Admission> {
    return new Promise((resolve) => {
      const settle = (admission: Admission) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        resolve(admission);
      };
      const waiter: Waiter = { bytes, admit: () => settle(this.admission(bytes, true)) };
      const leave = (type: 'closed' | 'timed-out') => {
        this.waiting.splice(this.waiting.indexOf(waiter), 1);
        settle({ type });
        // The one leaving may have been what held the next ones back.
        this.admitWaiting();
      };
      const onAbort = () => leave('closed');
      const timer = setTimeout(() => leave('timed-out'), timeoutMs);
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  /** Lets in the waiting requests from the first, while there is room. */
  private admitWaiting(): void {
    for (let first = this.waiting[0]; first && this.reserve(first.bytes); first = this.waiting[0]) {
      this.waiting.shift();
      first.admit();
    }
  }

  private reserve(bytes: number): boolean {
    if (!this.budget.reserve(bytes, this.admitted === 0)) return false;
    this.admitted += 1;
    return true;
  }

  private admission(bytes: number, waited: boolean): Admitted {
    let held = bytes;
    let released = false;
    return {
      type: 'admitted',
      waited,
      grow: (bodyBytes) => {
        const more = bodyBytes * IN_FLIGHT_BYTES_PER_BODY_BYTE - held;
        if (released || more <= 0) return;
        this.budget.reserve(more, true);
        held += more;
      },
      release: () => {
        if (released) return;
        released = true;
        this.admitted -= 1;
        this.budget.unreserve(held);
        this.admitWaiting();
      },
    };
  }
}
