import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryArchiveStore } from '../core/archive/memory-archive-store.js';
import type { ToolUseBlock } from '../core/model/messages.js';
import { createToolRunner } from './tool-runner.js';

let workspace: string;
beforeAll(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'agent-runner-'));
});
afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

const call = (name: string, input: unknown, id = 'toolu_1'): ToolUseBlock => ({
  type: 'tool_use',
  id,
  name,
  input,
});

describe('createToolRunner', () => {
  it('recalls an archived tool result byte for byte', async () => {
    const archive = createMemoryArchiveStore();
    const original = 'line one\n  indented\t tab\n{"json": true}\n';
    await archive.put([
      {
        id: 'r1',
        sessionId: 's',
        kind: 'tool-result',
        createdAt: 0,
        toolUseId: 'toolu_0',
        toolName: 'read_file',
        block: { type: 'tool_result', tool_use_id: 'toolu_0', content: original },
      },
    ]);
    const runner = createToolRunner({ workspace, archive, sessionId: 's' });
    const { result } = await runner.run(call('recall', { id: 'r1' }));
    expect(result).toEqual({ type: 'tool_result', tool_use_id: 'toolu_1', content: original });
    const missing = await runner.run(call('recall', { id: 'r404' }));
    expect(missing.result).toMatchObject({
      is_error: true,
      content: expect.stringMatching(/^recall: no archived item "r404"/),
    });
  });

  it('turns a compact call into a compaction request with its focus', async () => {
    const runner = createToolRunner({ workspace, archive: createMemoryArchiveStore(), sessionId: 's' });
    const run = await runner.run(call('compact', { focus: 'the parser bug' }));
    expect(run.compactRequest).toEqual({ focus: 'the parser bug' });
    expect(run.result.is_error).toBeUndefined();
  });

  it('answers an unknown tool with an error the model can read', async () => {
    const runner = createToolRunner({ workspace, archive: createMemoryArchiveStore(), sessionId: 's' });
    const { result } = await runner.run(call('delete_everything', {}));
    expect(result).toMatchObject({ is_error: true });
    expect(result.content).toMatch(/unknown tool "delete_everything"/);
  });

  it.each([
    [
      { mode: 'refuse' as const, reason: 'no terminal; rerun with --yes' },
      /bash: no terminal; rerun with --yes/,
    ],
    [{ mode: 'ask' as const, ask: async () => false }, /the user declined/],
  ])('does not run bash when approval is %j', async (bashApproval, message) => {
    const runner = createToolRunner({
      workspace,
      archive: createMemoryArchiveStore(),
      sessionId: 's',
      bashApproval,
    });
    const { result } = await runner.run(call('bash', { command: 'touch ran.txt' }));
    expect(result.is_error).toBe(true);
    expect(result.content).toMatch(message);
    const check = await createToolRunner({
      workspace,
      archive: createMemoryArchiveStore(),
      sessionId: 's',
    }).run(call('bash', { command: 'test -e ran.txt' }));
    expect(check.result.content).toMatch(/exit code 1/);
  });

  it('runs bash after the user approves, and asks with the command', async () => {
    const asked: string[] = [];
    const runner = createToolRunner({
      workspace,
      archive: createMemoryArchiveStore(),
      sessionId: 's',
      bashApproval: {
        mode: 'ask',
        ask: async (command) => {
          asked.push(command);
          return true;
        },
      },
    });
    const { result } = await runner.run(call('bash', { command: 'echo approved' }));
    expect(asked).toEqual(['echo approved']);
    expect(result.content).toBe('approved\n\n[exit code 0]');
  });

  it('redacts secrets from tool results', async () => {
    const secret = 'sk-test-0123456789abcdef';
    const runner = createToolRunner({
      workspace,
      archive: createMemoryArchiveStore(),
      sessionId: 's',
      secrets: [secret],
    });
    const { result } = await runner.run(call('bash', { command: `echo key=${secret}` }));
    expect(result.content).toBe('key=[redacted]\n\n[exit code 0]');
  });
});
