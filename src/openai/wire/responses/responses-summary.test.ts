import { afterEach, describe, expect, it } from 'vitest';
import { createCompactor } from '../../../core/compactor.js';
import { codexSession } from '../../../core/conversation/responses-input.test-utils.js';
import type { ResponsesInputItem } from '../../../core/conversation/responses-types.js';
import { validateMessages } from '../../../core/conversation/validate.js';
import { CompactError } from '../../../core/model/errors.js';
import { fromResponsesInput, toResponsesInput } from '../../../core/wire/responses/responses-format.js';
import type { ScriptStep } from '../../../testing/script.js';
import {
  type ScriptedModelServer,
  startScriptedModelServer,
} from '../../../testing/scripted-model-server.js';
import { createOpenAISummaryModel } from '../../index.js';

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(script: ScriptStep[]) {
  server = await startScriptedModelServer({ script });
  const summarizer = createOpenAISummaryModel({
    api: 'responses',
    model: 'gpt-5-mini',
    apiKey: 'test-key',
    baseURL: server.openaiBaseURL,
    retryDelayMs: 10,
  });
  return { server, summarizer };
}

const summary = '## Task\nMake the tests pass.\n## Progress\nModules read, two patched.';

describe("createOpenAISummaryModel({ api: 'responses' })", () => {
  it('asks over POST /v1/responses with instructions, store: false and a bounded output', async () => {
    const { server, summarizer } = await setup([summary]);
    const { messages } = fromResponsesInput(codexSession(2) as ResponsesInputItem[]);
    const result = await summarizer.summarize({ system: 'You are Codex.', messages, maxOutputTokens: 400 });
    expect(result.text).toBe(summary);
    expect(result.usage?.inputTokens).toBeGreaterThan(0);
    expect(summarizer.provider).toBe('openai-responses');
    const [sent] = server.requests;
    expect(sent).toMatchObject({ api: 'responses', path: '/v1/responses', outcome: 'text' });
    expect(sent?.body).toMatchObject({
      model: 'gpt-5-mini',
      instructions: 'You are Codex.',
      store: false,
      max_output_tokens: 400,
    });
    // Opaque items never leave for the summarizer.
    const types = ((sent?.body.input ?? []) as Array<{ type?: string }>).map((item) => item.type);
    expect(types).not.toContain('reasoning');
  });

  it('fails with SUMMARY_FAILED on an empty answer, after retrying a rate limit', async () => {
    const { server, summarizer } = await setup([
      { type: 'rate-limit', retryAfterSeconds: 0 },
      { type: 'empty' },
    ]);
    const error = await summarizer
      .summarize({ messages: [{ role: 'user', content: 'Summarize.' }], maxOutputTokens: 100 })
      .catch((caught: unknown) => caught);
    expect(CompactError.isInstance(error) && error.code).toBe('SUMMARY_FAILED');
    expect(server.requests.map((request) => request.outcome)).toEqual(['rate-limit', 'empty']);
  });

  it('writes the hard summary of a Responses session; the server accepts what it is sent', async () => {
    const { server, summarizer } = await setup([summary]);
    const session = codexSession(8);
    const { messages, system } = fromResponsesInput(session as ResponsesInputItem[], {
      instructions: 'You are Codex.',
    });
    const compactor = createCompactor({ summarizer });
    const result = await compactor.maybeCompact(messages, { system, force: 'hard' });
    expect(result.layer).toBe('hard');
    expect(server.requests.map((request) => request.outcome)).toEqual(['text']);
    expect(JSON.stringify(server.requests[0]?.body)).not.toContain('ENCRYPTED');
    const output = toResponsesInput(result.messages, system);
    expect(validateMessages(output, { format: 'responses' })).toEqual([]);
    expect(JSON.stringify(output)).toContain(summary.split('\n')[1]);
  });
});
