import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest, ScriptStep } from '../../testing/index.js';
import {
  anthropicLoop,
  openAIChatLoop,
  responsesLoop,
  toolCallingScript,
} from '../agent-loops.test-utils.js';
import { useProxyHarness } from '../proxy-harness.test-utils.js';
import { credentialHash } from '../session-identity.js';
import { createMemoryProxySessionStore } from '../session-store.js';

const startProxyOver = useProxyHarness();

/** Drives tool calls until a placeholder names a recall id, calls recall once, then answers in text. */
function recallingScript() {
  let recalled = false;
  return (request: Omit<RecordedRequest, 'outcome'>): ScriptStep => {
    if (recalled) return 'Recalled and done.';
    const id = /recall (r\d+)\]/.exec(JSON.stringify(request.body.messages ?? request.body.input))?.[1];
    if (id === undefined) return toolCallingScript(request);
    recalled = true;
    return {
      type: 'tool-calls',
      text: 'Let me look again.',
      calls: [{ id: 'call_recall_1', name: 'recall', input: { id } }],
    };
  };
}

function start() {
  return startProxyOver(recallingScript(), {
    thresholds: { mid: 3000, hard: 6000 },
    summarizer: 'extractive',
    recall: true,
  });
}

/** The tool result the proxy sent for its recall call, from the follow-up request. */
function recallResult(requests: readonly RecordedRequest[]): string {
  return JSON.stringify(requests.at(-1)?.body.messages ?? requests.at(-1)?.body.input ?? []);
}

