import type { LedgerState } from '../ledger/ledger-state.js';
/**
 * The contract of where a compactor keeps its own state between calls, so a session can move to
 * another process (or survive a restart) and compact exactly as if it had stayed. The archive holds
 * what left the context; this holds what the compactor knows about the context it returned.
 */

/** The layout version of {@link CompactorState}; a compactor refuses a state of another layout. */
export const COMPACTOR_STATE_SCHEMA = 1;

/** What the anchored counter learned, in plain JSON (fingerprints instead of message objects). */
export interface AnchoredCounterState {
  /** The request the provider's latest report was for. */
  anchor?: {
    /** Content fingerprints of its messages, in order. */
    messages: string[];
    /** Fingerprint of its system prompt and tool definitions. */
    system: string;
    /** The prompt tokens the provider reported. */
    providerTokens: number;
    /** The local count of the same request. */
    localTokens: number;
  };
  /** Provider tokens per local token of the latest whole request. */
  overallRatio: number;
  /** Decayed sum of delta-ratio samples weighted by their local delta. */
  weightedSamples: number;
  /** Decayed sum of the weights. */
  weights: number;
  /** Reports observed. */
  reports: number;
}

/**
 * Everything a compactor knows about one session that is not in the archive, as plain JSON.
 * Treat it as opaque: store and return it unchanged.
 */
export interface CompactorState {
  /**
   * The state format of the compactor that wrote it; a compactor ignores a state of another schema.
   * @default 1 (`COMPACTOR_STATE_SCHEMA` in `agent-compact/internal`)
   */
  schema: number;
  /** Archive ids handed out: the next number and the id each original got (stored or not). */
  ids: { next: number; keys: Record<string, string> };
  /** The request returned by the last call: content fingerprints of its messages and system prompt. */
  lastOutput?: { messages: string[]; system: string };
  /** The token counter's calibration against the provider's usage reports. */
  counter: AnchoredCounterState;
  /**
   * Circuit breaker: whether the last call ran a hard compaction, and what the provider counts
   * beyond the messages, system prompt and tools (learned from usage; absent in older states), and
   * what the last hard compaction left (absent in older states and before the first).
   */
  breaker: { hardOnLastCall: boolean; overheadTokens?: number; hardTokensAfter?: number };
  /** The session ledger (absent in a state written before it existed). */
  ledger?: LedgerState;
}

/** A stored state and its version (1 for the first save, then one more per save). */
export interface StoredSessionState {
  version: number;
  state: CompactorState;
}

/** Options of {@link SessionStateStore.save}. */
export interface SaveSessionStateOptions {
  /**
   * The version the caller loaded, or 0 when it found none. The save must fail with
   * `STATE_CONFLICT` when the stored version is another one.
   */
  expectedVersion: number;
}

/**
 * Where a compactor keeps its state between calls. The memory store ships in core
 * ({@link createMemorySessionStateStore}); `@agent-compact/redis` implements it over Redis.
 *
 * Implementations must save atomically: compare the stored version with `expectedVersion` and
 * write the new state with version `expectedVersion + 1` in one step, or reject with a
 * `CompactError` of code `STATE_CONFLICT` when the versions differ.
 */
export interface SessionStateStore {
  readonly specificationVersion: 'v1';
  /** The stored state of a session, or undefined when none was saved. */
  load(sessionId: string): Promise<StoredSessionState | undefined>;
  /** Saves a session's state if its version is still `expectedVersion`; returns the new version. */
  save(
    sessionId: string,
    state: CompactorState,
    options: SaveSessionStateOptions,
  ): Promise<{ version: number }>;
}
