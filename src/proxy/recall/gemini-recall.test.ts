import { type Content, type FunctionDeclaration, GoogleGenAI, type Part, Type } from '@google/genai';
import { describe, expect, it } from 'vitest';
import { protoNamed } from '../../core/wire/gemini/gemini-session.test-utils.js';
import type { RecordedRequest, ScriptStep } from '../../testing/index.js';
import { toolOutput } from '../agent-loops.test-utils.js';
import { useProxyHarness } from '../proxy-harness.test-utils.js';

const startProxyOver = useProxyHarness();

const readFile: FunctionDeclaration = {
  name: 'read_file',
  description: 'Read a file',
  parameters: { type: Type.OBJECT, properties: { path: { type: Type.STRING } } },
};

/** Reads a new file each turn until a placeholder names a recall id, recalls it once, then answers. */
function recallingScript() {
  let recalled = false;
  return (request: Omit<RecordedRequest, 'outcome'>): ScriptStep => {
    if (recalled) return 'Recalled and done.';
    const contents = request.body.contents as unknown[];
    const id = /recall (r\d+)\]/.exec(JSON.stringify(contents))?.[1];
    if (id === undefined) {
      return {
        type: 'tool-calls',
        text: 'Reading the next file.',
        calls: [{ name: 'read_file', input: { path: `src/file-${contents.length}.ts` } }],
      };
    }
    recalled = true;
    return {
      type: 'tool-calls',
      text: 'Let me look again.',
      calls: [{ id: 'call_recall_1', name: 'recall', input: { id } }],
    };
  };
}

