import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ValidationProblem } from '../../core/model/problems.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../../testing/index.js';
import { recordingIO } from '../cli-io.test-utils.js';
import { main } from '../main.js';
import { agentLaunch } from '../wrap/agent-launch.js';
import { PROXY_ARG_OPTIONS } from './proxy-setup.js';

// Lets one test make the proxy's check of every compacted request fail, to follow the fallbacks.
const forced = vi.hoisted(() => ({ problem: undefined as ValidationProblem | undefined }));
vi.mock('../../core/conversation/validate.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../core/conversation/validate.js')>();
  return {
    ...actual,
    validateMessages: (messages: unknown, options?: Parameters<typeof actual.validateMessages>[1]) =>
      forced.problem && options?.relativeTo !== undefined
        ? [forced.problem]
        : actual.validateMessages(messages, options),
  };
});

let server: ScriptedModelServer | undefined;
let directory: string | undefined;
afterEach(async () => {
  await server?.close();
  if (directory) await rm(directory, { recursive: true, force: true });
  server = undefined;
  directory = undefined;
});

/**
 * A stand-in for Claude Code: sends `requests` growing conversations to ANTHROPIC_BASE_URL, writes
 * what it saw, then exits with `code`; with `wait` it writes `ready` and waits for SIGINT (each one
 * counted in `sigints`), with `hold` it writes `ready` and exits once the file `go` exists.
 */
const fakeAgent = (dir: string) => `#!${process.execPath}
const { writeFileSync } = require('node:fs');
const [requests, code, mode] = process.argv.slice(2);
const { appendFileSync, existsSync } = require('node:fs');
process.on('SIGINT', () => {
  appendFileSync(${JSON.stringify(join(dir, 'sigints'))}, 'x');
  writeFileSync(${JSON.stringify(join(dir, 'sigint'))}, 'got SIGINT');
  // A second Ctrl-C would land while the agent cleans up (as Claude Code asks to confirm).
  setTimeout(() => process.exit(130), mode === 'tty' ? 500 : 0);
});
(async () => {
  const messages = [];
  const seen = {
    base: process.env.ANTHROPIC_BASE_URL,
    openai: process.env.OPENAI_BASE_URL,
    token: process.env.AGENT_COMPACT_TOKEN,
    statuses: [],
  };
  for (let turn = 0; turn < Number(requests); turn += 1) {
    messages.push({ role: 'user', content: 'step ' + turn + ' ' + 'const value = compute(input);\\n'.repeat(40) });
    // A system message without its beta: every compaction that keeps it is rejected.
    if (mode === 'system' && turn === 0) messages.push({ role: 'system', content: 'Available agent types: Explore.' });
    const answer = await fetch(process.env.ANTHROPIC_BASE_URL + '/v1/messages', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'claude-test', max_tokens: 50, messages }),
    });
    const body = await answer.json();
    seen.statuses.push(answer.status);
    messages.push({ role: 'assistant', content: body.content ?? 'no answer' });
  }
  writeFileSync(${JSON.stringify(join(dir, 'seen.json'))}, JSON.stringify(seen));
  if (mode === 'wait' || mode === 'tty') { writeFileSync(${JSON.stringify(join(dir, 'ready'))}, ''); setInterval(() => {}, 1 << 30); }
  else if (mode === 'hold') {
    writeFileSync(${JSON.stringify(join(dir, 'ready'))}, '');
    setInterval(() => { if (existsSync(${JSON.stringify(join(dir, 'go'))})) process.exit(Number(code)); }, 20);
  } else process.exit(Number(code));
})();
`;

async function setUp(): Promise<{ agent: string; dir: string }> {
  server = await startScriptedModelServer({ script: () => 'ok' });
  directory = await mkdtemp(join(tmpdir(), 'wrap-'));
  const agent = join(directory, 'claude');
  await writeFile(agent, fakeAgent(directory));
  await chmod(agent, 0o755);
  return { agent, dir: directory };
}

