/**
 * The `actual` strategy: what the recording agent really sent. The history goes whole until the
 * agent's own compaction point; from the first request after it, the compacted part is replaced
 * by what the agent continued with (Claude Code's summary, then the lines it attached; Codex's
 * `replacement_history`), and the history grows from there, to the next boundary. A transcript with
 * no recorded compactions replays as `none`. The agent's own summary call is not in the transcript
 * and is not billed; its requests are billed like every strategy's.
 */
import type { Message } from 'agent-compact';
import type { AgentCompaction } from 'agent-compact/importers';
import { agentContextAt, joinSameRole } from '../agent-compactions.js';
import type { ReplayStrategy, StrategyStep } from '../replay-strategy.js';

/** Replays the agent's own compactions (see the module comment). */
export function createActualStrategy(compactions: readonly AgentCompaction[] = []): ReplayStrategy {
  const pending = [...compactions].sort((left, right) => left.index - right.index);
  let previousSent = 0;
  // Original messages the replay has handed over so far (the strategy's history holds fewer after a cut).
  let consumed = 0;
  return {
    name: 'actual',
    thresholds: undefined,
    async step(input): Promise<StrategyStep> {
      const fresh = input.length - previousSent;
      consumed += fresh;
      let messages: Message[] = [...input];
      let layer: StrategyStep['layer'] = 'none';
      while (pending.length > 0 && pending[0]!.index <= consumed) {
        const compaction = pending.shift()!;
        // The originals from the boundary on are the last `consumed - index` messages of the input.
        const kept = messages.slice(Math.max(0, messages.length - (consumed - compaction.index)));
        messages = joinSameRole([...agentContextAt(compaction), ...kept]);
        layer = 'hard';
      }
      // The next step's input is these messages plus the recorded reply and what follows it.
      previousSent = messages.length;
      return { messages, layer };
    },
  };
}
