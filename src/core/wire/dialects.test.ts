/**
 * The dialect registry: every format registered once, each dialect reading a request and writing
 * it back unchanged, and no format switch left in the core outside `core/wire`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CompactError } from '../model/errors.js';
import type { ProviderUsage } from '../model/messages.js';
import type { RequestBody } from '../model/request.js';
import { WIRE_FORMATS, type WireFormat } from '../model/wire-format.js';
import { dialectOf, dialects, isWireFormat } from './dialects.js';

/** One request per format, with the fields the canonical model has no slot for. */
const samples: Record<WireFormat, RequestBody> = {
  anthropic: {
    model: 'claude-sonnet-4-5',
    max_tokens: 1024,
    system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
    messages: [
      { role: 'user', content: 'list the files' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'ls it is', signature: 'sig' },
          { type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: 'ls' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a.txt\nb.txt' }] },
    ],
    tools: [{ name: 'bash', description: 'Runs a command.', input_schema: { type: 'object' } }],
  },
  openai: {
    model: 'gpt-5',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'list the files', name: 'ada' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'bash', arguments: '{ "command": "ls" }' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'a.txt\nb.txt' },
    ],
    tools: [{ type: 'function', function: { name: 'bash', parameters: { type: 'object' } } }],
    parallel_tool_calls: false,
  },
  responses: {
    model: 'gpt-5',
    instructions: 'Be brief.',
    input: [
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'list the files' }] },
      { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'opaque' },
      {
        type: 'function_call',
        id: 'fc_1',
        call_id: 'call_1',
        name: 'bash',
        arguments: '{"command":"ls"}',
        status: 'completed',
      },
      { type: 'function_call_output', call_id: 'call_1', output: 'a.txt\nb.txt' },
    ],
    store: false,
  },
  gemini: {
    systemInstruction: { parts: [{ text: 'Be brief.' }] },
    contents: [
      { role: 'user', parts: [{ text: 'list the files' }] },
      {
        role: 'model',
        parts: [
          { functionCall: { id: 'c1', name: 'bash', args: { command: 'ls' } }, thoughtSignature: 'c2ln' },
        ],
      },
      {
        role: 'user',
        parts: [{ functionResponse: { id: 'c1', name: 'bash', response: { output: 'a.txt' } } }],
      },
    ],
    generationConfig: { temperature: 0 },
  },
};

