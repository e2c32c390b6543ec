import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { anthropicLoop, slowSummaryScript } from '../../proxy/agent-loops.test-utils.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../../testing/index.js';
import { recordingIO } from '../cli-io.test-utils.js';
import { main } from '../main.js';

let server: ScriptedModelServer | undefined;
let directory: string | undefined;
afterEach(async () => {
  await server?.close();
  if (directory) await rm(directory, { recursive: true, force: true });
  server = undefined;
  directory = undefined;
});

describe('agent-compact proxy', () => {
  it('prints "listening on http://HOST:PORT" first, logs each request, writes the JSON log, stops on SIGTERM', async () => {
    server = await startScriptedModelServer({ script: ['Hi there.'] });
    directory = await mkdtemp(join(tmpdir(), 'proxy-cli-'));
    const { output, io } = recordingIO(directory);
    const runsServer = vi.fn();
    io.runsServer = runsServer;
    const exit = main(
      [
        'proxy',
        '--upstream',
        server.url,
        '--port',
        '0',
        '--mid',
        '1000',
        '--hard',
        '2000',
        '--json-log',
        'log.jsonl',
      ],
      io,
    );
    await vi.waitFor(() => expect(output.stdout).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+\n$/), {
      timeout: 30_000,
    });
    const url = output.stdout.trim().replace('listening on ', '');
    const client = new Anthropic({ apiKey: 'test-key', baseURL: url, maxRetries: 0 });
    const message = await client.messages.create({
      model: 'claude-test',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'Hello' }],
    });
    expect(message.content).toEqual([{ type: 'text', text: 'Hi there.' }]);
    process.emit('SIGTERM');
    expect(await exit).toBe(0);
    // The bin's io keeps V8's heap near what is live once the command runs a server.
    expect(runsServer).toHaveBeenCalledTimes(1);
    // First the dashboard's address with a fresh token (a loopback proxy given none), then the request.
    expect(output.stderr).toMatch(
      /^dashboard http:\/\/127\.0\.0\.1:\d+\/agent-compact\/\?token=[\w-]{20,}\nanthropic [0-9a-f]{8} \d+ → \d+ tokens none 200 \d+ms\n$/,
    );
    const dashboard = /^dashboard (\S+)/.exec(output.stderr)?.[1] ?? '';
    expect(new URL(dashboard).origin).toBe(url);
    const record = JSON.parse(await readFile(join(directory, 'log.jsonl'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(record).toMatchObject({ api: 'anthropic', layer: 'none', status: 200, path: '/v1/messages' });
  });

  it('--background: the client goes on while a slow summary is written, and a later request carries it', async () => {
    const slow = slowSummaryScript();
    server = await startScriptedModelServer({ script: slow.script });
    directory = await mkdtemp(join(tmpdir(), 'proxy-cli-'));
    const { output, io } = recordingIO(directory);
    const exit = main(
      ['proxy', '--upstream', server.url, '--port', '0', '--mid', '500', '--hard', '2500', '--background'],
      io,
    );
    await vi.waitFor(() => expect(output.stdout).toMatch(/^listening on /), { timeout: 30_000 });
    await anthropicLoop(output.stdout.trim().replace('listening on ', ''), { turns: 12 });
    process.emit('SIGTERM');
    expect(await exit).toBe(0);
    expect(slow.summaries).toBeGreaterThanOrEqual(1);
    expect(slow.requestsDuringSummary).toBeGreaterThanOrEqual(2);
    expect(output.stderr).toMatch(/ hard 200 \d+ms\n/);
    expect(server.requests.map((request) => request.outcome)).not.toContain('invalid-request');
  });

  it('refuses a --json-log it cannot open, in one line with exit 2', async () => {
    const { output, io } = recordingIO(tmpdir());
    const args = ['proxy', '--upstream', 'http://127.0.0.1:1', '--port', '0'];
    expect(await main([...args, '--json-log', 'no-such-dir/log.jsonl'], io)).toBe(2);
    expect(output.stderr).toBe(
      'agent-compact proxy: --json-log: cannot open no-such-dir/log.jsonl for appending (ENOENT)\n',
    );
  });

  it.skipIf(!existsSync('/dev/full'))(
    'goes on serving when the --json-log write fails, and says so once',
    async () => {
      server = await startScriptedModelServer({ script: ['One.', 'Two.'] });
      const { output, io } = recordingIO(tmpdir());
      const exit = main(['proxy', '--upstream', server.url, '--port', '0', '--json-log', '/dev/full'], io);
      await vi.waitFor(() => expect(output.stdout).toMatch(/^listening on /), { timeout: 30_000 });
      const url = output.stdout.trim().replace('listening on ', '');
      const client = new Anthropic({ apiKey: 'test-key', baseURL: url, maxRetries: 0 });
      for (const text of ['Hello', 'Again']) {
        await client.messages.create({
          model: 'claude-test',
          max_tokens: 50,
          messages: [{ role: 'user', content: text }],
        });
      }
      await vi.waitFor(() => expect(output.stderr).toContain('requests are no longer logged'));
      process.emit('SIGTERM');
      expect(await exit).toBe(0);
      expect(output.stderr.match(/--json-log \/dev\/full: ENOSPC/g)).toHaveLength(1);
    },
  );

  it('refuses a --max-body that is not a size, naming the flag', async () => {
    const { output, io } = recordingIO(tmpdir());
    expect(await main(['proxy', '--upstream', 'http://127.0.0.1:1', '--max-body', '12 parsecs'], io)).toBe(2);
    expect(output.stderr).toContain('--max-body: "12 parsecs" is not a size in bytes');
  });

  it('refuses a --max-memory that is not a size, naming the flag', async () => {
    const { output, io } = recordingIO(tmpdir());
    expect(await main(['proxy', '--upstream', 'http://127.0.0.1:1', '--max-memory', 'lots'], io)).toBe(2);
    expect(output.stderr).toContain('--max-memory: "lots" is not a size in bytes');
    expect(output.stderr).not.toContain('--max-memory: --max-memory');
  });

  it.each(['SIGINT', 'SIGTERM'] as const)(
    'is ready to stop on %s once it prints "listening on", so a script may send it right after that line',
    async (signal) => {
      server = await startScriptedModelServer({ script: [] });
      const listenersBefore = process.listenerCount(signal);
      let listenersWhenReady: number | undefined;
      const { output, io } = recordingIO(tmpdir());
      const print = io.stdout;
      io.stdout = (text) => {
        if (text.startsWith('listening on')) listenersWhenReady = process.listenerCount(signal);
        print(text);
      };
      const exit = main(['proxy', '--upstream', server.url, '--port', '0'], io);
      await vi.waitFor(() => expect(output.stderr).toContain('dashboard '), { timeout: 30_000 });
      process.emit(signal);
      expect(await exit).toBe(0);
      expect(listenersWhenReady).toBe(listenersBefore + 1);
    },
  );

  it('refuses a --store-ttl without --store, which it would ignore', async () => {
    const { output, io } = recordingIO(tmpdir());
    expect(
      await main(['proxy', '--upstream', 'http://127.0.0.1:1', '--port', '0', '--store-ttl', '1h'], io),
    ).toBe(2);
    expect(output.stderr).toBe(
      'agent-compact proxy: --store-ttl sets how long Redis keeps a session: it needs --store redis://…\n',
    );
  });

  it('needs an upstream', async () => {
    const { output, io } = recordingIO(tmpdir());
    expect(await main(['proxy'], io)).toBe(2);
    expect(output.stderr).toContain('--upstream URL is required');
  });
});
