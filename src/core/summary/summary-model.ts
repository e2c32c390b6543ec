import type { Message, SystemPrompt } from '../model/messages.js';

/**
 * Token usage a summary call reported. The compactor passes on only counts that are non-negative
 * whole numbers: a field reported as -5, 12.5, `"12"`, NaN or Infinity is left out of the
 * `summary-usage` event.
 */
export interface SummaryUsage {
  inputTokens?: number;
  outputTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
}

/** What the hard layer asks a {@link SummaryModel} to do. */
export interface SummaryRequest {
  /** The agent's system prompt, sent unchanged so the provider's prompt cache can be reused. */
  system?: SystemPrompt;
  /**
   * A valid conversation that ends with a user message carrying the summary instructions. The
   * prefix before that message is the agent's own history where it fits, so cached tokens are reused.
   */
  messages: Message[];
  /** The upper bound for the answer. */
  maxOutputTokens: number;
  /**
   * What the summary should keep in focus (the `compact` tool's `focus`), also written into the
   * instructions; given separately for models that do not read instructions.
   */
  focus?: string;
  /**
   * The session ledger (facts the compactor recorded: files, commands, errors, the plan, the
   * user's messages), also written into the instructions as ground truth. It is attached to the
   * summary as is, so the summary need not repeat it.
   */
  ledger?: string;
}

/** What a {@link SummaryModel} answers. */
export interface SummaryResult {
  /** The summary text. */
  text: string;
  /** Usage reported by the provider, surfaced in events. */
  usage?: SummaryUsage;
}

/** Options for one summary call. */
export interface SummaryCallOptions {
  /** Aborts the call. */
  signal?: AbortSignal;
}

/** The provider of a summary model that is the agent's own model with its own settings. */
export const SAME_MODEL_PROVIDER = 'same';

/**
 * A model that writes summaries. Adapters over the official SDKs implement it
 * (`agent-compact/anthropic`, `agent-compact/openai`); {@link createExtractiveSummaryModel} is the
 * offline one. Throw a `CompactError` with code `SUMMARY_FAILED` when every try failed.
 */
export interface SummaryModel {
  readonly specificationVersion: 'v1';
  /**
   * Provider name, e.g. `anthropic`, `openai`, `extractive`. `same` is the agent's own model,
   * called with the agent's own request settings (the proxy's default summarizer): it gets the
   * history exactly as the agent sent it, signed reasoning included, so its request can read the
   * agent's cached prefix; every other summarizer gets it without what another model cannot read.
   */
  readonly provider: string;
  /** The model id. */
  readonly modelId: string;
  /** The model's own context window in tokens, when known; larger histories are summarized in chunks. */
  readonly contextWindow?: number;
  /** Writes one summary. */
  summarize(request: SummaryRequest, options?: SummaryCallOptions): Promise<SummaryResult>;
}
