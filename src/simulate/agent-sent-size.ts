/**
 * How large the recording agent's own request after a compaction really was, as its provider
 * counted it. The session file does not record everything the agent sent then: Claude Code re-reads
 * the files it was working on and attaches them with its summary, and only the provider's usage
 * shows them. The survival bench prints this beside the size of the recorded text, so the two
 * agents' compacted contexts are compared by what each sends.
 */

import { promptTokensFromUsage } from 'agent-compact/counters';
import type { AgentCompaction, ImportedTranscript } from 'agent-compact/importers';

/**
 * The agent's first request after `compaction`, less the smallest request of the session (its system
 * prompt, tools and first prompt), scaled to the caller's tokenizer by the history's own ratio: the
 * last request before the point, less the same smallest one, counted `historyTokens` in the
 * caller's tokens. Undefined when the transcript has no usage on either side of the point, or the
 * smallest request is not smaller than the one before it.
 *
 * @example
 * const sent = agentSentTokens(transcript, compaction, tokens.request({ messages: history }));
 */
export function agentSentTokens(
  transcript: Pick<ImportedTranscript, 'usage' | 'conversation'>,
  compaction: Pick<AgentCompaction, 'index'>,
  historyTokens: number,
): number | undefined {
  // A request the provider counted at 0 tokens is a synthetic line (Claude Code writes some), not a request.
  const prompts = transcript.usage.map((usage) => {
    const tokens = promptTokensFromUsage(usage);
    return tokens !== undefined && tokens > 0 ? tokens : undefined;
  });
  const counted = prompts.filter((tokens): tokens is number => tokens !== undefined);
  if (counted.length === 0) return undefined;
  const smallest = Math.min(...counted);
  const firstAfter = transcript.conversation.messages
    .slice(0, compaction.index)
    .filter((message) => message.role === 'assistant').length;
  const after = prompts.slice(firstAfter).find((tokens) => tokens !== undefined);
  const before = prompts.slice(0, firstAfter).findLast((tokens) => tokens !== undefined);
  if (after === undefined || before === undefined || before <= smallest) return undefined;
  return Math.round(((after - smallest) / (before - smallest)) * historyTokens);
}
