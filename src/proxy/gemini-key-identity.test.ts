/**
 * Gemini clients that send their key as `?key=` (LiteLLM, and so aider), and dummy keys a keyless
 * upstream accepts: each caller's archive stays its own under `--recall --archive`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Content, type FunctionDeclaration, GoogleGenAI, type Part, Type } from '@google/genai';
import { afterEach, describe, expect, it } from 'vitest';
import { createFileArchiveStore } from '../archive/index.js';
import type { RecordedRequest, ScriptStep } from '../testing/index.js';
import { toolOutput } from './agent-loops.test-utils.js';
import { useProxyHarness } from './proxy-harness.test-utils.js';
import { sessionKeyOf } from './session-identity.js';

const startProxyOver = useProxyHarness();
let directory: string | undefined;
afterEach(async () => {
  if (directory) await rm(directory, { recursive: true, force: true });
  directory = undefined;
});

const readFile: FunctionDeclaration = {
  name: 'read_file',
  description: 'Read a file',
  parameters: { type: Type.OBJECT, properties: { path: { type: Type.STRING } } },
};

/** How a `?key=` client authenticates: the official SDK with its key moved from the header to the query. */
type KeyPlacement = { query: string } | { header: string };

/** The official SDK, its key where `placement` says (LiteLLM's `?key=`, or the usual header). */
function geminiClient(baseUrl: string, placement: KeyPlacement): GoogleGenAI {
  const apiKey = 'header' in placement ? placement.header : 'moved-to-the-query';
  const fetchWithKey: typeof fetch = (input, init) => {
    if (!('query' in placement)) return fetch(input, init);
    const url = new URL(String(input));
    url.searchParams.set('key', placement.query);
    const headers = new Headers(init?.headers);
    headers.delete('x-goog-api-key');
    return fetch(url, { ...init, headers });
  };
  return new GoogleGenAI({ apiKey, apiVersion: 'v1beta', httpOptions: { baseUrl, fetch: fetchWithKey } });
}

/** A tool loop of `turns` reads; returns the client's contents. */
async function geminiLoop(ai: GoogleGenAI, turns: number): Promise<Content[]> {
  const contents: Content[] = [{ role: 'user', parts: [{ text: 'Read every file in src/.' }] }];
  for (let turn = 0; turn < turns; turn += 1) {
    const answer = await ai.models.generateContent({
      model: 'gemini-test',
      contents,
      config: { tools: [{ functionDeclarations: [readFile] }] },
    });
    const parts: Part[] = answer.candidates?.[0]?.content?.parts ?? [];
    contents.push({ role: 'model', parts });
    const calls = parts.flatMap((part) => (part.functionCall ? [part.functionCall] : []));
    if (calls.length === 0) break;
    contents.push({
      role: 'user',
      parts: calls.map((call) => ({
        functionResponse: { id: call.id, name: call.name, response: { output: toolOutput(turn) } },
      })),
    });
  }
  return contents;
}

/**
 * Alice reads files until a placeholder names a recall id; then Bob, with the same first message,
 * asks for that id straight away.
 */
function twoUsersScript() {
  const state = { phase: 'alice' as 'alice' | 'bob', aliceId: undefined as string | undefined, asked: false };
  const script = (request: Omit<RecordedRequest, 'outcome'>): ScriptStep => {
    const contents = JSON.stringify(request.body.contents);
    if (state.phase === 'alice') {
      state.aliceId ??= /recall (r\d+)\]/.exec(contents)?.[1];
      return {
        type: 'tool-calls',
        calls: [{ name: 'read_file', input: { path: `src/file-${contents.length}.ts` } }],
      };
    }
    if (state.asked) return 'Done.';
    state.asked = true;
    return {
      type: 'tool-calls',
      calls: [{ id: 'call_recall_1', name: 'recall', input: { id: state.aliceId } }],
    };
  };
  return { state, script };
}

