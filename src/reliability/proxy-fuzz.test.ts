/**
 * Fuzzing the proxy: generated conversations sent turn by turn through `startProxy` to the
 * scripted server, as an agent resends its whole history each turn, at thresholds low enough that
 * most sessions compact (hard from 800 tokens). Every request the server accepts from the client
 * directly, it also accepts after the proxy's compaction, and the proxy never answers 5xx.
 * Replay with FUZZ_SEED=<seed> (and FUZZ_RUNS, the count of sessions ×10).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arbitraryValidConversation } from '../core/conversation/arbitrary-conversation.test-utils.js';
import type { Message } from '../core/model/messages.js';
import type { RunningProxy } from '../proxy/proxy-options.js';
import { startProxy } from '../proxy/proxy-server.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../testing/index.js';

const seed = Number(process.env.FUZZ_SEED ?? 20261206);
const sessions = Math.max(1, Math.floor(Number(process.env.FUZZ_RUNS ?? 2_000) / 10));

const layers = new Map<string, number>();
let server: ScriptedModelServer;
let proxy: RunningProxy;
beforeAll(async () => {
  server = await startScriptedModelServer({ script: () => 'ok' });
  proxy = await startProxy({
    upstream: server.url,
    thresholds: { mid: 300, hard: 800 },
    summarizer: 'extractive',
    onRequest: (record) => layers.set(record.layer ?? 'none', (layers.get(record.layer ?? 'none') ?? 0) + 1),
  });
});
afterAll(async () => {
  await proxy.close();
  await server.close();
});

/** Posts an Anthropic Messages request to `origin`: the status and the answer's text. */
async function post(origin: string, messages: readonly Message[], session: string) {
  const response = await fetch(`${origin}/v1/messages`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-api-key': 'k',
      'anthropic-version': '2023-06-01',
      'x-agent-compact-session': session,
    },
    body: JSON.stringify({
      model: 'claude-test',
      max_tokens: 100,
      system: 'You are a coding agent.',
      messages,
    }),
  });
  return { status: response.status, text: await response.text() };
}

describe(`fuzzing the proxy (seed ${seed})`, () => {
  it(`${sessions} generated sessions: what the provider takes from the client, it takes through the proxy`, async () => {
    let session = 0;
    let checked = 0;
    await fc.assert(
      fc.asyncProperty(arbitraryValidConversation(), async (messages) => {
        session += 1;
        for (let end = 1; end <= messages.length; end++) {
          if (messages[end - 1]!.role !== 'user') continue;
          const request = messages.slice(0, end);
          const direct = await post(server.url, request, '');
          const before = server.requests.length;
          const proxied = await post(proxy.url, request, `s${session}`);
          expect(proxied.status).toBeLessThan(500);
          if (direct.status !== 200) continue;
          const rejected = server.requests.slice(before).filter((sent) => sent.outcome === 'invalid-request');
          if (rejected.length > 0) expect(JSON.stringify(rejected[0]!.body.messages)).toBe('accepted');
          checked += 1;
        }
      }),
      { numRuns: sessions, seed },
    );
    console.info(
      `proxy fuzz: ${checked} requests checked; layers: ${[...layers].map(([layer, count]) => `${layer} ${count}`).join(', ')}`,
    );
    // The generator reached the layers that rewrite the request.
    expect(layers.get('hard') ?? 0).toBeGreaterThan(0);
    expect(layers.get('mid') ?? 0).toBeGreaterThan(0);
  });
});
