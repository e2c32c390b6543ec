import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedModelServer } from '../../testing/index.js';
import { main } from '../main.js';
import { keyVariables, lastToolResults, secretKey, sessionIdFrom, testIO } from './run.test-utils.js';

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'agent-e2e-'));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

describe('agent-compact run: keys, servers, approval and Ctrl-C', () => {
  it.each([
    [['--provider', 'anthropic'], {}, /^agent-compact run: ANTHROPIC_API_KEY is not set/],
    [
      ['--provider', 'openai'],
      { ANTHROPIC_API_KEY: secretKey },
      /^agent-compact run: OPENAI_API_KEY is not set/,
    ],
    [['--provider', 'vertex'], {}, /--provider must be anthropic, openai, openai-responses or gemini/],
    [['--mid', 'lots'], { ANTHROPIC_API_KEY: secretKey }, /--mid must be a positive integer/],
    [
      ['--resume', '../../etc'],
      { ANTHROPIC_API_KEY: secretKey },
      /session id "\.\.\/\.\.\/etc" may hold only letters/,
    ],
    [['--resume', 'nope-123'], { ANTHROPIC_API_KEY: secretKey }, /no session "nope-123" in /],
    [
      ['--workspace', 'missing-dir'],
      { ANTHROPIC_API_KEY: secretKey },
      /workspace .*missing-dir is not a directory/,
    ],
  ])('refuses %j with one line and exit 2', async (args, env, message) => {
    const { io, output } = testIO(env, workspace);
    expect(await main(['run', 'a task', ...args], io)).toBe(2);
    expect(output.stderr).toMatch(message);
  });

  it.each([
    ['openai', 'http://127.0.0.1:9/v1'],
    ['anthropic', 'http://127.0.0.1:9'],
  ] as const)(
    'says in one line when the %s server cannot be reached, and exits 2',
    async (provider, baseURL) => {
      const { io, output } = testIO({ [keyVariables[provider]]: secretKey }, workspace);
      const code = await main(['run', 'a task', '--provider', provider, '--base-url', baseURL], io);
      expect(code).toBe(2);
      const lines = output.stderr.trim().split('\n');
      expect(lines.at(-1)).toMatch(
        new RegExp(
          `^agent-compact run: cannot reach the ${provider} server at ${baseURL.replace(/[./]/g, '\\$&')}.* \\(session \\S+ is saved`,
        ),
      );
      expect(output.stderr).not.toContain(secretKey);
    },
    30_000,
  );

  it('refuses bash with a tool error the model reads when there is no terminal and no --yes', async () => {
    const server = await startScriptedModelServer({
      script: [
        { type: 'tool-calls', calls: [{ id: 'toolu_1', name: 'bash', input: { command: 'touch ran.txt' } }] },
        'Ok.',
      ],
    });
    try {
      const { io } = testIO({ ANTHROPIC_API_KEY: secretKey }, workspace);
      expect(await main(['run', 'touch a file', '--base-url', server.anthropicBaseURL], io)).toBe(0);
      const [result] = lastToolResults('anthropic', server.requests[1]!.body);
      expect(result).toMatchObject({ id: 'toolu_1', isError: true });
      expect(result!.text).toMatch(/no terminal to ask on.*--yes/);
      await expect(stat(path.join(workspace, 'ran.txt'))).rejects.toThrow();
    } finally {
      await server.close();
    }
  });

  it.each([
    ['y', false, 'yes'],
    ['n', true, 'the user declined'],
  ])('asks on a terminal before running bash: answer %j', async (answer, isError, text) => {
    const server = await startScriptedModelServer({
      script: [
        { type: 'tool-calls', calls: [{ id: 'toolu_1', name: 'bash', input: { command: 'echo yes' } }] },
        'Ok.',
      ],
    });
    try {
      const { PassThrough } = await import('node:stream');
      const stdin = Object.assign(new PassThrough(), { isTTY: true });
      stdin.write(`${answer}\n`);
      const { io } = testIO({ ANTHROPIC_API_KEY: secretKey }, workspace);
      io.isTTY = true;
      io.stdin = stdin;
      expect(await main(['run', 'echo', '--base-url', server.anthropicBaseURL], io)).toBe(0);
      const [result] = lastToolResults('anthropic', server.requests[1]!.body);
      expect(result).toMatchObject({ id: 'toolu_1', isError });
      expect(result!.text).toContain(text);
    } finally {
      await server.close();
    }
  });

  it('stops the step on Ctrl-C, leaves the session resumable, and continues it', async () => {
    let interrupt: (() => void) | undefined;
    const server = await startScriptedModelServer({
      script: (request) => {
        if (request.index === 0) {
          return {
            type: 'tool-calls',
            calls: [{ id: 'toolu_1', name: 'read_file', input: { path: 'notes.txt' } }],
          };
        }
        if (request.index === 1) {
          setTimeout(() => interrupt?.(), 20);
          return { type: 'hang' };
        }
        return 'The notes say hello.';
      },
    });
    try {
      await writeFile(path.join(workspace, 'notes.txt'), 'hello');
      const first = testIO({ ANTHROPIC_API_KEY: secretKey }, workspace);
      first.io.onInterrupt = (handler) => {
        interrupt = handler;
        return () => {
          interrupt = undefined;
        };
      };
      const started = Date.now();
      expect(await main(['run', 'Read notes.txt', '--base-url', server.anthropicBaseURL], first.io)).toBe(
        130,
      );
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(first.output.stderr).toMatch(
        /interrupted; the session is saved\. Continue with: agent-compact run --resume \S+/,
      );
      const sessionId = sessionIdFrom(first.output.stderr);
      const info = JSON.parse(
        await readFile(path.join(workspace, '.agent-compact/sessions', sessionId, 'session.json'), 'utf8'),
      );
      expect(info.state).toBe('interrupted');

      const second = testIO({ ANTHROPIC_API_KEY: secretKey }, workspace);
      expect(
        await main(['run', '--resume', sessionId, '--base-url', server.anthropicBaseURL], second.io),
      ).toBe(0);
      expect(second.output.stdout).toBe('The notes say hello.\n');
      // The resumed request is the interrupted one again: the read result is its last message.
      expect(server.requests[2]!.body.messages).toEqual(server.requests[1]!.body.messages);
    } finally {
      await server.close();
    }
  });
});

describe('agent-compact chat', () => {
  it('answers each line and ends on /exit, with the session saved', async () => {
    const server = await startScriptedModelServer({ script: ['First answer.', 'Second answer.'] });
    try {
      const { PassThrough } = await import('node:stream');
      const stdin = new PassThrough();
      const { io, output } = testIO({ OPENAI_API_KEY: secretKey }, workspace);
      io.stdin = stdin;
      stdin.end('hello\n\nand again\n/exit\nnever sent\n');
      const code = await main(['chat', '--provider', 'openai', '--base-url', server.openaiBaseURL], io);
      expect(code, output.stderr).toBe(0);
      expect(output.stdout).toBe('First answer.\nSecond answer.\n');
      expect(server.requests).toHaveLength(2);
      expect(server.requests[1]!.body.messages).toEqual([
        expect.objectContaining({ role: 'system' }),
        { role: 'user', content: 'hello' },
        { role: 'assistant', content: 'First answer.' },
        { role: 'user', content: 'and again' },
      ]);
      expect(output.stderr).toMatch(/session \S+ saved; continue with: agent-compact chat --resume/);
    } finally {
      await server.close();
    }
  });
});
