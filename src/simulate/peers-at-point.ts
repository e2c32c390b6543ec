/**
 * Each peer policy's compaction of a history at a point another agent chose (Claude Code's own
 * compaction points, in the survival bench): a fresh peer whose hard threshold is one token under
 * the history's size, so it summarizes right there, with mid at the defaults' ratio of hard. Its
 * budgets, stated for a 200k window, scale by hard ÷ 200,000 as in a replay.
 */
import type { Message, SummaryModel, SystemPrompt } from 'agent-compact';
import type { PointCompaction } from './agent-compactions.js';
import type { RequestTokenCounter } from './prompt-cache.js';
import { createReplayStrategy, peerNames } from './replay-strategies.js';
import type { PeerName } from './replay-strategy.js';
import { defaultPeerThresholds } from './strategies/_peer-tools.js';
import { defaultCacheTtlSeconds } from './timing.js';

/** Options of {@link peerCompactions}. */
export interface PeerPointOptions {
  summarizer: SummaryModel;
  tokens: RequestTokenCounter;
  /** @default every peer */
  peers?: readonly PeerName[];
}

/** The peers' compactions at a point, by name, for `measureAgentCompactionPoints`' `others`. */
export function peerCompactions({
  summarizer,
  tokens,
  peers = peerNames,
}: PeerPointOptions): Record<string, PointCompaction> {
  const compactions: Record<string, PointCompaction> = {};
  for (const name of peers) {
    compactions[name] = (history, system) => peerContextAt(name, history, { system, summarizer, tokens });
  }
  return compactions;
}

/** What the peer `name` sends in place of `history` when it must compact it now. */
export async function peerContextAt(
  name: PeerName,
  history: readonly Message[],
  {
    system,
    summarizer,
    tokens,
  }: { system: SystemPrompt | undefined; summarizer: SummaryModel; tokens: RequestTokenCounter },
): Promise<Message[]> {
  const hard = Math.max(1, tokens.request({ system, messages: history }) - 1);
  const mid = Math.floor((hard * defaultPeerThresholds.mid) / defaultPeerThresholds.hard);
  const strategy = createReplayStrategy(name, { summarizer, counter: tokens.counter, tokens, mid, hard });
  const step = await strategy.step(history, {
    ...(system === undefined ? {} : { system }),
    time: 0,
    cacheTtlSeconds: defaultCacheTtlSeconds,
  });
  return step.messages;
}
