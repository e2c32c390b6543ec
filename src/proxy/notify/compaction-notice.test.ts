import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { anthropicLoop, openAIChatLoop, toolCallingScript } from '../agent-loops.test-utils.js';
import { useProxyHarness } from '../proxy-harness.test-utils.js';
import type { ProxyOptions } from '../proxy-options.js';

const startProxyOver = useProxyHarness();

function start(options: Partial<ProxyOptions> = {}) {
  return startProxyOver(toolCallingScript, {
    thresholds: { mid: 1500, hard: 2500 },
    summarizer: 'extractive',
    ...options,
  });
}

const NOTE = /^\[agent-compact: context compacted [\d,]+ → [\d,]+ tokens \(hard\)\]\n\n/;

function anthropicTexts(history: Anthropic.MessageParam[]): string[] {
  return history
    .filter((message) => message.role === 'assistant')
    .map((message) =>
      typeof message.content === 'string'
        ? message.content
        : message.content.map((block) => (block.type === 'text' ? block.text : '')).join(''),
    );
}

describe('telling the agent user', () => {
  it('answers carry x-agent-compact-* headers with the figures of the JSON log record', async () => {
    const { proxy, records } = await start();
    const body = {
      model: 'claude-test',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'Hello' }],
    };
    const answer = await fetch(`${proxy.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify(body),
    });
    await answer.text();
    const [record] = records;
    expect(record).toBeDefined();
    expect(answer.headers.get('x-agent-compact-layer')).toBe(record!.layer);
    expect(answer.headers.get('x-agent-compact-tokens-before')).toBe(String(record!.tokensIn));
    expect(answer.headers.get('x-agent-compact-tokens-after')).toBe(String(record!.tokensOut));
    expect(answer.headers.get('x-agent-compact-session')).toBe(record!.session);
    expect(record!.tokensIn).toBeGreaterThan(0);
  });

  it.each([true, false])(
    '--notify %s: a note leads the streamed answer after a hard compaction only',
    async (notify) => {
      const { proxy, records } = await start({ notify });
      const texts = anthropicTexts(await anthropicLoop(proxy.url, { turns: 12, stream: true }));
      const hard = records.map((record) => record.layer === 'hard');
      expect(hard).toContain(true);
      for (const [index, text] of texts.entries()) {
        expect(NOTE.test(text), `answer ${index}`).toBe(notify && hard[index]);
      }
      expect(records.filter((record) => record.restarted)).toEqual([]);
    },
  );

  it('--notify puts the note in an OpenAI chat stream too', async () => {
    const { proxy, records } = await start({ notify: true });
    const history = await openAIChatLoop(`${proxy.url}/v1`, { turns: 12, stream: true });
    const answers = history.filter(
      (message): message is OpenAI.ChatCompletionAssistantMessageParam => message.role === 'assistant',
    );
    const hard = records.map((record) => record.layer === 'hard');
    expect(hard).toContain(true);
    for (const [index, answer] of answers.entries()) {
      expect(NOTE.test(String(answer.content ?? '')), `answer ${index}`).toBe(hard[index]);
    }
  });
});
