/**
 * Fuzzing the proxy: generated conversations in each wire format sent turn by turn through `startProxy` to the
 * scripted server, as an agent resends its whole history each turn, at thresholds low enough that
 * most sessions compact (hard from 800 tokens). Every request the server accepts from the client
 * directly, it also accepts after the proxy's compaction, and the proxy never answers 5xx.
 * Replay with FUZZ_SEED=<seed> (and FUZZ_RUNS, the count of sessions per format ×20).
 */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryArchiveStore } from '../core/archive/memory-archive-store.js';
import { rebuildConversation } from '../core/archive/rebuild.js';
import {
  arbitraryValidConversation,
  requestEnds,
  withReusedIds,
} from '../core/conversation/arbitrary-conversation.test-utils.js';
import { parseConversation, serializeConversation } from '../core/conversation/parse-conversation.js';
import type { Message } from '../core/model/messages.js';
import { WIRE_FORMATS, type WireFormat } from '../core/model/wire-format.js';
import type { RunningProxy } from '../proxy/proxy-options.js';
import { startProxy } from '../proxy/proxy-server.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../testing/index.js';

const seed = Number(process.env.FUZZ_SEED ?? 20261206);
const sessions = Math.max(1, Math.floor(Number(process.env.FUZZ_RUNS ?? 2_000) / 20));

const layers = new Map<string, number>();
let server: ScriptedModelServer;
/** The proxy as it runs by default, and one with `--recall` (placeholders name archive ids). */
let proxy: RunningProxy;
let recalling: RunningProxy;
const archive = createMemoryArchiveStore();
const recallArchive = createMemoryArchiveStore();
beforeAll(async () => {
  server = await startScriptedModelServer({ script: () => 'ok' });
  const options = {
    upstream: server.url,
    thresholds: { mid: 300, hard: 800 },
    summarizer: 'extractive',
    onRequest: (record: { layer?: string }) =>
      layers.set(record.layer ?? 'none', (layers.get(record.layer ?? 'none') ?? 0) + 1),
  } as const;
  proxy = await startProxy({ ...options, archive });
  recalling = await startProxy({ ...options, archive: recallArchive, recall: true });
});
afterAll(async () => {
  await proxy.close();
  await recalling.close();
  await server.close();
});

