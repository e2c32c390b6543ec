import { describe, expect, it } from 'vitest';
import { createExtractiveSummaryModel } from '../core/summary/extractive-summary.js';
import { compactedClaudeCodeSession } from '../importers/agent-sessions.test-utils.js';
import { importTranscript } from '../importers/index.js';
import { measureAgentCompactionPoints } from './agent-compactions.js';
import { characters } from './replay.test-utils.js';

const options = { counter: characters, summarizer: createExtractiveSummaryModel() };

describe('measureAgentCompactionPoints', () => {
  it("measures Claude Code's own summary beside agent-compact's hard compaction of the same history", async () => {
    const transcript = importTranscript(compactedClaudeCodeSession(), { source: 's.jsonl' });
    const points = await measureAgentCompactionPoints(transcript, options);
    expect(points).toHaveLength(1);
    const [point] = points;
    expect(point!.lineNumber).toBe(10);
    // The summary names cart.go but not the todo list or the failing command.
    expect(point!.agent['files-edited']).toEqual({ visible: 1, total: 1 });
    expect(point!.agent.todo).toEqual({ visible: 0, total: 2 });
    expect(point!.agent.commands.visible).toBe(0);
    expect(point!.agentCompact.task).toEqual({ visible: 1, total: 1 });
    expect(point!.agentTokens).toBeGreaterThan(0);
    expect(point!.agentCompactTokens).toBeGreaterThan(0);
  });

  it("measures next need at the point in the agent's context, agent-compact's and the others named", async () => {
    const transcript = importTranscript(compactedClaudeCodeSession(), { source: 's.jsonl' });
    // The agent's next call after the boundary reruns the failing test and reads cart.go again.
    transcript.conversation.messages.push({
      role: 'assistant',
      content: [
        { type: 'tool_use', id: 't9', name: 'Bash', input: { command: 'go test ./cart/...' } },
        { type: 'tool_use', id: 't10', name: 'Read', input: { file_path: '/repo/cart.go' } },
      ],
    });
    const points = await measureAgentCompactionPoints(transcript, {
      ...options,
      others: {
        everything: async (history) => [...history],
        nothing: async () => [{ role: 'user', content: 'carry on' }],
      },
    });
    const [point] = points;
    // Claude Code's summary names cart.go, not the command it reruns.
    expect(point!.agentNextNeed.files).toEqual({ visible: 1, total: 1 });
    expect(point!.agentNextNeed.commands).toEqual({ visible: 0, total: 1 });
    expect(point!.agentCompactNextNeed.commands).toEqual({ visible: 1, total: 1 });
    expect(point!.others.everything!.nextNeed.commands).toEqual({ visible: 1, total: 1 });
    expect(point!.others.nothing!.nextNeed.files).toEqual({ visible: 0, total: 1 });
    expect(point!.others.nothing!.tokens).toBeLessThan(point!.others.everything!.tokens);
  });

  it('skips a boundary with no summary and tells why, without throwing', async () => {
    const transcript = importTranscript(compactedClaudeCodeSession({ withSummary: false }), {
      source: 's.jsonl',
    });
    // Drop the attached line too: the agent kept nothing readable.
    transcript.compactions![0]!.attached = [];
    const skipped: string[] = [];
    const points = await measureAgentCompactionPoints(transcript, {
      ...options,
      onSkip: (line, reason) => skipped.push(`${line}: ${reason}`),
    });
    expect(points).toEqual([]);
    expect(skipped).toEqual(['10: the agent kept nothing readable']);
  });
});
