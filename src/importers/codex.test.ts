import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateMessages } from '../core/conversation/validate.js';
import { codexRolloutLines } from './agent-sessions.test-utils.js';
import { detectTranscriptFormat, importTranscript, importTranscriptFile } from './index.js';

const shared = resolve(import.meta.dirname, '../../../shared/data/sessions/codex-entireio-git-sync');

let directory: string;
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'codex-import-'));
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe('Codex rollout importer', () => {
  it('reads items, usage per assistant turn and the compaction with its replacement history', () => {
    const text = `${codexRolloutLines().join('\n')}\n`;
    expect(detectTranscriptFormat(text)).toBe('codex');
    const imported = importTranscript(text, { source: 'rollout.jsonl' });
    expect(imported.meta.format).toBe('codex');
    expect(imported.meta.warnings).toBeUndefined();
    expect(validateMessages(imported.conversation.messages)).toEqual([]);
    expect(JSON.stringify(imported.conversation.system)).toContain('You are Codex.');
    const roles = imported.conversation.messages.map((message) => message.role);
    expect(roles).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
    expect(imported.usage.map((usage) => usage?.input_tokens)).toEqual([1200, 1500, 900]);
    expect(imported.compactions).toHaveLength(1);
    const [compaction] = imported.compactions!;
    // Compacted after the second assistant message: the next user message starts the new history.
    expect(compaction!.index).toBe(4);
    expect(compaction!.summary).toBeUndefined();
    expect(JSON.stringify(compaction!.replacementHistory)).toContain('Add a --dry-run flag');
  });

  it('reads a line holding two JSON objects as two, with a warning naming the line', async () => {
    const path = join(directory, 'joined.jsonl');
    await writeFile(path, `${codexRolloutLines({ joinLine: true }).join('\n')}\n`);
    const imported = await importTranscriptFile(path);
    expect(imported.meta.warnings).toEqual([`${path}:8: 2 JSON objects on one line, read as 2 lines`]);
    expect(imported.usage.map((usage) => usage?.input_tokens)).toEqual([1200, 1500, 900]);
  });

  it('fails on any other broken line with one line naming file and line', async () => {
    const path = join(directory, 'broken.jsonl');
    const lines = codexRolloutLines();
    lines[5] = lines[5]!.slice(0, 40);
    await writeFile(path, `${lines.join('\n')}\n`);
    const error = (await importTranscriptFile(path).then(
      () => undefined,
      (caught: unknown) => caught,
    )) as Error;
    expect(error).toBeInstanceOf(Error);
    expect(error.message.split('\n')).toHaveLength(1);
    expect(error.message).toContain(`${path}:6:`);
  });

  it('skips unknown line types with one warning per type', () => {
    const lines = codexRolloutLines();
    lines.splice(
      3,
      0,
      JSON.stringify({ type: 'telemetry', payload: {} }),
      JSON.stringify({ type: 'telemetry', payload: {} }),
    );
    const imported = importTranscript(lines.join('\n'), { source: 'r.jsonl' });
    expect(imported.meta.warnings).toEqual(['r.jsonl:4: unknown line type "telemetry" skipped (2 lines)']);
  });

  it('skips a response_item the API would refuse with a warning naming its line, and imports the rest', () => {
    const lines = codexRolloutLines();
    const clean = importTranscript(lines.join('\n'), { source: 'r.jsonl' });
    lines.splice(
      3,
      0,
      JSON.stringify({ type: 'response_item', payload: { type: 'message', role: 'user', content: [42] } }),
      JSON.stringify({ type: 'response_item', payload: null }),
    );
    const imported = importTranscript(lines.join('\n'), { source: 'r.jsonl' });
    expect(imported.meta.warnings).toEqual([
      'r.jsonl:4: payload.content[0]: part must be an object with a string type, got 42; item skipped',
      'r.jsonl:5: payload: item must be an object, got null; item skipped',
    ]);
    expect(imported.conversation).toEqual(clean.conversation);
    expect(imported.usage).toEqual(clean.usage);
  });

  it.skipIf(!existsSync(shared))(
    'reads the shared rollouts, warning about the two-object line (../shared present)',
    async () => {
      const imported = await importTranscriptFile(join(shared, '2d-cf2f1a3166-0.jsonl'));
      expect(imported.meta.format).toBe('codex');
      expect(imported.meta.warnings?.[0]).toMatch(/2d-cf2f1a3166-0\.jsonl:1837: 2 JSON objects on one line/);
      expect(imported.compactions).toHaveLength(2);
    },
  );
});
