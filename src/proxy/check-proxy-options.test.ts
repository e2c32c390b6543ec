import { existsSync } from 'node:fs';
import { CompactError } from 'agent-compact';
import { describe, expect, it } from 'vitest';
import type { ProxyOptions } from './proxy-options.js';
import { startProxy } from './proxy-server.js';

const upstream = 'http://127.0.0.1:9';

describe('startProxy: options of the wrong shape', () => {
  it.each<[Record<string, unknown>, string, string]>([
    // Before: listened on a Unix socket named "4000" in the working directory.
    [{ port: '4000' }, 'port', 'must be a number ≥ 0, got "4000"'],
    [{ port: 70_000 }, 'port', 'from 0 to 65535, got 70000'],
    [{ port: 80.5 }, 'port', 'got 80.5'],
    // Before: a TypeError from inside startProxy.
    [{ allowHosts: 'example.com' }, 'allowHosts', 'must be an array of strings'],
    // Before: accepted, then every request's compaction failed and fell back.
    [{ thresholds: { mid: 'x' } }, 'thresholds.mid', 'must be a number > 0'],
    [{ contextWindow: '200000' }, 'contextWindow', 'got "200000"'],
    [{ counter: 'o200k' }, 'counter', 'an object with countText()'],
    [
      { summarizer: 'anthropic:claude-haiku' },
      'summarizer',
      '"same", "extractive" or an object with summarize()',
    ],
    [{ store: {} }, 'store', 'load() is missing'],
    [{ maxMemoryBytes: -1 }, 'maxMemoryBytes', 'must be a number > 0'],
    [{ log: 'stderr' }, 'log', 'must be a function'],
  ])('%j names %s', async (options, path, says) => {
    const error = await startProxy({ upstream, ...options } as ProxyOptions).then(
      async (proxy) => {
        await proxy.close();
        return undefined;
      },
      (rejected: unknown) => rejected,
    );
    expect(CompactError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'INVALID_OPTIONS', path });
    expect((error as Error).message).toContain(says);
    expect(existsSync('4000')).toBe(false);
  });

  it('starts with options of their shape', async () => {
    const proxy = await startProxy({
      upstream,
      port: 0,
      allowHosts: ['proxy.test'],
      summarizer: 'extractive',
    });
    expect(proxy.port).toBeGreaterThan(0);
    await proxy.close();
  });
});
