import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CompactError } from '../core/model/errors.js';
import type { Message } from '../core/model/messages.js';
import type { SummaryRequest } from '../core/summary/summary-model.js';
import { estimateRequestTokens } from '../testing/prompt-usage.js';
import type { ScriptStep } from '../testing/script.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../testing/scripted-model-server.js';
import {
  type AnthropicSummaryModelOptions,
  createAnthropicSummaryModel,
  fromAnthropicParams,
  summaryUsageFromAnthropic,
  toAnthropicParams,
  withCacheBreakpoint,
} from './index.js';

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const system = 'You are a coding agent working in /repo.';
const history: Message[] = [
  { role: 'user', content: 'Fix the failing test in src/app.test.ts.' },
  {
    role: 'assistant',
    content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'src/app.test.ts' } }],
  },
  {
    role: 'user',
    content: [
      { type: 'tool_result', tool_use_id: 'toolu_1', content: 'expect(add(1, 2)).toBe(4);\n'.repeat(40) },
    ],
  },
  { role: 'assistant', content: 'The expectation is wrong: 1 + 2 is 3.' },
];
const instruction: Message = { role: 'user', content: 'Summarize the conversation so far. Be dense.' };
const request: SummaryRequest = { system, messages: [...history, instruction], maxOutputTokens: 500 };

async function setup(script: ScriptStep[], options: Partial<AnthropicSummaryModelOptions> = {}) {
  server = await startScriptedModelServer({ script });
  const model = createAnthropicSummaryModel({
    model: 'claude-test',
    apiKey: 'test-key',
    baseURL: server.anthropicBaseURL,
    retryDelayMs: 20,
    ...options,
  });
  return { server, model };
}

async function failure(promise: Promise<unknown>): Promise<CompactError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!CompactError.isInstance(error)) throw new Error(`expected a CompactError, got ${String(error)}`);
  return error;
}

