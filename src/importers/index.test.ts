import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateMessages } from '../core/conversation/validate.js';
import { useTempDirs } from '../temp-dirs.test-utils.js';
import { detectTranscriptFormat, importTranscript, importTranscriptFile } from './index.js';

const tempDir = useTempDirs();

const fixtures = join(import.meta.dirname, '__fixtures__');
const shared = join(import.meta.dirname, '../../../shared/data/trajectories');

function transcriptFiles(directory: string): string[] {
  const files: string[] = [];
  const pending = [directory];
  while (pending.length > 0) {
    const current = pending.pop()!;
    for (const name of readdirSync(current)) {
      const path = join(current, name);
      if (statSync(path).isDirectory()) pending.push(path);
      else if (name.endsWith('.traj') || name.endsWith('.traj.json')) files.push(path);
    }
  }
  return files.sort();
}

const miniRun = JSON.stringify({
  trajectory_format: 'mini-swe-agent-1',
  messages: [{ role: 'user', content: 'x' }],
});

describe('detectTranscriptFormat', () => {
  it.each([
    [
      'a Claude Code session',
      readFileSync(join(fixtures, 'claude-code-session.jsonl'), 'utf8'),
      'claude-code',
    ],
    ['a mini-swe-agent run', miniRun, 'mini-swe-agent'],
    ['a SWE-agent run', '{"history":[],"trajectory":[]}', 'swe-agent'],
    ['a plain conversation', '{"messages":[{"role":"user","content":"x"}]}', 'anthropic'],
    ['plain JSONL', '{"role":"user","content":"x"}\n{"role":"assistant","content":"y"}\n', 'anthropic'],
  ])('recognises %s', (_name, text, expected) => {
    expect(detectTranscriptFormat(text)).toBe(expected);
  });
});

describe('importTranscript', () => {
  it('detects plain OpenAI conversations', () => {
    const text = JSON.stringify([
      { role: 'system', content: 'S' },
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello' },
    ]);
    const transcript = importTranscript(text, { source: 'chat.json' });
    expect(transcript.meta).toEqual({ format: 'openai', source: 'chat.json' });
    expect(transcript.usage).toEqual([undefined]);
    expect(transcript.conversation.system).toBe('S');
  });

  it('forces a format', () => {
    expect(importTranscript(miniRun, { format: 'mini-swe-agent' }).meta.format).toBe('mini-swe-agent');
    expect(() => importTranscript(miniRun, { format: 'swe-agent' })).toThrow(
      /expected a SWE-agent trajectory/,
    );
  });

  it('reads JSONL files line by line: Claude Code sessions and plain message lines', async () => {
    const session = await importTranscriptFile(join(fixtures, 'claude-code-session.jsonl'));
    expect(session.meta.format).toBe('claude-code');
    expect(session.conversation.messages).toEqual(
      importTranscript(readFileSync(join(fixtures, 'claude-code-session.jsonl'), 'utf8')).conversation
        .messages,
    );
    const directory = tempDir('agent-compact-import-');
    const plain = join(directory, 'chat.jsonl');
    writeFileSync(plain, '{"role":"user","content":"Hi"}\n\n{"role":"assistant","content":7}\n');
    await expect(importTranscriptFile(plain)).rejects.toThrow(
      `${plain}:3: messages[1].content: expected string or array, got number`,
    );
    writeFileSync(plain, '{"role":"user","content":"Hi"}\n{"role":"assistant","content":"Hello"}\n');
    const transcript = await importTranscriptFile(plain);
    expect(transcript.meta).toEqual({ format: 'anthropic', source: plain });
    expect(transcript.usage).toEqual([undefined]);
    await expect(importTranscriptFile(directory)).rejects.toMatchObject({ code: 'UNREADABLE_INPUT' });
  });

  it('reports a missing file as UNREADABLE_INPUT naming it', async () => {
    await expect(importTranscriptFile('/nonexistent/run.traj')).rejects.toMatchObject({
      code: 'UNREADABLE_INPUT',
      message: '/nonexistent/run.traj: no such file',
    });
  });
});

describe('the shared trajectories', () => {
  if (!existsSync(shared)) {
    it.skip(`all import to valid conversations (skipped: ${shared} is absent)`, () => {});
    return;
  }
  const files = transcriptFiles(shared);

  it('are all there', () => {
    expect(files).toHaveLength(202);
  });

  it('all import to conversations validateMessages accepts, with one usage entry per assistant turn', async () => {
    const repaired: string[] = [];
    for (const file of files) {
      const { conversation, usage, meta } = await importTranscriptFile(file);
      const problems = validateMessages(conversation.messages, { system: conversation.system });
      expect(problems, relative(shared, file)).toEqual([]);
      const assistantTurns = conversation.messages.filter((message) => message.role === 'assistant').length;
      expect(usage, relative(shared, file)).toHaveLength(assistantTurns);
      expect(
        conversation.messages.some((message) => JSON.stringify(message.content).includes('"tool_use"')),
      ).toBe(true);
      if (file.endsWith('.traj.json')) {
        expect(meta.format).toBe('mini-swe-agent');
        expect(usage.every((turn) => typeof turn?.prompt_tokens === 'number')).toBe(true);
      } else {
        expect(meta.format).toBe('swe-agent');
      }
      if (meta.repairs) repaired.push(relative(shared, file));
    }
    // Only the replayed function-calling demonstrations are broken at the source: they reuse tool
    // call ids across turns, which the Anthropic API refuses; repair renames the later ones.
    expect(repaired).toEqual(
      files
        .filter((file) => file.includes('replay__marshmallow-code__marshmallow-1867__function_calling'))
        .map((file) => relative(shared, file)),
    );
  });

  it('keep per-turn usage aligned: the first request is the smallest of its run', async () => {
    const file = files.find((name) => name.endsWith('.traj.json'))!;
    const { usage } = await importTranscriptFile(file);
    const prompts = usage.map((turn) => turn?.prompt_tokens ?? 0);
    expect(Math.min(...prompts)).toBe(prompts[0]);
  });
});