describe('Gemini keys in the query are part of the session identity', () => {
  it('two ?key= values are two owners, as two header keys are', () => {
    const body = { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] };
    const url = (key: string) => new URL(`http://proxy.invalid/v1beta/models/m:generateContent?key=${key}`);
    const alice = sessionKeyOf('gemini', body, {}, url('alice'));
    expect(alice).not.toBe(sessionKeyOf('gemini', body, {}, url('bob')));
    expect(alice).not.toContain('alice');
    expect(alice.startsWith('key:none')).toBe(false);
    // The same key in the query or the header is the same owner.
    expect(sessionKeyOf('gemini', body, { 'x-goog-api-key': 'alice' })).toBe(alice);
  });

  /** The owner's session key of a Gemini request with this query and these headers. */
  const keyOf = (query: string, headers: Record<string, string> = {}) =>
    sessionKeyOf(
      'gemini',
      { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] },
      headers,
      new URL(`http://proxy.invalid/v1beta/models/m:generateContent${query}`),
    );

  it.each<[string, [string, Record<string, string>?], [string, Record<string, string>?]]>([
    // The upstream reads one of the two (which one is its choice): the owner holds both.
    ['a second ?key= after the first', ['?key=alice&key=bob'], ['?key=alice']],
    ['a second ?key= before the first', ['?key=bob&key=alice'], ['?key=alice']],
    // Google APIs take an OAuth token in the query too.
    ['?access_token= against none', ['?access_token=alice'], ['']],
    ['two ?access_token= values', ['?access_token=alice'], ['?access_token=bob']],
    // One query key holding a line break is not the two keys either side of it.
    [
      'one key with a line break against two keys',
      ['?key=alice%0Abob'],
      ['', { 'x-api-key': 'alice', 'x-goog-api-key': 'bob' }],
    ],
  ])('%s is another owner', (_name, [query, headers], [otherQuery, otherHeaders]) => {
    expect(keyOf(query, headers)).not.toBe(keyOf(otherQuery, otherHeaders));
  });

  it('an ?access_token= is the owner its bearer header is', () => {
    expect(keyOf('?access_token=alice')).toBe(keyOf('', { authorization: 'Bearer alice' }));
  });

  it('a body is never read from the kept body of another ?key= caller', async () => {
    const { proxy } = await startProxyOver(['One.', 'Two.']);
    // Past the size the proxy reads from a recent body (16 KiB), the same bytes for both callers.
    const body = JSON.stringify({
      systemInstruction: { parts: [{ text: 'You are a coding agent. '.repeat(1_000) }] },
      contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
    });
    for (const key of ['alice', 'bob']) {
      const answer = await fetch(`${proxy.url}/v1beta/models/gemini-test:generateContent?key=${key}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect(answer.status).toBe(200);
    }
    expect((await proxy.stats()).bodies).toEqual({ incremental: 0, whole: 2 });
  });

  it.each<[string, KeyPlacement, KeyPlacement]>([
    ['two ?key= clients', { query: 'key-alice' }, { query: 'key-bob' }],
    ['one dummy key for everyone (a keyless upstream)', { header: 'EMPTY' }, { header: 'EMPTY' }],
  ])(
    '--recall --archive, %s: the second user cannot recall the first one’s output',
    async (_name, aliceKey, bobKey) => {
      directory = await mkdtemp(join(tmpdir(), 'agent-compact-gemini-key-'));
      const { state, script } = twoUsersScript();
      const { server, proxy, records } = await startProxyOver(script, {
        thresholds: { mid: 3000, hard: 6000 },
        summarizer: 'extractive',
        recall: true,
        archive: createFileArchiveStore({ directory }),
      });
      await geminiLoop(geminiClient(proxy.url, aliceKey), 10);
      expect(state.aliceId).toBeDefined();
      const aliceSessions = new Set(records.map((record) => record.session));
      state.phase = 'bob';
      const bobContents = await geminiLoop(geminiClient(proxy.url, bobKey), 3);
      expect(JSON.stringify(bobContents.at(-1))).toContain('Done.');
      const followUp = JSON.stringify(server.requests.at(-1)?.body.contents);
      expect(followUp).toContain('call_recall_1');
      expect(followUp).not.toContain('output of step');
      expect(followUp).toContain('no archived item');
      if ('query' in bobKey) expect(aliceSessions.has(records.at(-1)!.session)).toBe(false);
    },
  );
});
