import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateMessages } from '../core/conversation/validate.js';
import { cc, claudeCodeJsonl, compactedClaudeCodeSession } from './agent-sessions.test-utils.js';
import { importClaudeCode } from './claude-code.js';
import { importTranscript, importTranscriptFile } from './index.js';

const shared = resolve(import.meta.dirname, '../../../shared/data/sessions/claude-code-entireio-cli');

describe("Claude Code's own compactions", () => {
  it('records the boundary, the summary and what was attached, and keeps the summary out of the messages', () => {
    const imported = importClaudeCode(compactedClaudeCodeSession(), { source: 's.jsonl' });
    expect(imported.meta.warnings).toBeUndefined();
    expect(validateMessages(imported.conversation.messages)).toEqual([]);
    expect(imported.compactions).toHaveLength(1);
    const [compaction] = imported.compactions!;
    expect(compaction).toMatchObject({ index: 9, lineNumber: 10, trigger: 'auto', preTokens: 155_000 });
    expect(compaction!.summary).toMatch(/^This session is being continued/);
    expect(compaction!.attached).toHaveLength(1);
    expect(JSON.stringify(compaction!.attached[0])).toContain('Called the Read tool');
    expect(JSON.stringify(imported.conversation.messages)).not.toContain('being continued');
    // The history before the boundary ends with the edit's result.
    expect(JSON.stringify(imported.conversation.messages[8])).toContain('has been updated');
  });

  it('warns about a boundary with no summary line and still records where it cut', () => {
    const imported = importClaudeCode(compactedClaudeCodeSession({ withSummary: false }), {
      source: 's.jsonl',
    });
    expect(imported.meta.warnings).toEqual([
      's.jsonl:10: compact_boundary has no isCompactSummary line after it',
    ]);
    expect(imported.compactions?.[0]?.summary).toBeUndefined();
  });

  it('warns once per unknown line type', () => {
    const text = claudeCodeJsonl([
      cc.user('hello'),
      { type: 'mystery-event', data: 1 },
      cc.assistant('m1', [{ type: 'text', text: 'hi' }]),
      { type: 'mystery-event', data: 2 },
    ]);
    expect(importClaudeCode(text, { source: 's.jsonl' }).meta.warnings).toEqual([
      's.jsonl:2: unknown line type "mystery-event" skipped (2 lines)',
    ]);
  });

  it('a truncated session (last line cut off) is a one-line error naming the file and line', () => {
    const text = compactedClaudeCodeSession().trimEnd();
    const cut = text.slice(0, text.length - 30);
    expect(() => importTranscript(cut, { source: 's.jsonl', format: 'claude-code' })).toThrow(
      /^s\.jsonl:15:\d+: broken JSON/,
    );
  });

  it.skipIf(!existsSync(shared))(
    'finds the 41 compactions of the 30 shared sessions (../shared present)',
    async () => {
      let compactions = 0;
      for (const file of readdirSync(shared).filter((name) => name.endsWith('.jsonl'))) {
        const imported = await importTranscriptFile(join(shared, file));
        for (const compaction of imported.compactions ?? []) {
          expect(compaction.summary, file).toBeTruthy();
          expect(compaction.index, file).toBeGreaterThan(0);
          expect(compaction.index, file).toBeLessThanOrEqual(imported.conversation.messages.length);
          compactions++;
        }
      }
      expect(compactions).toBe(41);
    },
  );
});
