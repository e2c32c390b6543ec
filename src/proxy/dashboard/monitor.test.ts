import { describe, expect, it } from 'vitest';
import { createMemoryArchiveStore } from '../../core/archive/memory-archive-store.js';
import type { ProxyRequestRecord } from '../proxy-stats.js';
import { MAX_COMPACTIONS, ProxyMonitor } from './monitor.js';

describe('ProxyMonitor', () => {
  it(`keeps a session's newest ${MAX_COMPACTIONS} compactions, not every one`, async () => {
    const monitor = new ProxyMonitor();
    const archive = createMemoryArchiveStore();
    const turns = MAX_COMPACTIONS + 50;
    for (let turn = 1; turn <= turns; turn += 1) {
      const record = {
        session: 's1',
        api: 'anthropic',
        time: new Date(turn).toISOString(),
        tokensIn: 1000,
        tokensOut: 500,
        layer: 'micro',
        status: 200,
        ms: 1,
      } as ProxyRequestRecord;
      const compaction = {
        body: {},
        layer: 'micro' as const,
        tokensBefore: 1000,
        tokensAfter: 500,
        archived: [`r${turn}`],
      };
      await monitor.observe({
        record,
        model: 'm',
        agent: 'test',
        usage: undefined,
        compaction,
        archive,
        archiveSessionId: 'proxy-s1',
      });
    }
    const session = monitor.session('s1');
    expect(session?.requests).toHaveLength(turns);
    expect(session?.compactions).toHaveLength(MAX_COMPACTIONS);
    expect(session?.compactions[0]?.archived).toEqual(['r51']);
    expect(session?.compactions.at(-1)?.archived).toEqual([`r${turns}`]);
  });
});
