import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { createFileArchiveStore } from '../archive/index.js';
import type { SummaryModel } from '../core/summary/summary-model.js';
import type { RecordedRequest, ScriptStep } from '../testing/index.js';
import { anthropicLoop, toolCallingScript } from './agent-loops.test-utils.js';
import { useProxyHarness } from './proxy-harness.test-utils.js';
import { credentialHash, KEYLESS_OWNER, sessionKeyOf } from './session-identity.js';

const startProxyOver = useProxyHarness();
let directory: string | undefined;
let upstream: Server | undefined;
afterEach(async () => {
  if (directory) await rm(directory, { recursive: true, force: true });
  upstream?.closeAllConnections();
  await new Promise((done) => (upstream ? upstream.close(done) : done(undefined)));
  directory = undefined;
  upstream = undefined;
});

/** The same system prompt and first message for everyone, as two users of one agent would send. */
const firstRequest = {
  model: 'claude-test',
  max_tokens: 200,
  system: [{ type: 'text' as const, text: 'You are a coding agent.' }],
  tools: [{ name: 'read_file', input_schema: { type: 'object' as const } }],
  messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'Read every file.' }] }],
};

describe('session identity', () => {
  it('keys differ by credential and by client session id, and never hold the credential', () => {
    const body = { messages: [{ role: 'user', content: 'Hi' }] };
    const alice = sessionKeyOf('anthropic', body, { 'x-api-key': 'sk-alice-secret' });
    const bob = sessionKeyOf('anthropic', body, { 'x-api-key': 'sk-bob' });
    expect(alice).not.toBe(bob);
    expect(alice).not.toContain('sk-alice-secret');
    expect(alice.startsWith(`key:${credentialHash({ 'x-api-key': 'sk-alice-secret' })}:`)).toBe(true);
    const named = { 'x-agent-compact-session': 's' };
    expect(sessionKeyOf('anthropic', body, { ...named, authorization: 'Bearer a' })).not.toBe(
      sessionKeyOf('anthropic', body, { ...named, authorization: 'Bearer b' }),
    );
    const codex = (id: string) =>
      sessionKeyOf(
        'responses',
        { input: [], client_metadata: { session_id: id } },
        { authorization: 'Bearer k' },
      );
    expect(codex('one')).not.toBe(codex('two'));
  });

  const body = { messages: [{ role: 'user', content: 'Hi' }] };

  it.each([
    ['x-litellm-api-key', 'sk-litellm'],
    ['cf-aig-authorization', 'Bearer cf-token'],
    ['helicone-auth', 'Bearer sk-helicone'],
    ['x-portkey-api-key', 'portkey-key'],
    ['x-portkey-virtual-key', 'portkey-virtual'],
    ['ocp-apim-subscription-key', 'apim-key'],
  ])('a gateway credential in %s is an owner, never kept in the key', (name, value) => {
    const owner = sessionKeyOf('anthropic', body, { [name]: value });
    expect(owner.startsWith(`${KEYLESS_OWNER}:`)).toBe(false);
    expect(owner).not.toBe(sessionKeyOf('anthropic', body, { [name]: `${value}-other` }));
    expect(owner).not.toContain(value.replace(/^Bearer /, ''));
    // A gateway key beside the provider key is a third owner, apart from either alone.
    const both = sessionKeyOf('anthropic', body, { [name]: value, 'x-api-key': 'sk-provider' });
    expect(both).not.toBe(sessionKeyOf('anthropic', body, { 'x-api-key': 'sk-provider' }));
    expect(both).not.toBe(owner);
  });

  it.each<[Record<string, string>, string]>([
    [{ 'x-api-key': 'sk-ant-alice' }, 'ffcc3fc442ba889f'],
    [{ authorization: 'Bearer sk-openai-alice' }, 'a008aeb762362c54'],
    [{ 'api-key': 'azure-alice' }, 'ccd6d41804a49856'],
    [{ 'x-goog-api-key': 'goog-alice' }, 'a43ca4f90077d507'],
    [{ 'x-api-key': 'sk-a', authorization: 'Bearer sk-b' }, 'd42792673243ee13'],
  ])('the owner of %o is the one stored sessions were keyed by', (headers, stored) => {
    expect(credentialHash(headers)).toBe(stored);
  });

  it('headers that change on every request (ids, retries, signatures) keep one session', () => {
    const keyOf = (request: number) =>
      sessionKeyOf('anthropic', body, {
        'x-api-key': 'sk-alice',
        'x-request-id': `req-${request}`,
        'idempotency-key': `stainless-node-retry-${request}`,
        'x-stainless-retry-count': String(request),
        'x-client-request-id': `client-${request}`,
        traceparent: `00-${String(request).padStart(32, '0')}-00f067aa0ba902b7-01`,
        'x-signature': `signature-${request}`,
        'x-amz-date': `20261207T10000${request}Z`,
      });
    expect(keyOf(2)).toBe(keyOf(1));
    expect(keyOf(1).startsWith(`key:${credentialHash({ 'x-api-key': 'sk-alice' })}:`)).toBe(true);
  });

  it('proxy-authorization is for the proxy, never forwarded: not part of the owner', () => {
    expect(credentialHash({ 'proxy-authorization': 'Basic dXNlcjpwYXNz' })).toBe('none');
  });

  it('--recall --archive: a second user with the same first message cannot recall the first one', async () => {
    directory = await mkdtemp(join(tmpdir(), 'agent-compact-iso-'));
    let phase: 'alice' | 'bob' = 'alice';
    let bobCalled = false;
    const script = (request: Omit<RecordedRequest, 'outcome'>): ScriptStep => {
      if (phase === 'alice') return toolCallingScript(request);
      if (bobCalled) return 'Done.';
      bobCalled = true;
      return { type: 'tool-calls', calls: [{ id: 'call_recall_1', name: 'recall', input: { id: 'r1' } }] };
    };
    const { server, proxy, records } = await startProxyOver(script, {
      thresholds: { mid: 3000, hard: 6000 },
      summarizer: 'extractive',
      recall: true,
      archive: createFileArchiveStore({ directory }),
    });
    await anthropicLoop(proxy.url, { turns: 10, apiKey: 'sk-alice', task: 'Read every file.' });
    expect(records.some((record) => record.layer !== 'none')).toBe(true);
    phase = 'bob';
    const bob = new Anthropic({ apiKey: 'sk-bob', baseURL: proxy.url, maxRetries: 0 });
    const answer = await bob.messages.create(firstRequest);
    expect(JSON.stringify(answer.content)).toContain('Done.');
    const followUp = JSON.stringify(server.requests.at(-1)?.body.messages);
    expect(followUp).toContain('call_recall_1');
    expect(followUp).not.toContain('output of step');
    expect(followUp).toContain('no archived item');
  });

  it('runs two users with the same first message in parallel', async () => {
    let arrived = 0;
    let bothArrived: () => void = () => {};
    const both = new Promise<void>((resolve) => {
      bothArrived = resolve;
    });
    const { proxy } = await startProxyOver(async () => {
      arrived += 1;
      if (arrived === 2) bothArrived();
      // The first answers only once the second is upstream too: a shared queue would never get there.
      await both;
      return 'Hello.';
    });
    const ask = (apiKey: string) =>
      new Anthropic({ apiKey, baseURL: proxy.url, maxRetries: 0 }).messages.create(firstRequest);
    const answers = await Promise.all([ask('sk-one'), ask('sk-two')]);
    expect(answers.map((answer) => answer.content[0]?.type)).toEqual(['text', 'text']);
  });
});

