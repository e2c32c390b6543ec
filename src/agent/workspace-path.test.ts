import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveWorkspacePath } from './workspace-path.js';

let root: string;
let workspace: string;
let outside: string;

beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'agent-path-')));
  workspace = path.join(root, 'workspace');
  outside = path.join(root, 'outside');
  await mkdir(path.join(workspace, 'src'), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(workspace, 'src', 'app.ts'), 'app');
  await writeFile(path.join(outside, 'secret.txt'), 'secret');
  await symlink(outside, path.join(workspace, 'link-out'));
  await symlink(path.join(outside, 'secret.txt'), path.join(workspace, 'file-link-out'));
  await symlink(path.join(workspace, 'src'), path.join(workspace, 'link-in'));
  await symlink(path.join(outside, 'missing.txt'), path.join(workspace, 'dangling'));
  await symlink('../outside', path.join(workspace, 'relative-link-out'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('resolveWorkspacePath', () => {
  it.each([
    ['a plain relative file', 'src/app.ts', 'src/app.ts'],
    ['a file yet to be created', 'src/new/deep/file.ts', 'src/new/deep/file.ts'],
    ['.. that stays inside', 'src/../src/app.ts', 'src/app.ts'],
    ['the workspace itself', '.', '.'],
    ['a symlink pointing inside', 'link-in/app.ts', 'src/app.ts'],
  ])('accepts %s', async (_name, requestedPath, relativePath) => {
    const result = await resolveWorkspacePath({ workspace, requestedPath });
    expect(result).toMatchObject({ ok: true, relativePath });
  });

  it('accepts an absolute path inside the workspace', async () => {
    const result = await resolveWorkspacePath({
      workspace,
      requestedPath: path.join(workspace, 'src/app.ts'),
    });
    expect(result).toMatchObject({ ok: true, relativePath: 'src/app.ts' });
  });

  it.each([
    ['.. out of the workspace', '../outside/secret.txt', /outside the workspace/],
    ['a deep .. out', 'src/../../outside/secret.txt', /outside the workspace/],
    ['an absolute path elsewhere', '/etc/passwd', /outside the workspace/],
    ['a symlinked directory leading out', 'link-out/secret.txt', /through a symlink/],
    ['a new file under a symlink leading out', 'link-out/new.txt', /through a symlink/],
    ['a symlinked file leading out', 'file-link-out', /through a symlink/],
    ['a relative symlink leading out', 'relative-link-out/secret.txt', /through a symlink/],
    ['a dangling symlink', 'dangling', /symlink whose target is missing/],
    ["the agent's own session store", '.agent-compact/sessions/x/transcript.jsonl', /keeps for itself/],
    ['an empty path', '', /empty/],
  ])('refuses %s', async (_name, requestedPath, reason) => {
    const result = await resolveWorkspacePath({ workspace, requestedPath });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(reason);
  });

  it('refuses an absolute path to the outside directory by name', async () => {
    const result = await resolveWorkspacePath({ workspace, requestedPath: path.join(outside, 'secret.txt') });
    expect(result.ok).toBe(false);
  });
});