describe('--recall', () => {
  it.each([false, true])(
    'Anthropic (stream %s): the proxy answers recall itself and the client never sees it',
    async (stream) => {
      const { server, proxy } = await start();
      const history = await anthropicLoop(proxy.url, { turns: 20, stream });
      const last = history.at(-1) as Anthropic.MessageParam;
      expect(last.role).toBe('assistant');
      expect(JSON.stringify(history)).not.toContain('"name":"recall"');
      expect(JSON.stringify(last.content)).toContain('Recalled and done.');
      expect(server.requests.every((request) => request.outcome !== 'invalid-request')).toBe(true);
      expect((server.requests[0]!.body.tools as { name: string }[]).map((tool) => tool.name)).toEqual([
        'read_file',
        'recall',
      ]);
      expect(recallResult(server.requests)).toMatch(
        /"tool_use_id":"call_recall_1","content":"output of step \d+\\nconst value/,
      );
    },
  );

  it.each([false, true])('OpenAI chat (stream %s): the same through Chat Completions', async (stream) => {
    const { server, proxy } = await start();
    const history = await openAIChatLoop(`${proxy.url}/v1`, { turns: 20, stream });
    const last = history.at(-1) as OpenAI.ChatCompletionAssistantMessageParam;
    expect(last.role).toBe('assistant');
    expect(last.content).toContain('Recalled and done.');
    expect(JSON.stringify(history)).not.toContain('"name":"recall"');
    expect(server.requests.every((request) => request.outcome !== 'invalid-request')).toBe(true);
    expect(recallResult(server.requests)).toMatch(
      /"tool_call_id":"call_recall_1","content":"output of step \d+\\nconst value/,
    );
  });

  it.each([false, true])(
    'OpenAI Responses (stream %s): the same through the Responses API',
    async (stream) => {
      const { server, proxy } = await start();
      const input = await responsesLoop(`${proxy.url}/v1`, { turns: 20, stream });
      expect(JSON.stringify(input.at(-1))).toContain('Recalled and done.');
      expect(JSON.stringify(input)).not.toContain('"name":"recall"');
      expect(server.requests.every((request) => request.outcome !== 'invalid-request')).toBe(true);
      expect(recallResult(server.requests)).toMatch(
        /"call_id":"call_recall_1","output":"output of step \d+\\nconst value/,
      );
    },
  );

  it('keeps the usage of an answer with no recall call, to anchor the next count', async () => {
    const store = createMemoryProxySessionStore();
    const { proxy } = await startProxyOver(['Plain answer.'], { recall: true, store });
    const client = new Anthropic({
      apiKey: 'k',
      baseURL: proxy.url,
      maxRetries: 0,
      defaultHeaders: { 'x-agent-compact-session': 's' },
    });
    const tools = [{ name: 'read_file', input_schema: { type: 'object' as const } }];
    const message = await client.messages
      .stream({ model: 'm', max_tokens: 10, tools, messages: [{ role: 'user', content: 'Hi' }] })
      .finalMessage();
    expect((await store.load(`key:${credentialHash({ 'x-api-key': 'k' })}:header:s`))?.usage).toMatchObject({
      input_tokens: message.usage.input_tokens,
    });
  });

  describe("a turn that mixes recall with the client's own calls", () => {
    const mixed: ScriptStep = {
      type: 'tool-calls',
      text: 'Reading two files.',
      calls: [
        { id: 'call_a', name: 'read_file', input: { path: 'a.ts' } },
        { id: 'call_recall', name: 'recall', input: { id: 'r1' } },
        { id: 'call_b', name: 'read_file', input: { path: 'b.ts' } },
      ],
    };
    const readFile = { name: 'read_file', description: 'Read a file', parameters: { type: 'object' } };

    function startMixed() {
      return startProxyOver([mixed], { recall: true });
    }

    it.each([false, true])(
      'Anthropic (stream %s): the client gets both its calls, no recall',
      async (stream) => {
        const { server, proxy } = await startMixed();
        const client = new Anthropic({ apiKey: 'k', baseURL: proxy.url, maxRetries: 0 });
        const request = {
          model: 'm',
          max_tokens: 100,
          tools: [{ name: readFile.name, input_schema: { type: 'object' as const } }],
          messages: [{ role: 'user' as const, content: 'Read a.ts and b.ts' }],
        };
        const message = stream
          ? await client.messages.stream(request).finalMessage()
          : await client.messages.create(request);
        expect(message.content.map((block) => (block.type === 'tool_use' ? block.id : block.type))).toEqual([
          'text',
          'call_a',
          'call_b',
        ]);
        expect(message.content[2]).toMatchObject({ input: { path: 'b.ts' } });
        expect(message.stop_reason).toBe('tool_use');
        expect(server.requests).toHaveLength(1);
      },
    );

    it.each([false, true])(
      'OpenAI chat (stream %s): the client gets both its calls, no recall',
      async (stream) => {
        const { server, proxy } = await startMixed();
        const client = new OpenAI({ apiKey: 'k', baseURL: `${proxy.url}/v1`, maxRetries: 0 });
        const request = {
          model: 'm',
          tools: [{ type: 'function' as const, function: readFile }],
          messages: [{ role: 'user' as const, content: 'Read a.ts and b.ts' }],
        };
        const message = stream
          ? (await client.chat.completions.stream(request).finalChatCompletion()).choices[0]!.message
          : (await client.chat.completions.create(request)).choices[0]!.message;
        expect(message.tool_calls?.map((call) => call.id)).toEqual(['call_a', 'call_b']);
        expect(
          JSON.parse(
            (message.tool_calls?.[1] as { function: { arguments: string } } | undefined)?.function
              .arguments ?? '',
          ),
        ).toEqual({
          path: 'b.ts',
        });
        expect(server.requests).toHaveLength(1);
      },
    );

    it.each([false, true])(
      'OpenAI Responses (stream %s): the client gets both its calls, no recall',
      async (stream) => {
        const { server, proxy } = await startMixed();
        const client = new OpenAI({ apiKey: 'k', baseURL: `${proxy.url}/v1`, maxRetries: 0 });
        const request = {
          model: 'm',
          tools: [{ type: 'function' as const, strict: false, ...readFile }],
          input: 'Read a.ts and b.ts',
        };
        const response = stream
          ? await client.responses.stream(request).finalResponse()
          : await client.responses.create(request);
        const output: OpenAI.Responses.ResponseOutputItem[] = response.output;
        const calls = output.filter(
          (item): item is OpenAI.Responses.ResponseFunctionToolCall => item.type === 'function_call',
        );
        expect(calls.map((call) => call.call_id)).toEqual(['call_a', 'call_b']);
        expect(JSON.parse(calls[1]!.arguments)).toEqual({ path: 'b.ts' });
        expect(server.requests).toHaveLength(1);
      },
    );
  });
});

describe('--recall on Responses with store: false', () => {
  it.each([false, true])(
    '(stream %s) the follow-up leaves out reasoning the API kept no copy of',
    async (stream) => {
      const callsRecall: ScriptStep = {
        type: 'tool-calls',
        calls: [{ id: 'call_recall', name: 'recall', input: { id: 'r1' } }],
      };
      const { server, proxy } = await startProxyOver([callsRecall, 'Recalled and done.'], { recall: true });
      const client = new OpenAI({ apiKey: 'k', baseURL: `${proxy.url}/v1`, maxRetries: 0 });
      const request = {
        model: 'gpt-5',
        store: false,
        reasoning: { effort: 'low' as const },
        tools: [
          { type: 'function' as const, name: 'read_file', strict: false, parameters: { type: 'object' } },
        ],
        input: 'What did the log say?',
      };
      const response = stream
        ? await client.responses.stream(request).finalResponse()
        : await client.responses.create(request);
      expect(response.output_text).toBe('Recalled and done.');
      expect(server.requests.map((request) => request.outcome)).not.toContain('invalid-request');
      const followUp = server.requests[1]!.body.input as { type?: string }[];
      expect(followUp.map((item) => item.type)).toContain('function_call_output');
    },
  );
});
