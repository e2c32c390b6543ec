import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { editFileTool, readFileTool, writeFileTool } from './file-tools.js';

let workspace: string;

beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'agent-files-'));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

describe('read_file', () => {
  it('returns the text byte for byte', async () => {
    const text = 'line 1\nline 2\n\ttabbed ünïcode\n';
    await writeFile(path.join(workspace, 'a.txt'), text);
    expect(await readFileTool({ path: 'a.txt' }, { workspace })).toEqual({ content: text, isError: false });
  });

  it('honours limit and says how many lines were left', async () => {
    await writeFile(path.join(workspace, 'a.txt'), 'one\ntwo\nthree\nfour');
    const outcome = await readFileTool({ path: 'a.txt', limit: 2 }, { workspace });
    expect(outcome.content).toBe('one\ntwo\n... (2 more lines)');
  });

  it.each([
    [{ path: 'missing.txt' }, /no such file/],
    [{ path: '../x' }, /outside the workspace/],
    [{ path: 42 }, /"path" must be a string/],
    [{ path: 'a.txt', limit: -1 }, /positive integer/],
    ['not an object', /input must be an object/],
  ])('fails with a readable error for %j', async (input, message) => {
    const outcome = await readFileTool(input, { workspace });
    expect(outcome.isError).toBe(true);
    expect(outcome.content).toMatch(message);
  });

  it('cuts very large files and says so', async () => {
    await writeFile(path.join(workspace, 'big.txt'), 'x'.repeat(5000));
    const outcome = await readFileTool({ path: 'big.txt' }, { workspace, maxBytes: 1000 });
    expect(outcome.content).toMatch(/file cut at 1000 of 5000 bytes/);
  });
});

describe('write_file', () => {
  it('creates parent directories', async () => {
    const outcome = await writeFileTool({ path: 'deep/er/file.txt', content: 'hello' }, { workspace });
    expect(outcome).toEqual({ content: 'wrote 5 bytes to deep/er/file.txt', isError: false });
    expect(await readFile(path.join(workspace, 'deep/er/file.txt'), 'utf8')).toBe('hello');
  });

  it('refuses to write through a symlink leading out', async () => {
    const outside = await mkdtemp(path.join(tmpdir(), 'agent-outside-'));
    try {
      await symlink(outside, path.join(workspace, 'out'));
      const outcome = await writeFileTool({ path: 'out/evil.txt', content: 'x' }, { workspace });
      expect(outcome.isError).toBe(true);
      await expect(readFile(path.join(outside, 'evil.txt'))).rejects.toThrow();
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});

describe('edit_file', () => {
  beforeEach(async () => {
    await writeFile(path.join(workspace, 'code.ts'), 'const a = 1;\nconst b = 2;\nconst b2 = 2;\n');
  });

  it('replaces one exact occurrence', async () => {
    const outcome = await editFileTool(
      { path: 'code.ts', old_text: 'const a = 1;', new_text: 'const a = $&;' },
      { workspace },
    );
    expect(outcome).toEqual({ content: 'edited code.ts at line 1', isError: false });
    expect(await readFile(path.join(workspace, 'code.ts'), 'utf8')).toBe(
      'const a = $&;\nconst b = 2;\nconst b2 = 2;\n',
    );
  });

  it.each([
    [{ path: 'code.ts', old_text: 'const c', new_text: 'x' }, /old_text not found in code.ts/],
    [{ path: 'code.ts', old_text: ' = 2;', new_text: 'x' }, /old_text occurs 2 times in code.ts/],
    [{ path: 'code.ts', old_text: '', new_text: 'x' }, /old_text is empty/],
    [{ path: 'missing.ts', old_text: 'a', new_text: 'b' }, /no such file/],
    [{ path: '/etc/hosts', old_text: 'a', new_text: 'b' }, /outside the workspace/],
    [{ path: 'code.ts', old_text: 'a' }, /"new_text" must be a string/],
  ])('refuses %j with a readable error and leaves the file alone', async (input, message) => {
    const outcome = await editFileTool(input, { workspace });
    expect(outcome.isError).toBe(true);
    expect(outcome.content).toMatch(message);
    expect(await readFile(path.join(workspace, 'code.ts'), 'utf8')).toBe(
      'const a = 1;\nconst b = 2;\nconst b2 = 2;\n',
    );
  });
});
