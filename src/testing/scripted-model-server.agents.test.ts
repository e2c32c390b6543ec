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
  headers: Record<string, string>;
  body: Record<string, unknown> & { messages: Record<string, unknown>[] };
}

function capture(name: string): Capture {
  return JSON.parse(readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8')) as Capture;
}

async function post(url: string, { headers, body }: Pick<Capture, 'headers' | 'body'>) {
  const response = await fetch(`${url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'k', ...headers },
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
