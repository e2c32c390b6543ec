import { describe, expect, it } from 'vitest';
import { validateMessages } from '../core/conversation/validate.js';
import type { Message } from '../core/model/messages.js';
import { createExtractiveSummaryModel } from '../core/summary/extractive-summary.js';
import { codexRolloutLines, compactedClaudeCodeSession } from '../importers/agent-sessions.test-utils.js';
import { importTranscript } from '../importers/index.js';
import { defaultPriceTable } from '../proxy/price-table.js';
import { simulationToJson, simulationToText } from './format-results.js';
import { createRequestTokenCounter } from './prompt-cache.js';
import { replayTranscript } from './replay.js';
import { characters } from './replay.test-utils.js';
import { renderReport } from './report.js';
import { simulate, simulationInputOf } from './simulate.js';
import { createActualStrategy } from './strategies/actual.js';

async function sentRequests(text: string): Promise<Message[][]> {
  const imported = importTranscript(text, { source: 's.jsonl' });
  const sent: Message[][] = [];
  await replayTranscript(
    { messages: imported.conversation.messages, usage: imported.usage },
    {
      strategy: createActualStrategy(imported.compactions),
      tokens: createRequestTokenCounter(characters),
      prices: defaultPriceTable,
      onRequest: (_turn, request) => sent.push([...request.messages]),
    },
  );
  return sent;
}

describe('strategy actual', () => {
  it("sends the history until Claude Code's boundary, then its summary and attachments in its place", async () => {
    const sent = await sentRequests(compactedClaudeCodeSession());
    expect(sent).toHaveLength(6);
    expect(JSON.stringify(sent[3])).toContain('TodoWrite');
    const afterBoundary = JSON.stringify(sent[4]);
    expect(afterBoundary).toContain('This session is being continued');
    expect(afterBoundary).toContain('Called the Read tool');
    expect(afterBoundary).not.toContain('TodoWrite');
    // The next request grows from the compacted one.
    expect(sent[5]!.slice(0, sent[4]!.length)).toEqual(sent[4]);
    for (const messages of sent) expect(validateMessages(messages)).toEqual([]);
  });

  it("sends Codex's replacement_history in place of what it compacted", async () => {
    const sent = await sentRequests(`${codexRolloutLines().join('\n')}\n`);
    expect(sent).toHaveLength(3);
    expect(JSON.stringify(sent[1])).toContain('go test');
    expect(JSON.stringify(sent[2])).not.toContain('go test');
    expect(JSON.stringify(sent[2])).toContain('Add a --dry-run flag');
  });

  it('simulate puts actual beside agent-compact, with survival at the last request and at the compaction point', async () => {
    const imported = importTranscript(compactedClaudeCodeSession(), { source: 's.jsonl' });
    const result = await simulate([simulationInputOf('s.jsonl', imported)], {
      strategies: ['none', 'agent-compact', 'actual'],
      summarizer: createExtractiveSummaryModel(),
      counter: characters,
    });
    const json = simulationToJson(result);
    const actual = json.files[0]!.actual!;
    expect(actual.compactions.hard).toBe(1);
    // Claude Code's summary named cart.go but no command and no todo item.
    expect(actual.survivalAtCompactions?.['files-edited']).toEqual({ visible: 1, total: 1 });
    expect(actual.survivalAtCompactions?.commands).toEqual({ visible: 0, total: 1 });
    expect(actual.survivalAtCompactions?.todo).toEqual({ visible: 0, total: 2 });
    // `none` sends everything, so everything survives.
    expect(json.files[0]!.none!.survival?.commands).toEqual({ visible: 1, total: 1 });
    expect(json.total.actual?.survival?.todo.total).toBe(2);
    const html = renderReport(result);
    expect(html).toContain('<h2>Survival</h2>');
    expect(html.match(/<svg class="survival"/g)).toHaveLength(2);
    expect(html).toContain('<title>actual todo: 0 of 2</title>');
  });

  it("measures next need at each strategy's own compaction points, the agent's boundary for actual", async () => {
    const imported = importTranscript(compactedClaudeCodeSession(), { source: 's.jsonl' });
    imported.conversation.messages.push({
      role: 'assistant',
      content: [{ type: 'tool_use', id: 't9', name: 'Bash', input: { command: 'go test ./cart/...' } }],
    });
    const result = await simulate([simulationInputOf('s.jsonl', imported)], {
      strategies: ['none', 'actual'],
      summarizer: createExtractiveSummaryModel(),
      counter: characters,
    });
    const json = simulationToJson(result);
    // `none` never compacts: no point, nothing counted.
    expect(json.files[0]!.none!.nextNeedPoints).toBe(0);
    expect(json.files[0]!.none!.nextNeed?.commands).toEqual({ visible: 0, total: 0 });
    // At Claude Code's boundary its summary does not show the command the agent runs again.
    expect(json.files[0]!.actual!.nextNeedPoints).toBe(1);
    expect(json.files[0]!.actual!.nextNeedHardPoints).toBe(1);
    expect(json.total.actual?.nextNeedAtHard?.commands).toEqual({ visible: 0, total: 1 });
    expect(json.total.actual?.nextNeed?.commands).toEqual({ visible: 0, total: 1 });
    expect(json.settings.nextCalls).toBe(40);
    expect(simulationToText(result)).toContain("Next need at each strategy's own compaction points");
    expect(renderReport(result)).toContain('<title>actual commands: 0 of 1</title>');
  });
});