describe('createAnthropicSummaryModel', () => {
  it('sends the system prompt unchanged, marks the kept prefix for caching and never mutates the request', async () => {
    const { server, model } = await setup(['## Task\nFix the test.']);
    const before = structuredClone(request);
    const result = await model.summarize(request);
    expect(result.text).toBe('## Task\nFix the test.');
    expect(request).toEqual(before);
    const body = server.requests[0]?.body as {
      system: unknown;
      messages: Anthropic.MessageParam[];
      max_tokens: number;
    };
    expect(body.system).toBe(system);
    expect(body.max_tokens).toBe(500);
    expect(body.messages.at(-1)).toEqual(instruction);
    expect(body.messages.at(-2)).toEqual({
      role: 'assistant',
      content: [
        { type: 'text', text: 'The expectation is wrong: 1 + 2 is 3.', cache_control: { type: 'ephemeral' } },
      ],
    });
    expect(JSON.stringify(body).match(/cache_control/g)).toHaveLength(1);
    expect(model).toMatchObject({
      specificationVersion: 'v1',
      provider: 'anthropic',
      modelId: 'claude-test',
    });
  });

  it("declares the tools the history used, or sends the agent's own tools unchanged", async () => {
    const { server, model } = await setup(['one', 'two']);
    await model.summarize(request);
    expect(server.requests[0]?.body).toMatchObject({
      tools: [{ name: 'read_file', input_schema: { type: 'object' } }],
      tool_choice: { type: 'none' },
    });
    const agentTools: Anthropic.ToolUnion[] = [
      {
        name: 'read_file',
        description: 'Reads a file',
        input_schema: { type: 'object', properties: { path: { type: 'string' } } },
      },
    ];
    const withTools = createAnthropicSummaryModel({
      model: 'claude-test',
      apiKey: 'k',
      baseURL: server.anthropicBaseURL,
      tools: agentTools,
    });
    await withTools.summarize(request);
    expect(server.requests[1]?.body.tools).toEqual(agentTools);
    expect(server.requests[1]?.body.tool_choice).toBeUndefined();
  });

  it("stays within the API's four breakpoints when the agent's tools and system hold some", async () => {
    const cached = { cache_control: { type: 'ephemeral' as const } };
    const agentTools: Anthropic.ToolUnion[] = [
      { name: 'read_file', input_schema: { type: 'object' } },
      { name: 'bash', input_schema: { type: 'object' }, ...cached },
    ];
    const { server, model } = await setup(['## Summary\n- done', '## Summary\n- done'], {
      tools: agentTools,
    });
    const threeBlocks = ['static', 'project', 'session'].map((text) => ({
      type: 'text' as const,
      text,
      ...cached,
    }));
    expect((await model.summarize({ ...request, system: threeBlocks })).text).toBe('## Summary\n- done');
    expect(JSON.stringify(server.requests[0]?.body).match(/cache_control/g)).toHaveLength(4);
    // With room left, the kept prefix is still marked.
    await model.summarize(request);
    expect(JSON.stringify(server.requests[1]?.body).match(/cache_control/g)).toHaveLength(2);
  });

  it("reads the agent's cached history instead of paying for it again, and surfaces usage", async () => {
    const tools: Anthropic.ToolUnion[] = [{ name: 'read_file', input_schema: { type: 'object' } }];
    const { server, model } = await setup(['agent answer', 'the summary'], { tools });
    // The agent's own last request cached its history up to the last message.
    const client = new Anthropic({ apiKey: 'test-key', baseURL: server.anthropicBaseURL, maxRetries: 0 });
    const agentMessages = withCacheBreakpoint([...history, { role: 'user', content: 'next' }]);
    await client.messages.create({
      model: 'claude-test',
      max_tokens: 100,
      system,
      tools,
      messages: toAnthropicParams({ messages: agentMessages }).messages,
    });
    const result = await model.summarize(request);
    const prefixTokens = estimateRequestTokens('anthropic', { tools, system, messages: history });
    expect(result.usage).toEqual({
      inputTokens: server.requests[1]?.inputTokens,
      outputTokens: Math.ceil('the summary'.length / 4),
      cacheReadTokens: prefixTokens,
      cacheWriteTokens: 0,
    });
  });

  it('honours retry-after on 429 rather than its own backoff', async () => {
    const { server, model } = await setup([{ type: 'rate-limit', retryAfterSeconds: 0.3 }, 'summary'], {
      retryDelayMs: 5000,
    });
    // The waits scheduled, not the time taken: the retry-after (300 ms), never the 5 s backoff.
    const setTimeoutSpy = vi.spyOn(globalThis, 'setTimeout');
    let delays: number[];
    try {
      await expect(model.summarize(request)).resolves.toMatchObject({ text: 'summary' });
    } finally {
      delays = setTimeoutSpy.mock.calls.map(([, delay]) => delay ?? 0);
      setTimeoutSpy.mockRestore();
    }
    expect(delays).toContain(300);
    // Its own backoff for the first retry would be 4000–5000 ms (5000 less up to a fifth of jitter).
    expect(delays.filter((delay) => delay >= 4000 && delay <= 5000)).toEqual([]);
    expect(server.requests.map((entry) => entry.outcome)).toEqual(['rate-limit', 'text']);
  });

  it('gives up at once when retry-after is longer than maxRetryAfterMs', async () => {
    const { server, model } = await setup([{ type: 'rate-limit', retryAfterSeconds: 120 }, 'never'], {
      maxRetryAfterMs: 1000,
    });
    const error = await failure(model.summarize(request));
    expect(error).toMatchObject({ code: 'SUMMARY_FAILED', status: 429 });
    expect(error.message).toContain('retry-after of 120000 ms exceeds 1000 ms');
    expect(server.requests).toHaveLength(1);
  });

  it('retries a 500 with exponential backoff, then fails with SUMMARY_FAILED and the status', async () => {
    const { server, model } = await setup(
      [
        { type: 'server-error' },
        { type: 'server-error' },
        { type: 'server-error', message: 'database on fire' },
      ],
      { maxRetries: 2, retryDelayMs: 40 },
    );
    const startedAt = Date.now();
    const error = await failure(model.summarize(request));
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(40 * 0.8 + 80 * 0.8);
    expect(error.code).toBe('SUMMARY_FAILED');
    expect(error.status).toBe(500);
    expect(error.message).toBe('anthropic summary call failed (HTTP 500) after 3 tries: database on fire');
    expect(server.requests).toHaveLength(3);
  });

  it('times out a hanging server on every try', async () => {
    const { server, model } = await setup([{ type: 'hang' }, { type: 'hang' }], {
      timeoutMs: 100,
      maxRetries: 1,
    });
    // Without the timeout the call would hang until the test's own timeout fails it.
    const error = await failure(model.summarize(request));
    expect(error.code).toBe('SUMMARY_FAILED');
    expect(error.status).toBeUndefined();
    expect(error.message).toContain('no answer within 100 ms (timeout)');
    expect(server.requests).toHaveLength(2);
  });

  it('streams when the bound is too large for a non-streaming call', async () => {
    const { server, model } = await setup(['a long summary']);
    await expect(model.summarize({ ...request, maxOutputTokens: 64_000 })).resolves.toMatchObject({
      text: 'a long summary',
      usage: { outputTokens: 4 },
    });
    expect(server.requests[0]).toMatchObject({ stream: true, body: { max_tokens: 64_000 } });
  });

  it('retries after a dropped connection', async () => {
    const { server, model } = await setup([{ type: 'drop-connection' }, 'summary after the drop']);
    await expect(model.summarize(request)).resolves.toMatchObject({ text: 'summary after the drop' });
    expect(server.requests.map((entry) => entry.outcome)).toEqual(['drop-connection', 'text']);
  });

  it.each<[ScriptStep, string]>([
    [{ type: 'empty' }, 'has no text (no content; stop_reason end_turn)'],
    [
      { type: 'tool-calls', calls: [{ name: 'bash', input: { command: 'ls' } }] },
      'has no text (tool_use; stop_reason tool_use)',
    ],
    [{ type: 'oversize' }, 'more than the 500 asked for'],
  ])('fails without retrying on a broken answer: %o', async (step, message) => {
    const { server, model } = await setup([step, 'never']);
    const error = await failure(model.summarize(request));
    expect(error.code).toBe('SUMMARY_FAILED');
    expect(error.message).toContain(message);
    expect(server.requests).toHaveLength(1);
  });

  it("fails without retrying when the provider rejects the conversation, with the provider's message", async () => {
    const { server, model } = await setup(['never']);
    const orphan: SummaryRequest = {
      messages: [
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_gone', content: 'old output' }],
        },
        instruction,
      ],
      maxOutputTokens: 100,
    };
    const error = await failure(model.summarize(orphan));
    expect(error).toMatchObject({ code: 'SUMMARY_FAILED', status: 400 });
    expect(error.message).toContain('messages[0].content[0]');
    expect(error.message).toContain('not retryable');
    expect(server.requests).toHaveLength(1);
  });

  it('stops at once when the signal aborts', async () => {
    const { model } = await setup([{ type: 'hang' }], { timeoutMs: 60_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    // The hang outlasts the test's timeout (60 s): only the abort ends the call in time.
    const error = await failure(model.summarize(request, { signal: controller.signal }));
    expect(error.code).toBe('ABORTED');
  });

  it('uses a client it is given, and caps the answer at maxTokens', async () => {
    server = await startScriptedModelServer({ script: ['ok'] });
    const client = new Anthropic({ apiKey: 'given', baseURL: server.anthropicBaseURL });
    const model = createAnthropicSummaryModel({
      client,
      model: 'claude-small',
      maxTokens: 64,
      contextWindow: 200_000,
    });
    await model.summarize(request);
    expect(server.requests[0]?.body).toMatchObject({ model: 'claude-small', max_tokens: 64 });
    expect(model.contextWindow).toBe(200_000);
  });
});

describe('withCacheBreakpoint', () => {
  it('skips blocks that cannot carry cache_control and moves existing breakpoints', () => {
    const messages: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'answer' },
          { type: 'thinking', thinking: 'hmm', signature: 's' },
        ],
      },
      instruction,
    ];
    expect(withCacheBreakpoint(messages)).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'answer', cache_control: { type: 'ephemeral' } },
          { type: 'thinking', thinking: 'hmm', signature: 's' },
        ],
      },
      instruction,
    ]);
    expect(messages[0]?.content).toEqual([
      { type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } },
    ]);
  });
});

