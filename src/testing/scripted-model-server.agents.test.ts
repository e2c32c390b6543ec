/**
 * The scripted server takes every request today's agents send on their defaults (trimmed captures
 * in `__fixtures__/`), and still refuses what their APIs refuse: the same request with a rule
 * broken gets the provider's 400.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { closeStarted, start } from './scripted-model-server.test-utils.js';

afterEach(closeStarted);

interface Capture {
  agent: string;
  /** The request's path (Claude Code's is `/v1/messages`). */
  path?: string;
  headers: Record<string, string>;
  body: Record<string, unknown> & { messages: Record<string, unknown>[] };
}

type Item = Record<string, unknown>;

function capture(name: string): Capture {
  return JSON.parse(readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8')) as Capture;
}

async function post(
  url: string,
  { path = '/v1/messages', headers, body }: Pick<Capture, 'path' | 'headers' | 'body'>,
) {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-api-key': 'k',
      authorization: 'Bearer k',
      'x-goog-api-key': 'k',
      ...headers,
    },
    body: JSON.stringify(body),
  });
  // A 200 is the stream the request asked for; an error is the provider's JSON.
  const text = await response.text();
  if (response.status === 200) return { status: 200, text };
  return {
    status: response.status,
    text: String((JSON.parse(text) as { error: { message: unknown } }).error.message),
  };
}

describe('Claude Code 2.1.328 on its default model', () => {
  const claude = capture('claude-code-2.1.328-request.json');

  it('is accepted: system messages at messages[1] and later under per-turn-control, its betas and fields', async () => {
    expect(claude.headers['anthropic-beta']).toContain('per-turn-control-2026-07-01');
    expect(claude.body.messages[1]?.role).toBe('system');
    const { url, requests } = await start(['Done.']);
    const { status } = await post(url, claude);
    expect(status).toBe(200);
    expect(requests.map((request) => request.outcome)).toEqual(['text']);
  });

  it.each([
    [
      'without a beta that allows system messages',
      {
        ...claude,
        headers: { ...claude.headers, 'anthropic-beta': 'claude-code-20250219,effort-2025-11-24' },
      },
      'messages[1].role: role must be "user" or "assistant", got "system"',
    ],
    [
      'with a system message opening the conversation',
      { ...claude, body: { ...claude.body, messages: [claude.body.messages[1]!, ...claude.body.messages] } },
      'messages[0]: a system message cannot open the conversation',
    ],
    [
      'with a tool result dropped',
      {
        ...claude,
        body: { ...claude.body, messages: claude.body.messages.filter((_m, index) => index !== 3) },
      },
      'has no tool_result',
    ],
  ])('is refused %s, as the API does', async (_case, request, error) => {
    const { url, requests } = await start(['never sent']);
    const { status, text } = await post(url, request);
    expect(status).toBe(400);
    expect(text).toContain(error);
    expect(requests.map((recorded) => recorded.outcome)).toEqual(['invalid-request']);
  });
});

describe('Codex 0.171.0 on its default model', () => {
  const codex = capture('codex-0.171.0-request.json');
  const input = codex.body.input as Item[];

  it('is accepted: its tools in an additional_tools item, exec custom tool calls and their outputs', async () => {
    expect(input[0]?.type).toBe('additional_tools');
    expect(input.filter((item) => item.type === 'custom_tool_call')).toHaveLength(2);
    const { url, requests } = await start(['Done.']);
    expect((await post(url, codex)).status).toBe(200);
    expect(requests.map((request) => request.outcome)).toEqual(['text']);
  });

  it('gets a custom_tool_call for a scripted call of its exec tool, plain and streamed', async () => {
    const call = { name: 'exec', input: { input: 'text(await tools.exec_command({ cmd: "ls" }));' } };
    const { url } = await start([
      { type: 'tool-calls', calls: [call] },
      { type: 'tool-calls', calls: [call] },
    ]);
    const plain = await post(url, { ...codex, body: { ...codex.body, stream: false } });
    const output = (JSON.parse(plain.text) as { output: Item[] }).output;
    expect(output.find((item) => item.type === 'custom_tool_call')).toMatchObject({
      name: 'exec',
      input: call.input.input,
    });
    const streamed = await post(url, codex);
    expect(streamed.text).toContain('"type":"response.custom_tool_call_input.done"');
  });

  it('is refused with a call output whose call was dropped, as the API does', async () => {
    // The call and the reasoning item before it dropped, its output kept.
    const dropped = new Set(['call_scripted_1_0', 'rs_scripted_1']);
    const orphan = input.filter(
      (item) => item.type === 'custom_tool_call_output' || !dropped.has(String(item.call_id ?? item.id)),
    );
    const { url } = await start(['never sent']);
    const { status, text } = await post(url, { ...codex, body: { ...codex.body, input: orphan } });
    expect(status).toBe(400);
    expect(text).toBe('No tool call found for function call output with call_id call_scripted_1_0.');
  });
});

describe('Gemini CLI 0.61.0 on its default model', () => {
  const gemini = capture('gemini-cli-0.61.0-request.json');
  const contents = gemini.body.contents as { role: string; parts: Item[] }[];

  it('is accepted: a shell call with its thought signature and its response', async () => {
    expect(gemini.path).toMatch(/^\/v1beta\/models\/[^:]+:streamGenerateContent$/);
    const { url, requests } = await start(['Done.']);
    expect((await post(url, gemini)).status).toBe(200);
    expect(requests.map((request) => request.outcome)).toEqual(['text']);
  });

  it('is refused with a function call answered by no response, as the API does', async () => {
    const unanswered = contents.filter(
      (content) => !content.parts.some((part) => 'functionResponse' in part),
    );
    const { url } = await start(['never sent']);
    const { status } = await post(url, { ...gemini, body: { ...gemini.body, contents: unanswered } });
    expect(status).toBe(400);
  });
});