describe('the dialect registry', () => {
  it('has one dialect per wire format, registered under its own name', () => {
    // A new format is one registration: the registry's keys are the WireFormat values.
    expect(Object.keys(dialects).sort()).toEqual([...WIRE_FORMATS].sort());
    for (const format of WIRE_FORMATS) expect(dialects[format].format).toBe(format);
  });

  it('tells formats from other strings, own keys only', () => {
    expect(WIRE_FORMATS.every(isWireFormat)).toBe(true);
    expect(['toString', 'openai-chat', '', undefined].some(isWireFormat)).toBe(false);
    expect(() => dialectOf('toString')).toThrow(CompactError);
    expect(() => dialectOf('cohere')).toThrow(
      'format must be "anthropic", "openai", "responses" or "gemini", got cohere',
    );
  });

  it.each(WIRE_FORMATS)('%s: reads a request and writes it back byte for byte', (format) => {
    const dialect = dialects[format];
    const body = structuredClone(samples[format]);
    const read = dialect.readRequest(body);
    expect(read.messages.length).toBeGreaterThan(0);
    const written = { ...body, ...read.write(read.messages, { inPlace: true }) };
    expect(JSON.stringify(written)).toBe(JSON.stringify(samples[format]));
    expect(Object.keys(read.write(read.messages))).toEqual([dialect.conversationField]);
    expect(dialect.requestProblems(body, read)).toEqual([]);
  });

  it.each(WIRE_FORMATS)('%s: writes a file it reads back to the same conversation', (format) => {
    const dialect = dialects[format];
    const { messages, system } = dialect.readRequest(structuredClone(samples[format]));
    const conversation = system === undefined ? { messages } : { system, messages };
    const text = dialect.serializeConversation(conversation, {});
    const value = JSON.parse(text) as Record<string, unknown>;
    const raw = value[dialect.conversationField] as unknown[];
    const systemField = {
      anthropic: 'system',
      openai: 'system',
      responses: 'instructions',
      gemini: 'systemInstruction',
    }[format];
    const parsed = dialect.readConversation({
      messages: raw,
      system: value[systemField],
      layout: 'object',
      messagePath: (index) => `${dialect.conversationField}[${index}]`,
      source: undefined,
    });
    expect(parsed.format).toBe(format);
    expect(dialect.serializeConversation(parsed.conversation, {})).toBe(text);
    expect(dialect.fileProblems(parsed)).toEqual([]);
  });

  it("normalises each answer's usage to the one shape", () => {
    expect(
      dialects.anthropic.usageOf({
        usage: { input_tokens: 10, cache_read_input_tokens: 90, output_tokens: 5 },
      }),
    ).toEqual({
      input_tokens: 10,
      cache_read_input_tokens: 90,
      output_tokens: 5,
    });
    expect(dialects.openai.usageOf({ usage: { prompt_tokens: 100, completion_tokens: 5 } })).toEqual({
      prompt_tokens: 100,
      completion_tokens: 5,
    });
    // A Responses answer's input_tokens is the whole prompt.
    expect(dialects.responses.usageOf({ usage: { input_tokens: 100, output_tokens: 5 } })).toEqual({
      prompt_tokens: 100,
      completion_tokens: 5,
    });
    expect(
      dialects.gemini.usageOf({
        usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 4, thoughtsTokenCount: 1 },
      }),
    ).toEqual({ prompt_tokens: 100, completion_tokens: 5 });
    for (const format of WIRE_FORMATS) expect(dialects[format].usageOf({})).toBeUndefined();
  });

  it("adds up a streamed answer's usage event by event", () => {
    const read = (format: WireFormat, events: Record<string, unknown>[]) =>
      events.reduce<ProviderUsage | undefined>(
        (sofar, event) => dialects[format].eventUsage(event, sofar),
        undefined,
      );
    // Anthropic: the prompt in `message_start.message.usage`, the output in `message_delta.usage`.
    expect(
      read('anthropic', [
        {
          type: 'message_start',
          message: { usage: { input_tokens: 10, cache_read_input_tokens: 90, output_tokens: 1 } },
        },
        { type: 'content_block_delta', delta: { text: 'x' } },
        { type: 'message_delta', usage: { output_tokens: 7 } },
      ]),
    ).toEqual({ input_tokens: 10, cache_read_input_tokens: 90, output_tokens: 7 });
    expect(
      read('openai', [{ choices: [] }, { usage: { prompt_tokens: 100, completion_tokens: 5 } }]),
    ).toEqual({
      prompt_tokens: 100,
      completion_tokens: 5,
    });
    expect(
      read('responses', [
        { type: 'response.completed', response: { usage: { input_tokens: 100, output_tokens: 5 } } },
      ]),
    ).toEqual({ prompt_tokens: 100, completion_tokens: 5 });
    // Gemini: every chunk repeats the usage so far; the last one's is the answer's.
    expect(
      read('gemini', [
        { usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 2 } },
        { candidates: [] },
        { usageMetadata: { promptTokenCount: 100 } },
      ]),
    ).toEqual({ prompt_tokens: 100 });
    for (const format of WIRE_FORMATS) expect(read(format, [{}, { type: 'ping' }]), format).toBeUndefined();
  });

  it("writes errors in each provider's shape", () => {
    expect(dialects.anthropic.errorAnswer(400, 'bad')).toEqual({
      body: { type: 'error', error: { type: 'invalid_request_error', message: 'bad' } },
      headers: { 'x-should-retry': 'true' },
    });
    // The proxy's own refusals and timeouts carry the type the SDKs map the status to.
    expect(dialects.anthropic.errorAnswer(403, 'no').body).toMatchObject({
      error: { type: 'permission_error' },
    });
    expect(dialects.anthropic.errorAnswer(504, 'slow').body).toMatchObject({
      error: { type: 'timeout_error' },
    });
    expect(dialects.anthropic.errorAnswer(502, 'down').body).toMatchObject({ error: { type: 'api_error' } });
    expect(dialects.responses.errorAnswer(502, 'down').body).toEqual({
      error: { message: 'down', type: 'server_error', param: null, code: null },
    });
    expect(dialects.gemini.errorAnswer(502, 'down')).toEqual({
      body: { error: { code: 502, message: 'down', status: 'UNAVAILABLE' } },
      headers: {},
    });
    // A body over the size cap will not fit next time: no retry.
    expect(dialects.anthropic.errorAnswer(413, 'too big')).toEqual({
      body: { type: 'error', error: { type: 'request_too_large', message: 'too big' } },
      headers: { 'x-should-retry': 'false' },
    });
  });

  it('builds the summary call from the request it borrows, and reads the answer text', () => {
    const request = {
      messages: [{ role: 'user' as const, content: 'Summarize.' }],
      system: 'Be brief.',
      maxOutputTokens: 500,
    };
    const url = new URL('http://upstream/v1beta/models/g:streamGenerateContent?alt=sse&key=k');
    const bodies = {
      anthropic: { model: 'm', stream: true, thinking: { type: 'enabled' }, messages: [] },
      openai: { model: 'm', stream: true, stream_options: {}, max_completion_tokens: 9, messages: [] },
      responses: { model: 'm', stream: true, input: [] },
      gemini: { contents: [], generationConfig: { responseMimeType: 'application/json', temperature: 0 } },
    };
    const calls = Object.fromEntries(
      WIRE_FORMATS.map((format) => [format, dialects[format].summaryCall(url, bodies[format], request)]),
    );
    for (const format of WIRE_FORMATS) {
      expect(calls[format]!.body.stream, format).toBeUndefined();
      expect(calls[format]!.body[dialects[format].conversationField], format).not.toEqual([]);
    }
    expect(calls.anthropic!.body).toMatchObject({ model: 'm', system: 'Be brief.', max_tokens: 500 });
    expect(calls.anthropic!.body.thinking).toBeUndefined();
    expect(calls.openai!.body).toMatchObject({ max_completion_tokens: 500 });
    expect(calls.openai!.body.stream_options).toBeUndefined();
    expect(calls.responses!.body).toMatchObject({ max_output_tokens: 500 });
    expect(String(calls.gemini!.url)).toBe('http://upstream/v1beta/models/g:generateContent?key=k');
    expect(calls.gemini!.body.generationConfig).toEqual({ temperature: 0, maxOutputTokens: 500 });
    const answers = {
      anthropic: {
        content: [
          { type: 'thinking', thinking: 'x' },
          { type: 'text', text: 'S' },
        ],
      },
      openai: { choices: [{ message: { content: 'S' } }] },
      responses: { output: [{ type: 'message', content: [{ type: 'output_text', text: 'S' }] }] },
      gemini: { candidates: [{ content: { parts: [{ text: 'x', thought: true }, { text: 'S' }] } }] },
    };
    for (const format of WIRE_FORMATS) expect(dialects[format].answerText(answers[format]), format).toBe('S');
  });
});

describe('the core outside core/wire', () => {
  it('switches on no format name (it looks the dialect up)', () => {
    const core = resolve(import.meta.dirname, '..');
    const files = (directory: string): string[] =>
      readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
        const path = join(directory, entry.name);
        if (entry.isDirectory()) return entry.name === 'wire' && directory === core ? [] : files(path);
        return /\.ts$/.test(entry.name) && !/\.test(-utils)?\.ts$/.test(entry.name) ? [path] : [];
      });
    const caseOnFormat = new RegExp(`case '(${WIRE_FORMATS.join('|')})':`);
    const found = files(core).filter((path) => caseOnFormat.test(readFileSync(path, 'utf8')));
    expect(found.map((path) => relative(core, path))).toEqual([]);
    expect(files(core).length).toBeGreaterThan(30);
  });
});
