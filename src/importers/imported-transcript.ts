/**
 * What every importer returns: the conversation in the canonical model, the provider usage found in
 * the transcript, and where it came from.
 */

import type { RepairChange } from '../core/conversation/repair.js';
import type { Conversation, Message, ProviderUsage } from '../core/model/messages.js';
import { WIRE_FORMATS, type WireFormat } from '../core/model/wire-format.js';

/** A transcript format the importers read. */
export type TranscriptFormat =
  | 'claude-code'
  | 'codex'
  | 'swe-agent'
  | 'mini-swe-agent'
  | WireFormat
  | 'gemini-cli'
  | 'opencode';

/** Every {@link TranscriptFormat}, for argument parsing and help texts. */
export const transcriptFormats: readonly TranscriptFormat[] = [
  'claude-code',
  'codex',
  'swe-agent',
  'mini-swe-agent',
  ...WIRE_FORMATS,
  'gemini-cli',
  'opencode',
];

/** Provider usage as found in a transcript; OpenAI-style reports may say how much was cached. */
export interface ImportedUsage extends ProviderUsage {
  /** OpenAI: details of the prompt, e.g. tokens served from the prompt cache. */
  prompt_tokens_details?: { cached_tokens?: number };
}

/** A transcript read into the canonical model. */
export interface ImportedTranscript {
  /** The conversation; it passes `validateMessages`. */
  conversation: Conversation;
  /**
   * Usage per assistant turn: `usage[t]` is what the provider reported for the request that produced
   * the `t`-th assistant message (0-based, counting assistant messages only), `undefined` where the
   * transcript has none. Before replaying assistant turn `t`, `promptTokensFromUsage(usage[t])` is
   * the prompt size the provider counted for exactly the messages before it. Its length is the
   * number of assistant messages.
   */
  usage: (ImportedUsage | undefined)[];
  /**
   * When each assistant turn's request was made, in milliseconds since the epoch, aligned with
   * `usage`; absent when the transcript records no times (only Claude Code sessions and
   * mini-swe-agent runs do).
   */
  timestamps?: (number | undefined)[];
  /**
   * The compactions the recording agent made itself (Claude Code's `compact_boundary` with its
   * `isCompactSummary` line, Codex's `compacted`), in order; absent when it made none.
   */
  compactions?: AgentCompaction[];
  /** Where the transcript came from. */
  meta: TranscriptMeta;
}

/** One compaction the recording agent made itself. */
export interface AgentCompaction {
  /**
   * Index in `conversation.messages` of the first message after the boundary: the agent compacted
   * `messages.slice(0, index)`, and its next request started from what it kept instead.
   */
  index: number;
  /** The 1-based line of the boundary in the file. */
  lineNumber: number;
  /** The agent's own summary (Claude Code); absent when the file has none or it is encrypted (Codex). */
  summary?: string;
  /** What the agent attached after the summary before its next request (Claude Code). */
  attached: Message[];
  /** The history the agent continued with instead of the compacted part (Codex `replacement_history`). */
  replacementHistory?: Message[];
  /** `auto` or `manual`, when recorded. */
  trigger?: string;
  /** The context size the agent compacted at, when recorded (Claude Code `preTokens`). */
  preTokens?: number;
}

/** Where an imported transcript came from and what was done to it. */
export interface TranscriptMeta {
  /** The format it was read as. */
  format: TranscriptFormat;
  /** The file or name it was read from, when known. */
  source?: string;
  /**
   * Changes `repairMessages` made because the source itself broke the provider's rules; absent when
   * the source was valid as imported.
   */
  repairs?: RepairChange[];
  /** Things in the file that were read with a guess or skipped, one line each, naming the line. */
  warnings?: string[];
}
