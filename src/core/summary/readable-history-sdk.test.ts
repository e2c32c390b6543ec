import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { afterEach, describe, expect, it } from 'vitest';
import { createAnthropicSummaryModel } from '../../anthropic/index.js';
import { createOpenAISummaryModel } from '../../openai/index.js';
import { startScriptedModelServer } from '../../testing/index.js';
import type { ScriptedModelServer } from '../../testing/scripted-model-server.js';
import { createCompactor } from '../compactor.js';
import { codexSession } from '../conversation/responses-input.test-utils.js';
import type { ResponsesInputItem } from '../conversation/responses-types.js';
import { fromResponsesInput } from '../wire/responses/responses-format.js';
import type { SummaryModel } from './summary-model.js';

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const summaryText = '## Task\nRead the report and fix the tests.\n## Progress\nReport read; tests patched.';

/** A Codex session whose early turns carry files: a PDF by id, a log inline, an image by file id. */
function sessionWithFiles(): ResponseInputItem[] {
  const [developer, ...rest] = codexSession(6);
  return [
    developer!,
    {
      type: 'message',
      role: 'user',
      content: [
        { type: 'input_text', text: 'The failures are described in this report:' },
        { type: 'input_file', file_id: 'file-abc123', filename: 'report.pdf' },
        { type: 'input_image', detail: 'auto', file_id: 'file-img456' },
      ],
    },
    { type: 'function_call', call_id: 'call_log', name: 'fetch_log', arguments: '{"run":"42"}' },
    {
      type: 'function_call_output',
      call_id: 'call_log',
      output: [
        { type: 'input_text', text: 'The CI log of run 42:' },
        {
          type: 'input_file',
          filename: 'ci-42.log',
          file_data: 'data:text/plain;base64,RkFJTCBzcmMvbTEudHM=',
        },
      ],
    },
    ...rest,
  ];
}

const summarizers: Array<[string, (server: ScriptedModelServer) => SummaryModel]> = [
  [
    'Anthropic',
    (running) =>
      createAnthropicSummaryModel({
        model: 'claude-test',
        apiKey: 'test-key',
        baseURL: running.anthropicBaseURL,
      }),
  ],
  [
    'Chat Completions',
    (running) =>
      createOpenAISummaryModel({
        model: 'gpt-test',
        apiKey: 'test-key',
        baseURL: running.openaiBaseURL,
      }),
  ],
];

describe('files in a summarized history', () => {
  it.each(summarizers)('reach the %s summarizer as text stand-ins it accepts', async (_name, create) => {
    server = await startScriptedModelServer({ script: [summaryText] });
    const { messages, system } = fromResponsesInput(sessionWithFiles() as ResponsesInputItem[]);
    const errors: unknown[] = [];
    const compactor = createCompactor({
      summarizer: create(server),
      hard: { maxAttempts: 1 },
      onEvent: (event) => {
        if (event.type === 'summary-error') errors.push(event);
      },
    });

    const result = await compactor.maybeCompact(messages, { system, force: 'hard' });

    expect(result.layer).toBe('hard');
    expect(errors).toEqual([]);
    expect(server.requests.map((request) => request.outcome)).toEqual(['text']);
    const sent = JSON.stringify(server.requests[0]!.body);
    expect(sent).not.toContain('input_file');
    expect(sent).not.toContain('file-img456"');
    expect(sent).toContain('[file: report.pdf]');
    expect(sent).toContain('[file: ci-42.log]');
    expect(sent).toContain('[image: file-img456]');
    expect(JSON.stringify(result.messages[0])).toContain('Report read; tests patched.');
  });
});