describe('agent-compact wrap', () => {
  it.each([0, 3])(
    'runs the agent through the proxy, passes exit code %s back, prints the savings line',
    async (code) => {
      const { agent, dir } = await setUp();
      const { output, io } = recordingIO(dir);
      const exit = await main(
        [
          'wrap',
          '--upstream',
          server!.url,
          '--mid',
          '500',
          '--hard',
          '900',
          '--summarizer',
          'extractive',
          '--',
          agent,
          '4',
          String(code),
        ],
        io,
      );
      expect(exit).toBe(code);
      const seen = JSON.parse(await readFile(join(dir, 'seen.json'), 'utf8')) as Record<string, unknown>;
      expect(seen.base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(seen.openai).toBeUndefined();
      expect(seen.statuses).toEqual([200, 200, 200, 200]);
      expect(server!.requests).toHaveLength(4);
      const lines = output.stderr.trim().split('\n');
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(
        /^agent-compact: dashboard http:\/\/127\.0\.0\.1:\d+\/agent-compact\/\?token=[\w-]{20,}$/,
      );
      expect(lines[1]).toMatch(
        /^agent-compact: 4 requests, [\d,]+ tokens sent → [\d,]+ forwarded, [1-9]\d* compactions?, ~\$\d+\.\d\d saved, dashboard http:\/\/127\.0\.0\.1:\d+\/agent-compact\/$/,
      );
      // The proxy is stopped afterwards.
      await expect(fetch(`${seen.base}/agent-compact/stats`)).rejects.toThrow();
    },
  );

  it('names the compactions that fell back, and warns when every one did', async () => {
    const { agent, dir } = await setUp();
    const { output, io } = recordingIO(dir);
    const args = ['--mid', '500', '--hard', '900', '--summarizer', 'extractive'];
    forced.problem = { path: 'messages[2].content[0]', message: 'forced', rule: 'unanswered-tool-use' };
    const exit = await main(
      ['wrap', '--upstream', server!.url, ...args, '--', agent, '4', '0', 'system'],
      io,
    ).finally(() => {
      forced.problem = undefined;
    });
    expect(exit).toBe(0);
    const lines = output.stderr.trim().split('\n');
    expect(lines.at(-2)).toMatch(
      /^agent-compact: 4 requests, [\d,]+ tokens sent → [\d,]+ forwarded, 0 compactions, [1-9]\d* compactions? rejected: messages\[2\]\.content\[0\]: forced.*, ~\$0\.00 saved, /,
    );
    expect(lines.at(-1)).toMatch(
      /^agent-compact: warning: every compaction fell back \([1-9]\d* compactions? rejected: messages\[2\]\.content\[0\]: forced.*nothing was saved\. Please report the reason/,
    );
  });

  it('Ctrl-C reaches the agent, whose exit code comes back', async () => {
    const { agent, dir } = await setUp();
    const { io } = recordingIO(dir);
    const exit = main(['wrap', '--upstream', server!.url, '--', agent, '1', '0', 'wait'], io);
    await vi.waitFor(() => readFile(join(dir, 'ready')), { timeout: 10_000, interval: 20 });
    process.emit('SIGINT');
    expect(await exit).toBe(130);
    expect(await readFile(join(dir, 'sigint'), 'utf8')).toBe('got SIGINT');
  });

  it('a missing agent command exits 127 with one line and no savings line', async () => {
    const { dir } = await setUp();
    const { output, io } = recordingIO(dir);
    expect(await main(['wrap', '--upstream', server!.url, '--', join(dir, 'no-such-agent')], io)).toBe(127);
    expect(output.stderr).toBe(`agent-compact: ${join(dir, 'no-such-agent')}: not found\n`);
  });

  it('`agent-compact claude --help` without claude on PATH: "claude: not found on PATH", exit 127', async () => {
    const { dir } = await setUp();
    const { output, io } = recordingIO(dir, { PATH: join(dir, 'empty-bin') });
    expect(await main(['claude', '--help'], io)).toBe(127);
    expect(output.stderr).toBe('agent-compact: claude: not found on PATH\n');
    expect(output.stdout).toBe('');
    // Found on PATH, the same agent runs.
    const found = recordingIO(dir, { PATH: dir });
    expect(await main(['wrap', '--upstream', server!.url, '--', 'claude', '1', '0'], found.io)).toBe(0);
  });

  it('prints the dashboard address with a token as the proxy starts; it serves the running agent', async () => {
    const { agent, dir } = await setUp();
    const { output, io } = recordingIO(dir, { AGENT_COMPACT_TOKEN: '' });
    const exit = main(['wrap', '--upstream', server!.url, '--', agent, '2', '0', 'hold'], io);
    await vi.waitFor(() => readFile(join(dir, 'ready')), { timeout: 10_000, interval: 20 });
    const printed = /^agent-compact: dashboard (\S+)$/m.exec(output.stderr)?.[1];
    expect(printed).toMatch(/\/agent-compact\/\?token=[\w-]{20,}$/);
    const address = new URL(printed!);
    // Without the token the proxy's own routes are closed.
    expect((await fetch(new URL('/agent-compact/sessions', address))).status).toBe(401);
    // The printed address trades its token for a cookie and sends the browser to the bare address.
    const first = await fetch(address, { redirect: 'manual' });
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe('/agent-compact/');
    const cookie = first.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const withCookie = { headers: { cookie: cookie.split(';')[0]! } };
    const page = await fetch(new URL('/agent-compact/', address), withCookie);
    expect(page.status).toBe(200);
    expect(await page.text()).not.toContain(address.searchParams.get('token'));
    const sessions = (await (
      await fetch(new URL('/agent-compact/sessions', address), withCookie)
    ).json()) as {
      model: string;
    }[];
    expect(sessions.map((session) => session.model)).toEqual(['claude-test']);
    await writeFile(join(dir, 'go'), '');
    expect(await exit).toBe(0);
  });

  it('does not pass AGENT_COMPACT_TOKEN to the agent', async () => {
    const { agent, dir } = await setUp();
    const { output, io } = recordingIO(dir, { AGENT_COMPACT_TOKEN: 'tok-of-the-user' });
    expect(await main(['wrap', '--upstream', server!.url, '--', agent, '1', '0'], io)).toBe(0);
    const seen = JSON.parse(await readFile(join(dir, 'seen.json'), 'utf8')) as Record<string, unknown>;
    expect(seen.base).toMatch(/^http:/);
    expect(seen.token).toBeUndefined();
    // The user's own token is theirs to type: it is not printed.
    expect(output.stderr).not.toContain('tok-of-the-user');
  });

  const bin = join(import.meta.dirname, '../../../dist/cli/bin.js');
  it.skipIf(!existsSync(bin) || !existsSync('/usr/bin/script'))(
    'one Ctrl-C in a terminal reaches the agent once',
    async () => {
      const { agent, dir } = await setUp();
      // `script` runs wrap on a terminal of its own; a ^C typed into it is the terminal's SIGINT.
      const command = [process.execPath, bin, 'wrap', '--upstream', server!.url, '--', agent, '1', '0', 'tty']
        .map((part) => `'${part}'`)
        .join(' ');
      const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd: dir, stdio: 'pipe' });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString('utf8');
      });
      const exited = new Promise<number | null>((resolveExit) => child.once('exit', resolveExit));
      await vi.waitFor(() => readFile(join(dir, 'ready')), { timeout: 20_000, interval: 20 });
      child.stdin.write('\x03');
      expect(await exited).toBe(130);
      expect(await readFile(join(dir, 'sigints'), 'utf8')).toBe('x');
      expect(output).toMatch(/agent-compact: 1 request/);
    },
  );

  it('without an agent exits 2', async () => {
    const { output, io } = recordingIO(tmpdir());
    expect(await main(['wrap', '--upstream', 'http://127.0.0.1:1'], io)).toBe(2);
    expect(output.stderr).toMatch(/missing the agent/);
  });
});

