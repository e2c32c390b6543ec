import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { useProxyHarness } from './proxy-harness.test-utils.js';
import { formatLogLine } from './proxy-stats.js';

const startProxyOver = useProxyHarness();

describe('a request over hard that the breaker held back', () => {
  it('says so in its record and log line, with the sizes, instead of a silent layer none', async () => {
    const { proxy, records } = await startProxyOver(['Done.'], {
      thresholds: { mid: 1_000, hard: 2_000 },
      summarizer: 'extractive',
    });
    const client = new Anthropic({ apiKey: 'sk-ant-user', baseURL: proxy.url, maxRetries: 0 });
    // The latest request alone is over mid, as the files Claude Code re-attaches after its own
    // compaction are: no summary of the history before it could bring the request under mid.
    const attached = `${'export const value = compute(input, options);\n'.repeat(400)}`;
    await client.messages.create({
      model: 'claude-test',
      max_tokens: 10,
      messages: [
        { role: 'user', content: 'Fix the failing test.' },
        { role: 'assistant', content: 'Reading the files.' },
        { role: 'user', content: attached },
      ],
    });
    const [record] = records;
    expect(record?.tokensIn).toBeGreaterThan(2_000);
    expect(record?.layer).toBe('none');
    expect(record?.heldBack).toMatch(/^\d+ tokens, mid 1000: even an empty summary would leave \d+/);
    expect(formatLogLine(record!)).toContain(`(hard held back: ${record?.heldBack})`);
  });
});
