import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toOpenAIMessages } from '../../core/conversation/openai-format.js';
import { agentSession } from '../../core/conversation/session-builder.test-utils.js';
import { validateMessages } from '../../core/conversation/validate.js';
import { useTempDirs } from '../../temp-dirs.test-utils.js';
import { startScriptedModelServer } from '../../testing/index.js';
import { recordingIO } from '../cli-io.test-utils.js';
import { main } from '../main.js';

const tempDir = useTempDirs();

async function workspace(files: Record<string, string>) {
  const directory = tempDir('agent-compact-compact-');
  for (const [name, text] of Object.entries(files)) await writeFile(join(directory, name), text);
  return directory;
}

const session = { system: 'You are Coder.', messages: agentSession(30, { lines: 400 }) };

/** The session as Anthropic JSONL: a system line, then one message a line. */
const sessionJsonl = () =>
  `${[{ system: session.system }, ...session.messages].map((line) => JSON.stringify(line)).join('\n')}\n`;

describe('agent-compact compact', () => {
  it('writes the compacted conversation to OUT and prints layer and token counts with --json', async () => {
    const directory = await workspace({ 'session.json': JSON.stringify(session) });
    const { output, io } = recordingIO(directory);
    const code = await main(
      [
        'compact',
        'session.json',
        '--mid',
        '10000',
        '--hard',
        '20000',
        '--archive',
        'archive',
        '-o',
        'out.json',
        '--json',
      ],
      io,
    );
    expect(code).toBe(0);
    const summary = JSON.parse(output.stdout);
    expect(summary).toMatchObject({ layer: 'hard', messagesBefore: 61, format: 'anthropic' });
    expect(summary.tokensAfter).toBeLessThan(summary.tokensBefore);
    const written = JSON.parse(await readFile(join(directory, 'out.json'), 'utf8'));
    expect(written.system).toBe('You are Coder.');
    expect(validateMessages(written.messages)).toEqual([]);
    expect(await readdir(join(directory, 'archive'))).toEqual(['session.jsonl']);
  });

  it('keeps the OpenAI format and JSONL layout of its input', async () => {
    const lines = toOpenAIMessages(session).map((message) => JSON.stringify(message));
    const directory = await workspace({ 'chat.jsonl': `${lines.join('\n')}\n` });
    const { output, io } = recordingIO(directory);
    expect(await main(['compact', 'chat.jsonl', '--hard', '20000', '--mid', '10000'], io)).toBe(0);
    const messages = output.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(messages[0]).toEqual({ role: 'system', content: 'You are Coder.' });
    expect(validateMessages(messages, { format: 'openai' })).toEqual([]);
    expect(output.stderr).toMatch(/^hard: \d+ → \d+ tokens/);
  });

  it('without --archive keeps the archive in OUT.archive/, where recall finds every id it names', async () => {
    const directory = await workspace({ 'session.json': JSON.stringify(session) });
    const { output, io } = recordingIO(directory);
    expect(
      await main(['compact', 'session.json', '--mid', '10000', '--hard', '20000', '-o', 'out.json'], io),
    ).toBe(0);
    expect(output.stderr).toMatch(/item\(s\) archived in out\.json\.archive\n$/);
    const text = await readFile(join(directory, 'out.json'), 'utf8');
    const ids = new Set([...text.matchAll(/recall(?: |=\\")(r\d+)/g)].map((match) => match[1]!));
    expect(ids.size).toBeGreaterThan(0);
    for (const id of ids) {
      const recalled = recordingIO(directory);
      expect(await main(['recall', id, '--archive', 'out.json.archive'], recalled.io)).toBe(0);
      expect(recalled.output.stdout.length).toBeGreaterThan(0);
    }
    // A hard summary's id gives back the messages it replaced, as JSON.
    const summaryId = /<context_summary recall=\\"(r\d+)\\"/.exec(text)?.[1];
    const recalled = recordingIO(directory);
    expect(
      await main(
        ['recall', summaryId!, '--archive', 'out.json.archive', '--session', 'session'],
        recalled.io,
      ),
    ).toBe(0);
    expect(JSON.parse(recalled.output.stdout)[0]).toEqual(session.messages[0]);
  });

  it('without -o writes to stdout and keeps the archive in the current folder, never beside the input', async () => {
    const inputs = await workspace({ 'session.jsonl': sessionJsonl() });
    const current = await workspace({});
    const { output, io } = recordingIO(current);
    const input = join(inputs, 'session.jsonl');
    expect(await main(['compact', input, '--mid', '10000', '--hard', '20000'], io)).toBe(0);
    expect(output.stderr).toMatch(/item\(s\) archived in session\.jsonl\.archive\n$/);
    expect(await readdir(join(current, 'session.jsonl.archive'))).toEqual(['session.jsonl']);
    expect(await readdir(inputs)).toEqual(['session.jsonl']);
    expect(
      validateMessages(
        output.stdout
          .trim()
          .split('\n')
          .slice(1)
          .map((line) => JSON.parse(line)),
      ),
    ).toEqual([]);
  });

  it('with -o /dev/null (a device, as /dev/stdout is) keeps the archive in the current folder', async () => {
    const current = await workspace({ 'session.jsonl': sessionJsonl() });
    const { output, io } = recordingIO(current);
    const args = ['compact', 'session.jsonl', '--mid', '10000', '--hard', '20000', '-o', '/dev/null'];
    expect(await main(args, io)).toBe(0);
    expect(output.stderr).toMatch(/item\(s\) archived in session\.jsonl\.archive\n$/);
    expect(await readdir(join(current, 'session.jsonl.archive'))).toEqual(['session.jsonl']);
    expect(existsSync('/dev/null.archive')).toBe(false);
  });

  it.each([
    [['-o', 'notes.txt/out.jsonl'], 'notes.txt/out.jsonl', 'notes.txt'],
    [['-o', 'notes.txt/deeper/out.jsonl'], 'notes.txt/deeper/out.jsonl', 'notes.txt'],
    [['-o', 'notes.txt/out.jsonl', '--archive', 'archive'], 'notes.txt/out.jsonl', 'notes.txt'],
  ])(
    '%j under a file: says it cannot write OUT and why, exit 2, and archives nothing',
    async (args, out, file) => {
      const directory = await workspace({ 'session.jsonl': sessionJsonl(), 'notes.txt': 'my notes\n' });
      const { output, io } = recordingIO(directory);
      expect(await main(['compact', 'session.jsonl', '--mid', '10000', '--hard', '20000', ...args], io)).toBe(
        2,
      );
      expect(output.stderr).toBe(
        `agent-compact compact: cannot write ${out}: ${file} is a file, not a folder\n`,
      );
      expect((await readdir(directory)).sort()).toEqual(['notes.txt', 'session.jsonl']);
    },
  );

  it('recalls from an archive folder that also holds a file that is no session', async () => {
    const directory = await workspace({ 'session.json': JSON.stringify(session) });
    const { io } = recordingIO(directory);
    expect(
      await main(['compact', 'session.json', '--mid', '10000', '--hard', '20000', '-o', 'out.json'], io),
    ).toBe(0);
    await writeFile(join(directory, 'out.json.archive', 'my notes.jsonl'), '{}\n');
    const id = /recall(?: |=\\")(r\d+)/.exec(await readFile(join(directory, 'out.json'), 'utf8'))?.[1];
    const recalled = recordingIO(directory);
    expect(await main(['recall', id!, '--archive', 'out.json.archive'], recalled.io)).toBe(0);
    expect([recalled.output.stderr, recalled.output.stdout.length > 0]).toEqual(['', true]);
  });

  it.each([
    [['compact', 'session.jsonl', '--archive', '.'], 'session.jsonl'],
    [['compact', 'session.jsonl', '--archive', 'sub/..', '-o', 'out.jsonl'], 'session.jsonl'],
    [['compact', 'session.json', '--archive', '.', '-o', 'session.jsonl'], 'session.jsonl'],
  ])('%j: refuses an archive whose file is the input or the output, and writes nothing', async (args) => {
    const directory = await workspace({
      'session.jsonl': sessionJsonl(),
      'session.json': JSON.stringify(session),
    });
    const { output, io } = recordingIO(directory);
    expect(await main([...args, '--mid', '10000', '--hard', '20000'], io)).toBe(2);
    expect(output.stderr).toMatch(
      /^agent-compact compact: the archive would be written into .*session\.jsonl itself/,
    );
    expect(output.stderr.trim().split('\n')).toHaveLength(1);
    expect(await readFile(join(directory, 'session.jsonl'), 'utf8')).toBe(sessionJsonl());
    expect((await readdir(directory)).sort()).toEqual(['session.json', 'session.jsonl']);
  });

  it('shows its progress on stderr when the work takes more than a couple of seconds', async () => {
    const directory = await workspace({ 'session.jsonl': sessionJsonl() });
    const { output, io } = recordingIO(directory);
    // Each reading of the clock is 3 s after the last, so the delay before progress is passed.
    let time = 0;
    io.now = () => {
      time += 3000;
      return time;
    };
    expect(
      await main(['compact', 'session.jsonl', '--hard', '20000', '--mid', '10000', '-o', 'out.jsonl'], io),
    ).toBe(0);
    const lines = output.stderr.trim().split('\n');
    expect(lines.at(-3)).toMatch(/^compact: [\d.]+ of [\d.]+ MB \(100%\)$/);
    expect(lines.at(-2)).toBe('compact: compacting 61 messages');
    expect(lines.at(-1)).toMatch(/^hard: /);
  });

  it('gives the same result when run twice on one file with the default archive', async () => {
    const session = await readFile(join(import.meta.dirname, '../../../examples/session.jsonl'), 'utf8');
    const directory = await workspace({ 'session.jsonl': session });
    const args = [
      'compact',
      'session.jsonl',
      '--mid',
      '60000',
      '--hard',
      '150000',
      '--tokenizer',
      'heuristic',
    ];
    const runs = [];
    for (const output of ['a.jsonl', 'a.jsonl']) {
      const { output: printed, io } = recordingIO(directory);
      expect(await main([...args, '-o', output, '--json'], io)).toBe(0);
      runs.push({ ...JSON.parse(printed.stdout), text: await readFile(join(directory, output), 'utf8') });
    }
    expect(runs[0]).toMatchObject({ layer: 'mid' });
    // The second run finds the first's items in the archive: it names them again, stores nothing.
    expect(runs[1]).toMatchObject({ layer: 'mid', archived: [] });
    expect(runs[1].tokensAfter).toBe(runs[0].tokensAfter);
    expect(runs[1].text).toBe(runs[0].text);
    // Its output names those ids all the same, so it says where they are, as the first run did.
    expect(runs[1].archive).toBe('a.jsonl.archive');
    const { output: printed, io } = recordingIO(directory);
    expect(await main([...args, '-o', 'a.jsonl'], io)).toBe(0);
    expect(printed.stderr).toMatch(/, 0 item\(s\) archived in a\.jsonl\.archive\n$/);
  });

  it("--window gives the thresholds --help says it gives (the proxy's --help says the same)", async () => {
    const helpOf = async (command: string) => {
      const help = recordingIO(tmpdir());
      expect(await main([command, '--help'], help.io)).toBe(0);
      return help.output.stdout;
    };
    const [compactHelp, proxyHelp] = [await helpOf('compact'), await helpOf('proxy')];
    const stated = (help: string, flag: string) => {
      const match = new RegExp(`${flag} N .*?(\\d+)% of --window less the\\s+(\\d+) kept`, 's').exec(help);
      expect(match, `${flag} in --help`).not.toBeNull();
      return { share: Number(match![1]) / 100, reserve: Number(match![2]) };
    };
    const window = 200_000;
    const directory = await workspace({ 'small.json': JSON.stringify({ messages: agentSession(2) }) });
    const { output, io } = recordingIO(directory);
    expect(await main(['compact', 'small.json', '--window', String(window), '--json'], io)).toBe(0);
    const { thresholds } = JSON.parse(output.stdout) as { thresholds: { mid: number; hard: number } };
    for (const layer of ['mid', 'hard'] as const) {
      const { share, reserve } = stated(compactHelp, `--${layer}`);
      expect(thresholds[layer], layer).toBe(Math.floor((window - reserve) * share));
      // The proxy hands --window to the same compactor option.
      expect(stated(proxyHelp, `--${layer}`)).toEqual({ share, reserve });
    }
  });

  it('leaves a small conversation alone (layer none)', async () => {
    const directory = await workspace({ 'small.json': JSON.stringify({ messages: agentSession(2) }) });
    const { output, io } = recordingIO(directory);
    expect(await main(['compact', 'small.json', '--json'], io)).toBe(0);
    expect(JSON.parse(output.stdout)).toMatchObject({ layer: 'none', messagesAfter: 5 });
  });

  it.each([
    [['compact', 'missing.json'], 2, /missing\.json: no such file/],
    [['compact', 'broken.json'], 2, /broken\.json/],
    [['compact', 'invalid.json'], 1, /messages\[1\]\.content\[0\]: tool_use "toolu_1"/],
    [['compact', 'small.json', '--mid', 'lots'], 2, /--mid must be a positive whole number/],
    [['compact', 'small.json', '--summarizer', 'anthropic:claude-haiku-4-5'], 2, /ANTHROPIC_API_KEY/],
    [['compact', 'small.json', '--bogus'], 2, /bogus/],
  ])('%j exits %i with one clear line', async (args, exitCode, pattern) => {
    const directory = await workspace({
      'broken.json': '{"messages": [',
      'small.json': JSON.stringify({ messages: agentSession(2) }),
      'invalid.json': JSON.stringify({
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'bash', input: {} }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_9', content: 'x' }] },
        ],
      }),
    });
    const { output, io } = recordingIO(directory);
    expect(await main(args, io)).toBe(exitCode);
    expect(output.stderr).toMatch(pattern);
    // One line, and under an argument mistake the usage line.
    const [line, ...rest] = output.stderr.trim().split('\n');
    expect(line).toMatch(pattern);
    expect(rest).toEqual(
      args.includes('--mid') || args.includes('--bogus')
        ? ['Usage: agent-compact compact FILE [options]']
        : [],
    );
    expect(output.stderr).not.toMatch(/\n\s+at /);
  });

  describe('with a model summarizer over the real SDK', () => {
    const big = JSON.stringify({ system: 'You are Coder.', messages: agentSession(30, { lines: 400 }) });

    /** Compacts the big session past hard with `summarizer` behind `baseURL`; returns what it printed. */
    async function compactWith(summarizer: string, baseURL: string, extra: string[] = []) {
      const directory = await workspace({ 'big.json': big });
      const { output, io } = recordingIO(directory, {
        ANTHROPIC_API_KEY: 'test-key',
        OPENAI_API_KEY: 'test-key',
      });
      const args = ['compact', 'big.json', '--mid', '10000', '--hard', '20000', ...extra];
      const code = await main([...args, '--summarizer', summarizer, '--base-url', baseURL], io);
      return { code, directory, ...output };
    }

    it('uses the model for the summary', async () => {
      const server = await startScriptedModelServer({
        script: ['## Task and constraints\n- Fix the tests.'],
      });
      try {
        const result = await compactWith('anthropic:claude-haiku-4-5', server.anthropicBaseURL, ['--json']);
        expect(result.code).toBe(0);
        expect(JSON.parse(result.stdout).layer).toBe('hard');
        expect(server.requests).toHaveLength(1);
      } finally {
        await server.close();
      }
    });

    it.each([
      ['a rejected request (prompt too long)', 100],
      ['an empty answer', undefined],
    ] as const)('fails with one line and exit 2 on %s', async (_name, contextWindow) => {
      const server = await startScriptedModelServer({
        script: [{ type: 'empty' }, { type: 'empty' }, { type: 'empty' }],
        ...(contextWindow ? { contextWindow } : {}),
      });
      try {
        const result = await compactWith('openai:gpt-test', server.openaiBaseURL, ['-o', 'out.json']);
        expect(result.code).toBe(2);
        expect(result.stderr.trim().split('\n')).toHaveLength(1);
        expect(result.stderr).toMatch(/^agent-compact compact: summary model openai:gpt-test failed/);
        expect(existsSync(join(result.directory, 'out.json'))).toBe(false);
      } finally {
        await server.close();
      }
    });

    it('fails with one line and exit 2 when the server is unreachable', async () => {
      const result = await compactWith('openai:gpt-test', 'http://127.0.0.1:9/v1');
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/failed/);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    });
  });
});