/** A tool loop over the official SDK through the proxy; returns the client's contents. */
async function geminiLoop(baseUrl: string, { turns, stream }: { turns: number; stream: boolean }) {
  const ai = new GoogleGenAI({ apiKey: 'k', apiVersion: 'v1beta', httpOptions: { baseUrl } });
  const contents: Content[] = [{ role: 'user', parts: [{ text: 'Read every file in src/.' }] }];
  const request = () => ({
    model: 'gemini-test',
    contents,
    config: { tools: [{ functionDeclarations: [readFile] }] },
  });
  for (let turn = 0; turn < turns; turn += 1) {
    const parts: Part[] = [];
    if (stream) {
      for await (const chunk of await ai.models.generateContentStream(request()))
        parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
    } else {
      parts.push(...((await ai.models.generateContent(request())).candidates?.[0]?.content?.parts ?? []));
    }
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
 * The same loop over raw REST, the parts written in their proto names (`function_response`), as
 * LiteLLM and other clients that build the JSON themselves send them; returns the client's contents.
 */
async function protoNamedLoop(baseUrl: string, turns: number) {
  const contents: unknown[] = [{ role: 'user', parts: [{ text: 'Read every file in src/.' }] }];
  for (let turn = 0; turn < turns; turn += 1) {
    const response = await fetch(`${baseUrl}/v1beta/models/gemini-test:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': 'k' },
      body: JSON.stringify({ contents, tools: [{ function_declarations: [readFile] }] }),
    });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { candidates: { content: { parts: Part[] } }[] };
    const { parts } = answer.candidates[0]!.content;
    contents.push({ role: 'model', parts: protoNamed(parts) });
    const calls = parts.flatMap((part) => (part.functionCall ? [part.functionCall] : []));
    if (calls.length === 0) break;
    contents.push({
      role: 'user',
      parts: calls.map((call) => ({
        function_response: { id: call.id, name: call.name, response: { output: toolOutput(turn) } },
      })),
    });
  }
  return contents;
}

describe('--recall on the Gemini API', () => {
  it('recalls for a client that writes parts in proto names: its old responses masked, every request valid', async () => {
    const { server, proxy } = await startProxyOver(recallingScript(), {
      thresholds: { mid: 3000, hard: 6000 },
      summarizer: 'extractive',
      recall: true,
    });
    const contents = await protoNamedLoop(proxy.url, 20);
    expect(JSON.stringify(contents.at(-1))).toContain('Recalled and done.');
    expect(server.requests.every((request) => request.outcome !== 'invalid-request')).toBe(true);
    // The request that asked for a recall held a masked response, in the client's spelling.
    const asked = server.requests.at(-2)!.body.contents as Record<string, unknown>[];
    expect(JSON.stringify(asked)).toMatch(
      /\{"function_response":\{"name":"read_file","response":\{"output":"\[[^"]*recall r\d+\]/,
    );
    // The follow-up the proxy wrote: the recall call and its response in the client's spelling too.
    const followUp = server.requests.at(-1)!.body.contents as Record<string, unknown>[];
    const [call, response] = followUp.slice(-2) as { parts: Record<string, unknown>[] }[];
    expect(call!.parts.some((part) => (part.function_call as { name?: string })?.name === 'recall')).toBe(
      true,
    );
    expect(response!.parts).toEqual([
      {
        function_response: {
          id: 'call_recall_1',
          name: 'recall',
          response: { output: expect.stringContaining('output of step') },
        },
      },
    ]);
    expect(JSON.stringify(followUp)).not.toMatch(/"(functionCall|functionResponse|thoughtSignature)"/);
  });

  it.each([false, true])(
    '(stream %s): the proxy declares recall, answers it itself, and the client never sees it',
    async (stream) => {
      const { server, proxy } = await startProxyOver(recallingScript(), {
        thresholds: { mid: 3000, hard: 6000 },
        summarizer: 'extractive',
        recall: true,
      });
      const contents = await geminiLoop(proxy.url, { turns: 20, stream });
      expect(JSON.stringify(contents.at(-1))).toContain('Recalled and done.');
      expect(JSON.stringify(contents)).not.toContain('"name":"recall"');
      expect(server.requests.every((request) => request.api === 'gemini' && request.stream === stream)).toBe(
        true,
      );
      expect(server.requests.every((request) => request.outcome !== 'invalid-request')).toBe(true);
      const tools = server.requests[0]!.body.tools as { functionDeclarations: { name: string }[] }[];
      expect(
        tools.flatMap((tool) => tool.functionDeclarations.map((declaration) => declaration.name)),
      ).toEqual(['read_file', 'recall']);
      // The follow-up: the model's recall call sent back, then the archived text as its response.
      const followUp = server.requests.at(-1)!.body.contents as Content[];
      expect(followUp.at(-2)?.parts?.some((part) => part.functionCall?.name === 'recall')).toBe(true);
      expect(JSON.stringify(followUp.at(-1))).toMatch(
        /^\{"role":"user","parts":\[\{"functionResponse":\{"id":"call_recall_1","name":"recall","response":\{"output":"output of step \d+\\nconst value/,
      );
    },
  );

  it('declares recall beside function_declarations in that field, so no entry names both fields', async () => {
    const { server, proxy } = await startProxyOver(['Nothing to read.'], { recall: true });
    const answer = await fetch(`${proxy.url}/v1beta/models/gemini-test:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': 'k' },
      body: JSON.stringify({
        contents: [{ role: 'user', parts: [{ text: 'Read every file in src/.' }] }],
        tools: [{ function_declarations: [{ name: 'read_file', description: 'Read a file' }] }],
      }),
    });
    expect(answer.status).toBe(200);
    const tools = server.requests[0]!.body.tools as { function_declarations: { name: string }[] }[];
    expect(tools).toHaveLength(1);
    expect(Object.keys(tools[0]!)).toEqual(['function_declarations']);
    expect(tools[0]!.function_declarations.map((declaration) => declaration.name)).toEqual([
      'read_file',
      'recall',
    ]);
  });

  it.each([false, true])(
    "(stream %s): a turn that mixes recall with the client's own call goes to the client without the recall",
    async (stream) => {
      const mixed: ScriptStep = {
        type: 'tool-calls',
        text: 'Reading two files.',
        calls: [
          { id: 'call_recall', name: 'recall', input: { id: 'r1' } },
          { id: 'call_a', name: 'read_file', input: { path: 'a.ts' } },
        ],
      };
      const { server, proxy } = await startProxyOver([mixed], { recall: true });
      const contents = await geminiLoop(proxy.url, { turns: 1, stream });
      const parts = contents[1]!.parts ?? [];
      expect(parts.map((part) => part.text ?? part.functionCall?.id)).toEqual([
        'Reading two files.',
        'call_a',
      ]);
      expect(server.requests).toHaveLength(1);
    },
  );
});