describe('agent-compact wrap --help', () => {
  it('lists every proxy option wrap takes', async () => {
    const { io, output } = recordingIO(tmpdir());
    expect(await main(['wrap', '--help'], io)).toBe(0);
    for (const name of Object.keys(PROXY_ARG_OPTIONS)) expect(output.stdout).toContain(`  --${name}`);
  });
});

describe('agentLaunch', () => {
  const url = 'http://127.0.0.1:4000';
  it.each([
    ['/usr/local/bin/claude', { ANTHROPIC_BASE_URL: url }],
    ['gemini', { GOOGLE_GEMINI_BASE_URL: url }],
    ['opencode', { ANTHROPIC_BASE_URL: `${url}/v1`, OPENAI_BASE_URL: `${url}/v1` }],
    ['aider', { OPENAI_BASE_URL: `${url}/v1` }],
    ['my-agent', { ANTHROPIC_BASE_URL: url, OPENAI_BASE_URL: `${url}/v1` }],
  ])('%s gets %o', (command, env) => {
    const launch = agentLaunch(command, ['-p', 'hi'], url, {});
    expect(launch.env).toEqual(env);
    expect(launch.args).toEqual(['-p', 'hi']);
    expect(launch.note !== undefined).toBe(command === 'my-agent');
  });

  const gateway = 'http://127.0.0.1:9/gateway';
  const local = 'http://127.0.0.1:11434/v1';
  const defaults = { anthropic: 'https://api.anthropic.com', openai: 'https://api.openai.com' };
  it.each([
    ['claude', { ANTHROPIC_BASE_URL: gateway }, { ...defaults, anthropic: gateway }],
    [
      'opencode',
      { ANTHROPIC_BASE_URL: `${gateway}/v1`, OPENAI_BASE_URL: local },
      { anthropic: `${gateway}/v1`, openai: local },
    ],
    ['aider', { OPENAI_BASE_URL: local }, { ...defaults, openai: local }],
    ['codex', { OPENAI_BASE_URL: local }, { ...defaults, openai: local }],
    ['gemini', { GOOGLE_GEMINI_BASE_URL: gateway }, { ...defaults, gemini: gateway }],
    ['claude', { ANTHROPIC_BASE_URL: '' }, defaults],
  ])(
    '%s forwards to the base URL its environment already had (%o), not the provider',
    (command, env, upstreams) => {
      // The agent's own gateway or local server would otherwise get its key sent to the provider.
      expect(agentLaunch(command, [], url, env).upstreams).toEqual(upstreams);
    },
  );

  it('codex gets a model_providers override on its command line, keeping OPENAI_API_KEY or its login', () => {
    const withKey = agentLaunch('codex', ['exec', 'hi'], url, { OPENAI_API_KEY: 'sk-x' });
    expect(withKey.env).toEqual({});
    expect(withKey.args).toEqual([
      '-c',
      'model_providers.agent_compact.name="agent-compact"',
      '-c',
      `model_providers.agent_compact.base_url="${url}/v1"`,
      '-c',
      'model_providers.agent_compact.wire_api="responses"',
      '-c',
      'model_providers.agent_compact.env_key="OPENAI_API_KEY"',
      '-c',
      'model_provider="agent_compact"',
      'exec',
      'hi',
    ]);
    const viaNode = agentLaunch('node', ['/x/node_modules/@openai/codex/bin/codex.js', 'exec'], url, {});
    expect(viaNode.kind).toBe('codex');
    expect(viaNode.args[0]).toBe('/x/node_modules/@openai/codex/bin/codex.js');
    expect(viaNode.args.at(-1)).toBe('exec');
    expect(agentLaunch('node', ['/x/@anthropic-ai/claude-code/cli-wrapper.cjs'], url, {}).kind).toBe(
      'claude',
    );
    expect(agentLaunch('codex', [], url, {}).args).toContain(
      'model_providers.agent_compact.requires_openai_auth=true',
    );
  });
});
