import { afterEach, describe, expect, it } from 'vitest';
import { createCompactor } from '../core/compactor.js';
import { claudeCodeSession } from '../core/ledger/__fixtures__/claude-code-session.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../testing/scripted-model-server.js';
import { createAnthropicSummaryModel } from './index.js';

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const modelSummary =
  '## Key findings and decisions\n- `parseHeader()` in src/parser.ts skipped the first byte (off-by-one).';

describe('the model summarizer through the official SDK and the scripted server', () => {
  it('receives the section guidance and the ledger as ground truth; its summary goes out with the ledger', async () => {
    server = await startScriptedModelServer({ script: [modelSummary] });
    const summarizer = createAnthropicSummaryModel({
      model: 'claude-test',
      apiKey: 'test-key',
      baseURL: server.anthropicBaseURL,
    });
    const result = await createCompactor({ summarizer }).maybeCompact(claudeCodeSession(), { force: 'hard' });

    expect(server.requests).toHaveLength(1);
    const sent = JSON.stringify(server.requests[0]!.body.messages);
    for (const asked of [
      "the user's intent",
      'signatures the work depends on',
      'how it was fixed',
      'exactly what was being worked on',
      'in line with the latest request (quote it)',
      'ground truth',
    ])
      expect(sent).toContain(asked);
    // The ledger's facts are in the instructions the model read.
    expect(sent).toContain('npm test -- parser');
    expect(sent).toContain('[in_progress] Run the whole suite');

    expect(result.layer).toBe('hard');
    const head = JSON.stringify(result.messages[0]);
    expect(head).toContain('`parseHeader()` in src/parser.ts skipped the first byte');
    expect(head).toContain('<session_ledger>');
    expect(head).toContain('npm test -- parser');
  });
});
