import { describe, expect, it } from 'vitest';
import { fallbackReasonOf, type ProxyRequestRecord, StatsCollector } from './proxy-stats.js';

function record(overrides: Partial<ProxyRequestRecord>): ProxyRequestRecord {
  return {
    time: '2026-01-01T00:00:00.000Z',
    session: 'aaaa1111',
    api: 'anthropic',
    method: 'POST',
    path: '/v1/messages',
    tokensIn: 100,
    tokensOut: 100,
    layer: 'none',
    status: 200,
    ms: 1,
    overheadMs: 0,
    ...overrides,
  };
}

describe('fallbackReasonOf', () => {
  it.each([
    [
      'compacted request rejected (micro): messages[1].role: role must be "user"',
      { kind: 'rejected', reason: 'messages[1].role: role must be "user"' },
    ],
    [
      'compacted request rejected (hard): messages[3].content[0]: unpaired',
      { kind: 'rejected', reason: 'messages[3].content[0]: unpaired' },
    ],
    [
      'compaction failed: same summarizer: x answered 500',
      { kind: 'failed', reason: 'same summarizer: x answered 500' },
    ],
    ['something else', { kind: 'failed', reason: 'something else' }],
  ])('%s', (fallback, expected) => {
    expect(fallbackReasonOf(fallback)).toEqual(expected);
  });
});

describe('StatsCollector', () => {
  it('groups fallbacks by reason whatever layer tried, most frequent first', () => {
    const stats = new StatsCollector();
    stats.add(record({ fallback: 'compaction failed: boom' }));
    for (const layer of ['micro', 'mid', 'hard']) {
      stats.add(record({ fallback: `compacted request rejected (${layer}): messages[1].role: bad` }));
    }
    expect(stats.snapshot(0).fallbackReasons).toEqual([
      { kind: 'rejected', reason: 'messages[1].role: bad', count: 3 },
      { kind: 'failed', reason: 'boom', count: 1 },
    ]);
    expect(stats.snapshot(0).fallbacks).toBe(4);
  });

  it('reads the previous request of a session from the cache, and writes a compacted or restarted one whole', () => {
    const stats = new StatsCollector();
    stats.add(record({ tokensIn: 100, tokensOut: 100 }));
    stats.add(record({ tokensIn: 150, tokensOut: 150 }));
    stats.add(record({ session: 'bbbb2222', tokensIn: 40, tokensOut: 40 }));
    stats.add(record({ tokensIn: 200, tokensOut: 60, layer: 'hard' }));
    stats.add(record({ tokensIn: 230, tokensOut: 90 }));
    stats.add(record({ tokensIn: 50, tokensOut: 50, restarted: true }));
    expect(stats.snapshot(0).cache).toEqual({
      sent: { read: 100 + 150 + 200, write: 100 + 50 + 40 + 50 + 30 + 50 },
      forwarded: { read: 100 + 60, write: 100 + 50 + 40 + 60 + 30 + 50 },
    });
  });
});
