import { describe, expect, it } from 'vitest';
import type { ProxyStats } from '../../proxy/index.js';
import { defaultPriceTable } from '../../proxy/price-table.js';
import { StatsCollector } from '../../proxy/proxy-stats.js';
import { bypassWarning, fallbackWarning, savingsLine } from './savings-line.js';

function statsOf(records: Parameters<StatsCollector['add']>[0][]): ProxyStats {
  const collector = new StatsCollector();
  for (const record of records) collector.add(record);
  return collector.snapshot(1);
}

const base = {
  time: '2026-01-01T00:00:00.000Z',
  session: 'aaaa1111',
  api: 'anthropic',
  method: 'POST',
  path: '/v1/messages',
  status: 200,
  ms: 1,
  overheadMs: 0,
} as const;

describe('savingsLine', () => {
  it('prices the saving with cache reads and writes', () => {
    const stats = statsOf([
      { ...base, tokensIn: 100_000, tokensOut: 100_000, layer: 'none' },
      { ...base, tokensIn: 200_000, tokensOut: 50_000, layer: 'hard' },
      { ...base, tokensIn: 210_000, tokensOut: 60_000, layer: 'none' },
    ]);
    const { cacheReadMultiplier: read, cacheWriteMultiplier: write, inputPerMillion } = defaultPriceTable;
    // Sent: 100k written, then 100k read + 100k written, then 200k read + 10k written.
    const sent = (100_000 + 100_000 + 10_000) * write + (100_000 + 200_000) * read;
    // Forwarded: 100k written, 50k written whole (compacted), then 50k read + 10k written.
    const forwarded = (100_000 + 50_000 + 10_000) * write + 50_000 * read;
    const dollars = ((sent - forwarded) * inputPerMillion) / 1_000_000;
    expect(savingsLine(stats, 'http://d/')).toBe(
      `agent-compact: 3 requests, 510,000 tokens sent → 210,000 forwarded, 1 compaction, ~$${dollars.toFixed(2)} saved, dashboard http://d/`,
    );
    expect(fallbackWarning(stats)).toBeUndefined();
  });

  it('prices the cache writes of an OpenAI or Gemini session without a premium', () => {
    for (const api of ['openai', 'responses', 'gemini'] as const) {
      const stats = statsOf([
        { ...base, api, tokensIn: 100_000, tokensOut: 100_000, layer: 'none' },
        { ...base, api, tokensIn: 200_000, tokensOut: 50_000, layer: 'hard' },
        { ...base, api, tokensIn: 210_000, tokensOut: 60_000, layer: 'none' },
      ]);
      const { cacheReadMultiplier: read, inputPerMillion } = defaultPriceTable;
      // The same requests as above, every write at the base input price.
      const sent = 210_000 + (100_000 + 200_000) * read;
      const forwarded = 160_000 + 50_000 * read;
      const dollars = ((sent - forwarded) * inputPerMillion) / 1_000_000;
      expect(savingsLine(stats, 'http://d/'), api).toContain(`, ~$${dollars.toFixed(2)} saved, `);
    }
  });

  it('says what the cache rewrites cost when a run ends before they pay', () => {
    // Sent: 100k written, then 100k read + 10k written. Forwarded: 100k written, then 60k written whole.
    const stats = statsOf([
      { ...base, tokensIn: 100_000, tokensOut: 100_000, layer: 'none' },
      { ...base, tokensIn: 110_000, tokensOut: 60_000, layer: 'micro' },
    ]);
    const { cacheReadMultiplier: read, cacheWriteMultiplier: write, inputPerMillion } = defaultPriceTable;
    const sent = 110_000 * write + 100_000 * read;
    const forwarded = 160_000 * write;
    const lost = ((forwarded - sent) * inputPerMillion) / 1_000_000;
    expect(savingsLine(stats, 'http://d/')).toContain(
      `, 1 compaction, ~$0.00 saved (cache rewrites cost up to ~$${lost.toFixed(2)} more), dashboard http://d/`,
    );
  });

  it('names the fallbacks by their most frequent reason of each kind, cut to one line', () => {
    const long = `messages[1].role: ${'x'.repeat(200)}`;
    const stats = statsOf([
      {
        ...base,
        tokensIn: 10,
        tokensOut: 10,
        layer: 'none',
        fallback: `compacted request rejected (micro): ${long}`,
      },
      {
        ...base,
        tokensIn: 10,
        tokensOut: 10,
        layer: 'none',
        fallback: `compacted request rejected (hard): ${long}`,
      },
      {
        ...base,
        tokensIn: 10,
        tokensOut: 10,
        layer: 'none',
        fallback: 'compacted request rejected (mid): other',
      },
      { ...base, tokensIn: 10, tokensOut: 10, layer: 'none', fallback: 'compaction failed: boom' },
    ]);
    const line = savingsLine(stats, 'http://d/');
    expect(line).toMatch(
      /, 0 compactions, 3 compactions rejected: messages\[1\]\.role: x+… \(and 1 other reason\), 1 compaction failed: boom, ~\$0\.00 saved, /,
    );
    expect(fallbackWarning(stats)).toMatch(
      /^agent-compact: warning: every compaction fell back \(3 compactions rejected: .*; 1 compaction failed: boom\)/,
    );
  });
});

describe('bypassWarning', () => {
  it('warns when no request reached the proxy, with the way around it for the agent', () => {
    const none = statsOf([]);
    expect(bypassWarning(none, 'gemini', ['-p', 'fix it'])).toMatch(
      /^agent-compact: warning: no request reached the proxy; .*\(Gemini CLI reads GOOGLE_GEMINI_BASE_URL with API-key auth only: .*gemini-api-key/,
    );
    expect(bypassWarning(none, 'unknown', [])).toMatch(/went around agent-compact\.$/);
  });

  it('says nothing when requests came through, or the agent only printed its help or version', () => {
    expect(
      bypassWarning(statsOf([{ ...base, tokensIn: 1, tokensOut: 1, layer: 'none' }]), 'gemini', []),
    ).toBeUndefined();
    expect(bypassWarning(statsOf([]), 'claude', ['--version'])).toBeUndefined();
  });
});
