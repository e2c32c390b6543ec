import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../lab/main.js';
import { agentProviders } from '../lab/wire/agent-providers.js';
import { useTempDirs } from '../temp-dirs.test-utils.js';
import { recordingIO } from './cli-io.test-utils.js';
import { main as publishedMain } from './main.js';

const tempDir = useTempDirs();

/** Commands whose --help the CLI prints itself (the agent short forms pass --help to the agent). */
const commands = [
  'validate',
  'count',
  'compact',
  'recall',
  'simulate',
  'run',
  'proxy',
  'wrap',
  'mcp',
  'chat',
];

const docs = join(import.meta.dirname, '../../docs');

/** The long flags a text names, sorted: `--help` aside, and `--output`, which docs write `-o`. */
function flagsIn(text: string): string[] {
  const flags = new Set([...text.matchAll(/(?<![\w-])--([a-z][a-z-]*)/g)].map((match) => match[1]!));
  flags.delete('help');
  flags.delete('output');
  return [...flags].sort();
}

async function run(args: string[]) {
  const { output, io } = recordingIO(tempDir('agent-compact-usage-'));
  const code = await main(args, io);
  return { code, ...output };
}

describe('argument mistakes', () => {
  it.each([
    [['compact', 'x.json', '--bogus'], 'agent-compact compact: unknown option --bogus (see --help)'],
    [
      ['compact', 'x.json', '--mid', '-5'],
      'agent-compact compact: --mid must be a positive whole number, got "-5"',
    ],
    [['count', 'x.json', '-q'], 'agent-compact count: unknown option -q (see --help)'],
    [['count', 'x.json', '--json=yes'], 'agent-compact count: --json takes no value (see --help)'],
    [['validate', 'x.json', '--format'], 'agent-compact validate: --format needs a value (see --help)'],
    [['validate'], 'agent-compact validate: missing FILE (see --help)'],
    [
      ['simulate', 'x.jsonl', '--hard', '-5'],
      'agent-compact simulate: --hard expects a whole number ≥ 0, got "-5"',
    ],
    [['simulate', '--bogus', 'x.jsonl'], 'agent-compact simulate: unknown option --bogus (see --help)'],
    [['run', 'task', '--bogus'], 'agent-compact run: unknown option --bogus (see --help)'],
    [
      ['proxy', '--upstream', 'http://127.0.0.1:9', '--port', '-1'],
      'agent-compact proxy: --port must be a whole number from 0 to 65535, got "-1"',
    ],
    [['recall', '--bogus'], 'agent-compact recall: unknown option --bogus (see --help)'],
    [['mcp', '--bogus'], 'agent-compact mcp: unknown option --bogus (see --help)'],
  ])('%j: one line of its own, the usage line, exit 2', async (args, line) => {
    const { code, stdout, stderr } = await run(args);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    const { stdout: help } = await run([args[0]!, '--help']);
    const usage = help.split('\n')[0]!;
    expect(stderr).toBe(`${line}\n${usage}\n`);
    expect(stderr).not.toMatch(/Unknown option|ambiguous|ERR_PARSE_ARGS/);
  });
});

/** A file that opens but whose read fails (EIO on Linux): what a bad disk or a special file does. */
const UNREADABLE = '/proc/self/mem';

describe('a file that opens but cannot be read', () => {
  it.runIf(existsSync(UNREADABLE)).each([
    ['validate', UNREADABLE],
    ['validate', UNREADABLE, '--fix', '-o', 'out.json'],
    ['count', UNREADABLE],
    ['count', UNREADABLE, '--format', 'openai'],
    ['compact', UNREADABLE],
    ['simulate', UNREADABLE],
  ])('%s %s…: one line naming the file and why, exit 2', async (...args) => {
    const { code, stdout, stderr } = await run(args);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(`agent-compact ${args[0]}: ${UNREADABLE}: EIO: i/o error, read\n`);
  });
});

/** A conversation whose second message holds `é` saved as Latin-1 (0xe9): not UTF-8. */
const latin1 = (text: string) => Buffer.from(text, 'latin1');
const jsonl = `{"role":"user","content":"fix it"}\n{"role":"assistant","content":"caf\u00e9"}\n`;
const json = `{\n  "messages": [\n    {"role": "user", "content": "caf\u00e9"}\n  ]\n}\n`;
/** A whole request body, on one line as a proxy log holds it. */
const request = `{"model":"claude-sonnet-4-5","max_tokens":64,"messages":[{"role":"user","content":"caf\u00e9"}]}\n`;