/** Each format's route, headers and body around the serialized conversation. */
const routes = {
  anthropic: {
    path: '/v1/messages',
    headers: { 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
    extra: { model: 'claude-test', max_tokens: 100 },
  },
  openai: {
    path: '/v1/chat/completions',
    headers: { authorization: 'Bearer k' },
    extra: { model: 'gpt-test' },
  },
  responses: { path: '/v1/responses', headers: { authorization: 'Bearer k' }, extra: { model: 'gpt-test' } },
  gemini: {
    path: '/v1beta/models/gemini-test:generateContent',
    headers: { 'x-goog-api-key': 'k' },
    extra: {},
  },
} satisfies Record<WireFormat, unknown>;

/** The request body of `messages` in `format`, or undefined when the format cannot hold them. */
function bodyOf(format: WireFormat, messages: readonly Message[]): string | undefined {
  try {
    const conversation = { system: 'You are a coding agent.', messages: [...messages] };
    const serialized = JSON.parse(serializeConversation(conversation, format)) as Record<string, unknown>;
    return JSON.stringify({ ...routes[format].extra, ...serialized });
  } catch {
    return undefined;
  }
}

/** Posts `body` on the format's route at `origin`: the status. */
async function post(origin: string, format: WireFormat, body: string, session: string): Promise<number> {
  const { path, headers } = routes[format];
  const response = await fetch(`${origin}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-agent-compact-session': session, ...headers },
    body,
  });
  await response.arrayBuffer();
  return response.status;
}

const cases = WIRE_FORMATS.flatMap((format) =>
  (['unique', 'reused every turn'] as const).map((ids) => ({ format, ids })),
);

describe(`fuzzing the proxy (seed ${seed})`, () => {
  it.each(cases)(
    `${sessions} generated sessions ($format, tool call ids $ids): what the provider takes from the client, it takes through the proxy`,
    async ({ format, ids }) => {
      let session = 0;
      let checked = 0;
      await fc.assert(
        fc.asyncProperty(arbitraryValidConversation(), async (generated) => {
          const messages = ids === 'unique' ? generated : withReusedIds(generated);
          session += 1;
          for (const end of requestEnds(messages)) {
            const body = bodyOf(format, messages.slice(0, end));
            if (body === undefined) continue;
            const direct = await post(server.url, format, body, '');
            const before = server.requests.length;
            expect(await post(proxy.url, format, body, `${format}-${ids}-${session}`)).toBeLessThan(500);
            if (direct !== 200) continue;
            const rejected = server.requests
              .slice(before)
              .filter((sent) => sent.outcome === 'invalid-request');
            if (rejected.length > 0) expect(JSON.stringify(rejected[0]!.body)).toBe('accepted');
            checked += 1;
          }
        }),
        { numRuns: sessions, seed },
      );
      console.info(`proxy fuzz (${format}, ids ${ids}): ${checked} requests checked`);
      // Enough of the generated requests are ones the provider takes for the check to mean something.
      expect(checked).toBeGreaterThan(sessions / 4);
    },
  );

  // A session's archive is one of those the proxy opened since the session began (a history the
  // client rewrote starts another): the request that went upstream rebuilds from one of them.
  // A client that goes back (a rewind, a retry from an earlier turn) sends the session's requests,
  // then its first half again, then all of them again: the proxy starts over twice.
  const rebuildCases = cases.flatMap((each) =>
    [false, true].flatMap((recall) =>
      (['appends', 'goes back'] as const).map((client) => ({ ...each, recall, client })),
    ),
  );
  it.each(rebuildCases)(
    `${Math.ceil(sessions / 2)} generated sessions ($format, tool call ids $ids, recall $recall, client $client): what went upstream and the archive rebuild what the client sent`,
    async ({ format, ids, recall, client: style }) => {
      const [through, kept] = recall ? [recalling, recallArchive] : [proxy, archive];
      const archiveSessions = async () => (await kept.sessions?.()) ?? [];
      let session = 0;
      let compacted = 0;
      await fc.assert(
        fc.asyncProperty(arbitraryValidConversation(), async (generated) => {
          const messages = ids === 'unique' ? generated : withReusedIds(generated);
          session += 1;
          const known = new Set(await archiveSessions());
          const ends = requestEnds(messages);
          const order =
            style === 'appends' ? ends : [...ends, ...ends.slice(0, Math.ceil(ends.length / 2)), ...ends];
          for (const end of order) {
            const body = bodyOf(format, messages.slice(0, end));
            if (body === undefined) continue;
            const before = server.requests.length;
            const name = `rebuild-${format}-${ids}-${style}-${session}`;
            const status = await post(through.url, format, body, name);
            const sent = server.requests.slice(before).at(-1);
            if (status !== 200 || sent === undefined) continue;
            const upstream = parseConversation(JSON.stringify(sent.body), { format }).conversation.messages;
            const client = parseConversation(body, { format }).conversation.messages;
            if (isDeepStrictEqual(upstream, client)) continue;
            compacted += 1;
            const opened = (await archiveSessions()).filter((id) => !known.has(id));
            const rebuilds = await Promise.all(
              opened.map(async (id) => rebuildConversation(upstream, await kept.list(id))),
            );
            if (!rebuilds.some((rebuilt) => isDeepStrictEqual(rebuilt, client)))
              expect(rebuilds[0] ?? upstream).toEqual(client);
          }
        }),
        { numRuns: Math.ceil(sessions / 2), seed: seed + 1 },
      );
      console.info(
        `proxy fuzz rebuild (${format}, ids ${ids}, recall ${recall}, client ${style}): ${compacted} compacted requests rebuilt`,
      );
      expect(compacted).toBeGreaterThan(0);
    },
  );

  it('reached the layers that rewrite a request', () => {
    console.info(`proxy fuzz layers: ${[...layers].map(([layer, count]) => `${layer} ${count}`).join(', ')}`);
    expect(layers.get('hard') ?? 0).toBeGreaterThan(0);
    expect(layers.get('mid') ?? 0).toBeGreaterThan(0);
  });
});
