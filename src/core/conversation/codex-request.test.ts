import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { type ScriptedModelServer, startScriptedModelServer } from '../../testing/scripted-model-server.js';
import { createCompactor } from '../compactor.js';
import { fromResponsesInput, toResponsesInput } from '../wire/responses/responses-format.js';
import { parseConversation } from './parse-conversation.js';
import type { ResponsesInputItem } from './responses-types.js';
import { validateMessages } from './validate.js';

/**
 * A request Codex CLI 0.169 sent (`codex exec`, `wire_api = "responses"`) to the scripted server
 * after four `exec_command` calls: developer messages with ids, encrypted reasoning (`content: null`),
 * `store: false`, `include`, `prompt_cache_key`, `client_metadata`. Long prompt texts and tool
 * descriptions are cut; the machine's installation id is zeroed. See __fixtures__/README.md.
 */
const codexRequest = JSON.parse(
  readFileSync(join(import.meta.dirname, '__fixtures__/codex-responses-request.json'), 'utf8'),
) as { input: ResponsesInputItem[] } & Record<string, unknown>;

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('a request recorded from Codex CLI', () => {
  it('is valid Responses input, detected as such, and converts back byte for byte', () => {
    expect(validateMessages(codexRequest.input, { format: 'responses' })).toEqual([]);
    expect(parseConversation(JSON.stringify(codexRequest)).format).toBe('responses');
    const { messages, system } = fromResponsesInput(codexRequest.input);
    expect(JSON.stringify(toResponsesInput(messages, system))).toBe(JSON.stringify(codexRequest.input));
  });

  it.each(['mid', 'hard'] as const)(
    'compacted (%s), the server accepts it and the kept reasoning is as recorded',
    async (force) => {
      const { messages, system } = fromResponsesInput(codexRequest.input);
      const compactor = createCompactor({
        thresholds: { mid: 1500, hard: force === 'mid' ? 100_000 : 3000 },
        mid: { keepToolResults: 2 },
      });
      const result = await compactor.maybeCompact(messages, { system, force });
      expect(result.layer).toBe(force);
      expect(result.tokensAfter).toBeLessThan(result.tokensBefore);
      const input = toResponsesInput(result.messages, system);
      const recordedReasoning = codexRequest.input.filter((item) => item.type === 'reasoning');
      for (const item of input.filter((candidate) => candidate.type === 'reasoning')) {
        expect(recordedReasoning).toContainEqual(item);
      }
      server = await startScriptedModelServer({ script: ['Four files of 400 lines each.'] });
      const client = new OpenAI({ apiKey: 'test-key', baseURL: server.openaiBaseURL, maxRetries: 0 });
      const response = await client.responses.create({
        ...(codexRequest as unknown as OpenAI.Responses.ResponseCreateParamsNonStreaming),
        input: input as OpenAI.Responses.ResponseInputItem[],
        stream: false,
      });
      expect(response.output_text).toBe('Four files of 400 lines each.');
    },
  );
});