describe('a file that is not UTF-8', () => {
  it.each([
    ['validate', 'chat.jsonl', jsonl, 2],
    ['count', 'chat.jsonl', jsonl, 2],
    ['compact', 'chat.jsonl', jsonl, 2],
    ['simulate', 'chat.jsonl', jsonl, 2],
    ['validate', 'chat.json', json, 3],
    ['count', 'chat.json', json, 3],
    ['compact', 'chat.json', json, 3],
    ['validate', 'request.json', request, 1],
    ['count', 'request.json', request, 1],
    ['compact', 'request.json', request, 1],
  ])(
    '%s %s: one line naming the file and line, exit 2, nothing written',
    async (command, file, text, line) => {
      const directory = tempDir('agent-compact-latin1-');
      writeFileSync(join(directory, file), latin1(text));
      const { output, io } = recordingIO(directory);
      const code = await main([command, file, ...(command === 'compact' ? ['-o', 'out.json'] : [])], io);
      // simulate names each transcript by its full path, as in its other messages.
      const named = command === 'simulate' ? join(directory, file) : file;
      expect(output.stderr).toBe(
        `agent-compact ${command}: ${named}:${line}: not UTF-8 text (save the file as UTF-8)\n`,
      );
      expect(code).toBe(2);
      expect(output.stdout).toBe('');
      expect(existsSync(join(directory, 'out.json'))).toBe(false);
    },
  );

  it('reads a character whose bytes span two reads of a large file', async () => {
    const directory = tempDir('agent-compact-utf8-');
    // 64 KiB reads: some `é` (two bytes) sit across a boundary.
    const text = `{"role":"user","content":"${'é'.repeat(100_000)}"}\n`;
    writeFileSync(join(directory, 'chat.jsonl'), text);
    const { output, io } = recordingIO(directory);
    expect(await main(['validate', 'chat.jsonl'], io)).toBe(0);
    expect(output.stdout).toBe('valid\n');
  });
});

describe('--help', () => {
  it.each(commands)('%s lists its exit codes', async (name) => {
    const { code, stdout } = await run([name, '--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/\nExit codes: .*\d/);
  });

  it.each(['validate', 'count', 'compact'])('%s names every --format, gemini included', async (name) => {
    const { stdout } = await run([name, '--help']);
    const formatLine = stdout.split('\n').find((line) => line.trimStart().startsWith('--format'));
    for (const format of ['anthropic', 'openai', 'responses', 'gemini']) expect(formatLine).toContain(format);
  });

  it.each(['validate', 'count'])('%s names every shape it reads in its description', async (name) => {
    const { stdout } = await run([name, '--help']);
    const description = stdout.split('\nOptions:')[0]!;
    for (const shape of ['Anthropic', 'OpenAI Chat', 'OpenAI Responses', 'Gemini'])
      expect(description).toContain(shape);
  });

  it.each(commands)('%s lists -h, --help among its options', async (name) => {
    const { stdout } = await run([name, '--help']);
    if (name === 'chat') expect(stdout).toContain('the options of agent-compact run');
    else expect(stdout).toMatch(/\n {2}-h, --help +show this help\n/);
  });

  it("run names each --provider's default model and window and the variable its key comes from", async () => {
    const { stdout } = await run(['run', '--help']);
    for (const provider of Object.values(agentProviders)) {
      const line = stdout.split('\n').find((text) => text.trimStart().startsWith(`${provider.name} `));
      expect(line, provider.name).toMatch(
        new RegExp(`^ +${provider.name} +${provider.model} +${provider.window} +${provider.keyVariable}$`),
      );
    }
  });

  // docs/cli.md's table and docs/proxy.md's synopsis are where a reader looks a flag up.
  it.each(['validate', 'count', 'compact', 'recall', 'proxy', 'mcp'])(
    "%s: docs/cli.md's table names every flag of its --help",
    async (name) => {
      const table = readFileSync(join(docs, 'cli.md'), 'utf8');
      const row = table.split('\n').find((line) => line.startsWith(`| \`${name} `));
      expect(row, `a row for ${name}`).toBeDefined();
      const { stdout } = await run([name, '--help']);
      expect(flagsIn(row!.split(' | ')[0]!)).toEqual(flagsIn(stdout));
    },
  );

  it("proxy: docs/proxy.md's synopsis names every flag of its --help", async () => {
    const proxyDoc = readFileSync(join(docs, 'proxy.md'), 'utf8');
    const synopsis = /```sh\n(agent-compact proxy [\s\S]*?)```/.exec(proxyDoc)?.[1] ?? '';
    const { stdout } = await run(['proxy', '--help']);
    expect(flagsIn(synopsis)).toEqual(flagsIn(stdout));
  });

  it('the command list names --version, which prints the published package’s version', async () => {
    const { stdout } = await run(['--help']);
    expect(stdout).toContain('agent-compact --version');
    const { version } = JSON.parse(readFileSync(join(docs, '../packages/proxy/package.json'), 'utf8')) as {
      version: string;
    };
    expect((await run(['--version'])).stdout).toBe(`${version}\n`);
  });

  it('the command list says where the exit codes are', async () => {
    const { code, stdout } = await run(['--help']);
    expect(code).toBe(0);
    expect(stdout).toContain('Exit codes: 2 an unknown command or bad arguments');
  });
});

describe('the published command (src/cli) beside the lab (src/lab)', () => {
  it('lists the proxy and library commands, not the lab’s, and says where a lab command is', async () => {
    const { output, io } = recordingIO(tempDir('agent-compact-usage-'));
    expect(await publishedMain(['--help'], io)).toBe(0);
    expect(output.stdout).toMatch(/\n {2}wrap {6}/);
    expect(output.stdout).not.toMatch(/\n {2}(simulate|run|chat) /);
    expect(await publishedMain(['simulate', 'x.jsonl'], io)).toBe(2);
    expect(output.stderr).toContain('lab: npm run lab -- simulate');
  });

  it('the lab’s command lists every command', async () => {
    const { stdout } = await run(['--help']);
    for (const name of commands) expect(stdout).toMatch(new RegExp(`\\n {2}${name} `));
  });
});
