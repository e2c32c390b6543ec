/**
 * Wrong types at every path, through the proxy: Claude Code's request (see
 * wrong-types.test-utils.ts) with a value of another type at each of its paths, POSTed to the
 * scripted server directly and through a proxy in front of it at thresholds where it compacts.
 * The proxy never answers 5xx of its own: it forwards the client's bytes, or a compaction the
 * server takes whenever it took the client's request, and an error it answers is in the provider's
 * shape. (A request the server refused from the client may pass once compacted: a summary took
 * the broken part.) Every wrong value at every path (1,677 bodies); WRONG_TYPES_PROXY_SHARE samples fewer
 * with the seed (WRONG_TYPES_SEED), every path still once.
 */
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { MID_CONVERSATION_SYSTEM_BETA } from '../core/conversation/validate.js';
import { useProxyHarness } from '../proxy/proxy-harness.test-utils.js';
import { bodies, mutatedBodies, pathCount } from './wrong-types.test-utils.js';

const seed = Number(process.env.WRONG_TYPES_SEED ?? 20261207);
/** The share of (path, value) pairs tried beyond the first value of each path: all of them, about 20 s. */
const share = Number(process.env.WRONG_TYPES_PROXY_SHARE ?? 1);

const start = useProxyHarness();

const headers = {
  'content-type': 'application/json',
  'x-api-key': 'k',
  'anthropic-version': '2023-06-01',
  // Claude Code's request holds a mid-conversation system message, which this beta allows.
  'anthropic-beta': MID_CONVERSATION_SYSTEM_BETA,
};

/** Posts `body` to `origin`'s Messages route: the status and the answer's text. */
async function post(origin: string, body: string, session: string) {
  const response = await fetch(`${origin}/v1/messages`, {
    method: 'POST',
    headers: { ...headers, 'x-agent-compact-session': session },
    body,
  });
  return { status: response.status, text: await response.text() };
}

/** An Anthropic error body: `{ "type": "error", "error": { "type", "message" } }`. */
function isAnthropicError(text: string): boolean {
  try {
    const answer = JSON.parse(text) as { type?: unknown; error?: { type?: unknown; message?: unknown } };
    return (
      answer.type === 'error' &&
      typeof answer.error?.type === 'string' &&
      typeof answer.error.message === 'string'
    );
  } catch {
    return false;
  }
}

describe(`a wrong type at every path, through the proxy (seed ${seed})`, () => {
  it("Claude Code's request: the client's bytes or a compaction the server takes, never a 5xx", async () => {
    const { server, proxy } = await start(() => 'ok', {
      thresholds: { mid: 300, hard: 800 },
      summarizer: 'extractive',
    });
    const body = bodies.anthropic();
    const unmutated = JSON.stringify(body);
    expect((await post(server.url, unmutated, '')).status).toBe(200);
    expect((await post(proxy.url, unmutated, 'unmutated')).status).toBe(200);
    const failures: string[] = [];
    const paths = new Set<string>();
    const statuses = new Map<string, number>();
    let session = 0;
    for (const mutated of mutatedBodies(body, { seed, share })) {
      const where = `${mutated.path} = ${mutated.mutation}`;
      const text = JSON.stringify(mutated.body);
      const direct = await post(server.url, text, '');
      const before = server.requests.length;
      session += 1;
      const through = await post(proxy.url, text, `wrong-types-${session}`);
      const sent = server.requests.slice(before).at(-1);
      const outcome = `direct ${direct.status}, proxy ${through.status}`;
      statuses.set(outcome, (statuses.get(outcome) ?? 0) + 1);
      paths.add(mutated.path);
      if (through.status >= 500)
        failures.push(`${where}: the proxy answered ${through.status}: ${through.text.slice(0, 200)}`);
      else if (through.status >= 400 && !isAnthropicError(through.text))
        failures.push(
          `${where}: a ${through.status} not in Anthropic's shape: ${through.text.slice(0, 200)}`,
        );
      const forwardedAsSent = sent !== undefined && isDeepStrictEqual(sent.body, mutated.body);
      if (sent && !forwardedAsSent && direct.status === 200 && sent.outcome === 'invalid-request')
        failures.push(`${where}: the server took the client's request but refused the proxy's compaction`);
    }
    console.info(`proxy wrong types: ${paths.size} paths, ${session} bodies,`, Object.fromEntries(statuses));
    expect(paths.size).toBe(pathCount(body));
    expect(failures).toEqual([]);
  });
});
