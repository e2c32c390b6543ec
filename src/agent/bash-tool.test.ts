import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bashTool, environmentWithoutSecrets } from './bash-tool.js';

let workspace: string;
beforeAll(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'agent-bash-'));
});
afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

describe('bash', () => {
  it('runs in the workspace and reports the exit code', async () => {
    const outcome = await bashTool({ command: 'pwd; echo oops >&2; exit 3' }, { workspace });
    expect(outcome.isError).toBe(true);
    expect(outcome.content).toContain(workspace.split(path.sep).at(-1));
    expect(outcome.content).toContain('oops');
    expect(outcome.content).toMatch(/\[exit code 3\]$/);
  });

  it('succeeds with exit code 0', async () => {
    expect(await bashTool({ command: 'echo hi' }, { workspace })).toEqual({
      content: 'hi\n\n[exit code 0]',
      isError: false,
    });
  });

  it('kills a command that runs past the timeout, children included', async () => {
    const started = Date.now();
    const outcome = await bashTool(
      { command: 'echo begun; sleep 30 & sleep 30' },
      { workspace, timeoutMs: 300 },
    );
    // The commands sleep 30 s: ending sooner means they were killed.
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(outcome.isError).toBe(true);
    expect(outcome.content).toContain('begun');
    expect(outcome.content).toMatch(/timed out after 300 ms/);
  });

  it('keeps head and tail of long output and says how much was cut', async () => {
    const outcome = await bashTool(
      { command: 'echo FIRST; for i in $(seq 1 5000); do echo line $i; done; echo LAST' },
      { workspace, maxOutputBytes: 1000 },
    );
    const content = outcome.content as string;
    expect(content.startsWith('FIRST\n')).toBe(true);
    expect(content).toMatch(/LAST\n\n\[exit code 0\]$/);
    expect(content).toMatch(
      /\[\.\.\. \d+ bytes of output cut \(\d+ in all\); kept the first 500 and the last 500 bytes \.\.\.\]/,
    );
    expect(content.length).toBeLessThan(1300);
  });

  it('stops when the signal aborts', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const started = Date.now();
    const outcome = await bashTool({ command: 'sleep 30' }, { workspace, signal: controller.signal });
    // The command sleeps 30 s: ending sooner means the abort killed it.
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(outcome).toMatchObject({ isError: true });
    expect(outcome.content).toMatch(/interrupted by the user/);
  });

  it('does not return after a background child keeps the pipes open', async () => {
    const started = Date.now();
    const outcome = await bashTool({ command: 'sleep 30 & echo done' }, { workspace, timeoutMs: 10_000 });
    // Back before the 10 s timeout: it did not wait for the child holding the pipes.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(outcome.content).toContain('done');
  });

  it('refuses a missing command', async () => {
    expect(await bashTool({}, { workspace })).toMatchObject({ isError: true });
  });

  it('hides secret-looking variables from the command', () => {
    const env = environmentWithoutSecrets({
      PATH: '/bin',
      ANTHROPIC_API_KEY: 'k',
      GITHUB_TOKEN: 't',
      HOME: '/h',
    });
    expect(env).toEqual({ PATH: '/bin', HOME: '/h' });
  });
});