describe('format helpers', () => {
  it('types a conversation as SDK params, stripping fields the API does not know', () => {
    const params = toAnthropicParams({
      system: [{ type: 'text', text: 'sys', cache_control: { type: 'ephemeral' } }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'hi', _tool_name: 'smuggled' } as never] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'calling', citations: null } as never,
            { type: 'tool_use', id: 't1', name: 'bash', input: { command: 'ls' } },
            { type: 'server_tool_use', id: 's1', name: 'web_search', input: {} },
          ],
        },
      ],
    });
    expect(params).toMatchInlineSnapshot(`
      {
        "messages": [
          {
            "content": [
              {
                "text": "hi",
                "type": "text",
              },
            ],
            "role": "user",
          },
          {
            "content": [
              {
                "text": "calling",
                "type": "text",
              },
              {
                "id": "t1",
                "input": {
                  "command": "ls",
                },
                "name": "bash",
                "type": "tool_use",
              },
              {
                "id": "s1",
                "input": {},
                "name": "web_search",
                "type": "server_tool_use",
              },
            ],
            "role": "assistant",
          },
        ],
        "system": [
          {
            "cache_control": {
              "type": "ephemeral",
            },
            "text": "sys",
            "type": "text",
          },
        ],
      }
    `);
  });

  it('reads a response back into the canonical model', async () => {
    server = await startScriptedModelServer({
      script: [
        {
          type: 'tool-calls',
          text: 'Looking.',
          calls: [{ id: 'toolu_9', name: 'bash', input: { command: 'ls' } }],
        },
      ],
    });
    const client = new Anthropic({ apiKey: 'k', baseURL: server.anthropicBaseURL, maxRetries: 0 });
    const reply = await client.messages.create({
      model: 'm',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'go' }],
    });
    const conversation = fromAnthropicParams({ messages: [{ role: 'assistant', content: reply.content }] });
    expect(conversation.messages).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Looking.' },
          { type: 'tool_use', id: 'toolu_9', name: 'bash', input: { command: 'ls' } },
        ],
      },
    ]);
  });
});

describe('summaryUsageFromAnthropic', () => {
  it.each([-5, Number.NaN, Number.POSITIVE_INFINITY, 12.5, '12', null])(
    'drops a count of %s and keeps the true ones, so the input total stays a number',
    (nonsense) => {
      const usage = { input_tokens: 100, output_tokens: nonsense, cache_read_input_tokens: nonsense };
      expect(summaryUsageFromAnthropic({ ...usage, cache_creation_input_tokens: 7 } as never)).toEqual({
        inputTokens: 107,
        cacheWriteTokens: 7,
      });
      expect(summaryUsageFromAnthropic({ input_tokens: nonsense, output_tokens: 3 } as never)).toEqual({
        outputTokens: 3,
      });
    },
  );
});
