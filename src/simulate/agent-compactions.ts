/**
 * The recording agent's own compactions, as a replay and a benchmark use them: what the agent sent
 * in place of the history it compacted, and survival and next need at each of its compaction points
 * for its own context beside agent-compact's (`maybeCompact(history, { force: 'hard' })` on the same
 * history) and any other compaction the caller names (the peers, in the survival bench).
 */

import type { CompactorOptions, Message, SummaryModel, TokenCounter } from 'agent-compact';
import { createCompactor } from 'agent-compact';
import type { AgentCompaction, ImportedTranscript } from 'agent-compact/importers';
import { contentBlocks } from 'agent-compact/wire';
import { agentSentTokens } from './agent-sent-size.js';
import { createNextNeedProbe, type NextNeed } from './next-need.js';
import { createRequestTokenCounter } from './prompt-cache.js';
import { measureSurvival, type Survival } from './survival.js';

/**
 * The messages the agent continued with in place of `messages.slice(0, compaction.index)`: Codex's
 * `replacement_history`, else Claude Code's summary as a user message. Claude Code's attachments are
 * user lines after the summary, already in the messages from `index` on.
 */
export function agentContextAt(compaction: AgentCompaction): Message[] {
  const context: Message[] = [...(compaction.replacementHistory ?? [])];
  if (compaction.summary !== undefined) context.push({ role: 'user', content: compaction.summary });
  return context;
}

/** Joins neighbours of the same role into one message, so a spliced history alternates. */
export function joinSameRole(messages: readonly Message[]): Message[] {
  const joined: Message[] = [];
  for (const message of messages) {
    const last = joined.at(-1);
    if (last && last.role === message.role) {
      joined[joined.length - 1] = {
        ...last,
        content: [...contentBlocks(last), ...contentBlocks(message)],
      };
    } else joined.push(message);
  }
  return joined;
}

/** One compaction point of a transcript, measured both ways. */
export interface CompactionPoint {
  /** The compaction's line in the file. */
  lineNumber: number;
  /** Survival in what the agent itself sent (its summary and attachments, or Codex's replacement). */
  agent: Survival;
  /** Survival in agent-compact's hard compaction of the same history. */
  agentCompact: Survival;
  /** Tokens of the agent's compacted context (messages only). */
  agentTokens: number;
  /** Tokens of agent-compact's compacted context (messages only). */
  agentCompactTokens: number;
  /**
   * Tokens of the agent's own next request beyond its session's smallest one, by its provider's
   * usage scaled to this counter (`agent-sent-size.ts`): what it really sent, with what it attached
   * that the file does not record. Absent without usage around the point.
   */
  agentSentTokens?: number;
  /** Next need (`next-need.ts`) in what the agent itself sent. */
  agentNextNeed: NextNeed;
  /** Next need in agent-compact's hard compaction. */
  agentCompactNextNeed: NextNeed;
  /** Next need and tokens in each of {@link CompactionPointOptions.others}' contexts. */
  others: Record<string, { nextNeed: NextNeed; tokens: number }>;
}

/** Another compaction of the same history, measured beside the agent's and agent-compact's. */
export type PointCompaction = (
  history: readonly Message[],
  system: ImportedTranscript['conversation']['system'],
) => Promise<Message[]>;

/** Options of {@link measureAgentCompactionPoints}. */
export interface CompactionPointOptions {
  counter: TokenCounter;
  summarizer: SummaryModel;
  /** More compactor options, e.g. a ledger once it exists. */
  compactor?: Omit<CompactorOptions, 'counter' | 'summarizer'>;
  /** Told about a point that could not be measured, with why. */
  onSkip?: (lineNumber: number, reason: string) => void;
  /** Tool calls after the point the next-need probe looks at. @default 40 */
  nextCalls?: number;
  /** More compactions to measure at each point, by name (e.g. each peer policy). @default none */
  others?: Record<string, PointCompaction>;
}

/**
 * At each of the recording agent's own compaction points, survival and size of its compacted
 * context beside agent-compact's hard compaction of the same history. Points with an empty history
 * or nothing the agent kept are skipped (and reported through `onSkip`).
 *
 * @example
 * const points = await measureAgentCompactionPoints(await importTranscriptFile(path), {
 *   counter: createTiktokenCounter(),
 *   summarizer: createExtractiveSummaryModel(),
 * });
 */
export async function measureAgentCompactionPoints(
  transcript: ImportedTranscript,
  { counter, summarizer, compactor = {}, onSkip, nextCalls, others = {} }: CompactionPointOptions,
): Promise<CompactionPoint[]> {
  const tokens = createRequestTokenCounter(counter);
  const points: CompactionPoint[] = [];
  const { messages, system } = transcript.conversation;
  const probe = createNextNeedProbe({ messages }, nextCalls === undefined ? {} : { nextCalls });
  for (const compaction of transcript.compactions ?? []) {
    const history = messages.slice(0, compaction.index);
    const agentContext = [...agentContextAt(compaction), ...compaction.attached];
    if (history.length === 0 || agentContext.length === 0) {
      onSkip?.(
        compaction.lineNumber,
        history.length === 0 ? 'nothing before it' : 'the agent kept nothing readable',
      );
      continue;
    }
    let compacted: Message[];
    try {
      const result = await createCompactor({ ...compactor, counter, summarizer }).maybeCompact(history, {
        force: 'hard',
        ...(system === undefined ? {} : { system }),
      });
      compacted = result.messages;
    } catch (error) {
      onSkip?.(compaction.lineNumber, error instanceof Error ? error.message.split('\n')[0]! : String(error));
      continue;
    }
    const measured: CompactionPoint['others'] = {};
    for (const [name, compact] of Object.entries(others)) {
      const context = await compact(history, system);
      measured[name] = {
        nextNeed: probe.measure(compaction.index, { messages: context }),
        tokens: tokens.request({ messages: context }),
      };
    }
    const sent = agentSentTokens(transcript, compaction, tokens.request({ messages: history }));
    points.push({
      lineNumber: compaction.lineNumber,
      agent: measureSurvival(history, { messages: agentContext }),
      agentCompact: measureSurvival(history, { messages: compacted }),
      agentTokens: tokens.request({ messages: agentContext }),
      agentCompactTokens: tokens.request({ messages: compacted }),
      ...(sent === undefined ? {} : { agentSentTokens: sent }),
      agentNextNeed: probe.measure(compaction.index, { messages: agentContext }),
      agentCompactNextNeed: probe.measure(compaction.index, { messages: compacted }),
      others: measured,
    });
  }
  return points;
}