describe("the operator's summarizer", () => {
  /** A request past the hard threshold in plain text turns (nothing for micro or mid to mask). */
  const longRequest = {
    model: 'claude-test',
    max_tokens: 10,
    messages: Array.from({ length: 12 }, (_, index) => ({
      role: index % 2 === 0 ? 'user' : 'assistant',
      content: `Turn ${index}: ${'a long paragraph of notes about the code. '.repeat(60)}`,
    })).concat([{ role: 'user', content: 'Go on.' }]),
  };

  /** The operator's model, counting its calls. */
  function operatorSummarizer() {
    const calls = { count: 0 };
    const summarizer: SummaryModel = {
      specificationVersion: 'v1',
      provider: 'operator',
      modelId: 'operator',
      async summarize() {
        calls.count += 1;
        return { text: '## Summary\nEarlier turns.' };
      },
    };
    return { calls, summarizer };
  }

  /** An upstream that knows one key, `sk-user` in `header`: any other gets Anthropic's 401. */
  async function keyCheckingUpstream(header = 'x-api-key'): Promise<string> {
    upstream = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        if (request.headers[header] !== 'sk-user') {
          response.writeHead(401, { 'content-type': 'application/json' });
          response.end(
            JSON.stringify({
              type: 'error',
              error: { type: 'authentication_error', message: 'invalid x-api-key' },
            }),
          );
          return;
        }
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            id: 'msg_1',
            type: 'message',
            role: 'assistant',
            model: 'claude-test',
            content: [{ type: 'text', text: 'Hi.' }],
            stop_reason: 'end_turn',
            usage: { input_tokens: 10, output_tokens: 2 },
          }),
        );
      });
    });
    await new Promise<void>((done) => upstream!.listen(0, '127.0.0.1', done));
    return `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  }

  const post = (url: string, key: Record<string, string>, body: unknown) =>
    fetch(`${url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', ...key },
      body: JSON.stringify(body),
    }).then(async (response) => {
      await response.text();
      return response.status;
    });
  const shortRequest = { model: 'claude-test', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] };

  it('three made-up keys, each answered 401, make no summary call with the operator’s model', async () => {
    const { calls, summarizer } = operatorSummarizer();
    const { proxy } = await startProxyOver(['unused'], {
      upstream: await keyCheckingUpstream(),
      thresholds: { mid: 1500, hard: 2500 },
      summarizer,
    });
    for (const key of ['sk-made-up-1', 'sk-made-up-2', 'sk-made-up-3']) {
      expect(await post(proxy.url, { 'x-api-key': key }, longRequest)).toBe(401);
      // Even a second request of a key the upstream refused gets no paid summary.
      expect(await post(proxy.url, { 'x-api-key': key }, longRequest)).toBe(401);
    }
    expect(calls.count).toBe(0);
  });

  it('a key the upstream accepted gets the operator’s summary; no key never does', async () => {
    const { calls, summarizer } = operatorSummarizer();
    const { proxy } = await startProxyOver(['unused'], {
      upstream: await keyCheckingUpstream(),
      thresholds: { mid: 1500, hard: 2500 },
      summarizer,
    });
    expect(await post(proxy.url, {}, longRequest)).toBe(401);
    expect(calls.count).toBe(0);
    expect(await post(proxy.url, { 'x-api-key': 'sk-user' }, shortRequest)).toBe(200);
    expect(await post(proxy.url, { 'x-api-key': 'sk-user' }, longRequest)).toBe(200);
    expect(calls.count).toBeGreaterThan(0);
  });

  it('a key a gateway accepted in its own header gets the operator’s summary; a made-up one never does', async () => {
    const { calls, summarizer } = operatorSummarizer();
    const { proxy } = await startProxyOver(['unused'], {
      upstream: await keyCheckingUpstream('x-litellm-api-key'),
      thresholds: { mid: 1500, hard: 2500 },
      summarizer,
    });
    expect(await post(proxy.url, { 'x-litellm-api-key': 'sk-made-up' }, longRequest)).toBe(401);
    expect(await post(proxy.url, { 'x-litellm-api-key': 'sk-made-up' }, longRequest)).toBe(401);
    expect(calls.count).toBe(0);
    expect(await post(proxy.url, { 'x-litellm-api-key': 'sk-user' }, shortRequest)).toBe(200);
    expect(await post(proxy.url, { 'x-litellm-api-key': 'sk-user' }, longRequest)).toBe(200);
    expect(calls.count).toBeGreaterThan(0);
  });
});
