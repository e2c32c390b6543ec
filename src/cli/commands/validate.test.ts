import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTempDirs } from '../../temp-dirs.test-utils.js';
import { recordingIO } from '../cli-io.test-utils.js';
import { main } from '../main.js';

const tempDir = useTempDirs();

function fakeIO(cwd: string) {
  const { output, io } = recordingIO(cwd);
  return { io: output, cli: io };
}

let directory: string;

const validAnthropic = {
  system: 'Be brief.',
  messages: [
    { role: 'user', content: 'List the files.' },
    {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: 'ls' } }],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a.txt' }] },
    { role: 'assistant', content: 'One file: a.txt.' },
  ],
};

const brokenAnthropic = {
  messages: [
    { role: 'user', content: 'List the files.' },
    {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: 'ls' } }],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_9', content: 'a.txt' }] },
    { role: 'assistant', content: '' },
  ],
};

beforeAll(() => {
  directory = tempDir('agent-compact-validate-');
  writeFileSync(join(directory, 'valid.json'), JSON.stringify(validAnthropic));
  writeFileSync(join(directory, 'broken.json'), JSON.stringify(brokenAnthropic));
  writeFileSync(
    join(directory, 'openai.jsonl'),
    [
      { role: 'developer', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'ls', arguments: '{}' } }],
      },
    ]
      .map((message) => JSON.stringify(message))
      .join('\n'),
  );
  writeFileSync(
    join(directory, 'bad-json.json'),
    '{\n  "messages": [\n    {"role": "user",, "content": "x"}\n  ]\n}',
  );
  writeFileSync(
    join(directory, 'bad-type.json'),
    JSON.stringify({ messages: [{ role: 'user', content: 7 }] }),
  );
});

async function run(args: string[]) {
  const { io, cli } = fakeIO(directory);
  const code = await main(args, cli);
  return { code, ...io };
}

describe('agent-compact validate', () => {
  it('prints valid and exits 0 for a valid conversation', async () => {
    expect(await run(['validate', 'valid.json'])).toEqual({ code: 0, stdout: 'valid\n', stderr: '' });
  });

  it('prints one line per problem with its path and exits 1', async () => {
    const result = await run(['validate', 'broken.json']);
    expect(result.code).toBe(1);
    const lines = result.stdout.trim().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines.every((line) => /^messages\[\d+\]/.test(line))).toBe(true);
    expect(result.stdout).toContain('toolu_9');
  });

  it('prints JSON with --json', async () => {
    const result = await run(['validate', 'broken.json', '--json']);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as { valid: boolean; problems: Array<Record<string, string>> };
    expect(report.valid).toBe(false);
    expect(report.problems.length).toBeGreaterThan(0);
    for (const problem of report.problems)
      expect(Object.keys(problem).sort()).toEqual(['message', 'path', 'rule']);
    expect(JSON.parse((await run(['validate', 'valid.json', '--json'])).stdout)).toEqual({
      valid: true,
      problems: [],
    });
  });

  it('checks OpenAI input with the OpenAI rules, paths in the input', async () => {
    const result = await run(['validate', 'openai.jsonl']);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^messages\[2\]/);
    expect(result.stdout).toContain('c1');
  });

  it("keeps the input's own paths for OpenAI input with a top-level system or a system message midway", async () => {
    writeFileSync(
      join(directory, 'openai-system.json'),
      JSON.stringify({
        system: 'Be brief.',
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'system', content: 'Also be kind.' },
          { role: 'tool', tool_call_id: 'ghost', content: 'x' },
        ],
      }),
    );
    const result = await run(['validate', 'openai-system.json', '--format', 'openai']);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^messages\[2\]: .*ghost/);
  });

  it('repairs with --fix -o OUT in the input format and reports each change', async () => {
    const result = await run(['validate', 'broken.json', '--fix', '-o', 'fixed.json']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/repaired with \d+ change\(s\); wrote fixed\.json\n$/);
    expect((await run(['validate', 'fixed.json'])).stdout).toBe('valid\n');

    const openai = await run(['validate', 'openai.jsonl', '--fix', '-o', 'fixed.jsonl']);
    expect(openai.code).toBe(0);
    const lines = readFileSync(join(directory, 'fixed.jsonl'), 'utf8').trim().split('\n');
    expect(JSON.parse(lines[0]!)).toEqual({ role: 'developer', content: 'Be brief.' });
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ role: 'tool', tool_call_id: 'c1' });
    expect((await run(['validate', 'fixed.jsonl'])).stdout).toBe('valid\n');
  });

  it("names each --fix change of OpenAI input by the input's own paths", async () => {
    writeFileSync(
      join(directory, 'openai-fix.json'),
      JSON.stringify({
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'hi' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'c1', type: 'function', function: { name: 'ls', arguments: '{}' } },
              { id: 'c2', type: 'function', function: { name: 'pwd', arguments: '{}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'c1', content: 'a b' },
          { role: 'user', content: 'and?' },
          { role: 'tool', tool_call_id: 'c9', content: 'orphan' },
          { role: 'assistant', content: 'done' },
        ],
      }),
    );
    const result = await run(['validate', 'openai-fix.json', '--fix', '-o', 'openai-fixed.json']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        'messages[5]: merged into the user message before it (messages[3])',
        'messages[5]: dropped tool_result "c9": no tool_use in messages[2]',
        'messages[2].tool_calls[1]: added an is_error tool_result for tool_use "c2", whose result is missing',
        'repaired with 3 change(s); wrote openai-fixed.json',
        '',
      ].join('\n'),
    );
    const json = await run(['validate', 'openai-fix.json', '--fix', '-o', 'openai-fixed.json', '--json']);
    expect(JSON.parse(json.stdout).changes.map((change: { path: string }) => change.path)).toEqual([
      'messages[5]',
      'messages[5]',
      'messages[2].tool_calls[1]',
    ]);
  });

  it("names each --fix change of Responses input by the input's own items", async () => {
    writeFileSync(
      join(directory, 'responses-fix.json'),
      JSON.stringify({
        instructions: 'Be brief.',
        input: [
          { role: 'user', content: 'hi' },
          { type: 'function_call', call_id: 'c1', name: 'ls', arguments: '{}' },
          { type: 'function_call', call_id: 'c2', name: 'pwd', arguments: '{}' },
          { type: 'function_call_output', call_id: 'c1', output: 'a' },
          { role: 'user', content: [{ type: 'input_text', text: 'and?' }] },
          { type: 'function_call_output', call_id: 'c9', output: 'orphan' },
          { role: 'assistant', content: 'done' },
        ],
      }),
    );
    const result = await run(['validate', 'responses-fix.json', '--fix', '-o', 'responses-fixed.json']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        'input[5]: dropped tool_result "c9": no tool_use in input[1]',
        'input[2]: added an is_error tool_result for tool_use "c2", whose result is missing',
        'repaired with 2 change(s); wrote responses-fixed.json',
        '',
      ].join('\n'),
    );
  });

  it.each([
    [['validate', 'missing.json'], /^agent-compact validate: missing\.json: no such file\n$/],
    [['validate', 'bad-json.json'], /^agent-compact validate: bad-json\.json:3:21: broken JSON: .+\n$/],
    [
      ['validate', 'bad-type.json'],
      /^agent-compact validate: bad-type\.json: messages\[0\]\.content: expected string or array, got number\n$/,
    ],
    [
      ['validate', 'valid.json', '--bogus'],
      /^agent-compact validate: unknown option --bogus \(see --help\)\n/,
    ],
    [['validate'], /missing FILE/],
    [['validate', 'valid.json', '--fix'], /--fix needs -o OUT/],
    [['validate', 'valid.json', '--format', 'vertex'], /--format must be/],
    [['validate', '.'], /\.: is a directory/],
  ])('%j fails with exit 2 and one line', async (args, expected) => {
    const result = await run(args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(expected);
    // One line of its own; an argument mistake adds the command's usage line under it.
    const lines = result.stderr.trim().split('\n');
    expect(lines.filter((line) => !line.startsWith('Usage: agent-compact '))).toHaveLength(1);
  });

  it('prints its help with --help', async () => {
    const result = await run(['validate', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: agent-compact validate FILE');
  });
});

describe('the built bin', () => {
  const bin = join(import.meta.dirname, '../../../dist/cli/bin.js');
  it.skipIf(!existsSync(bin))('exits 0, 1 and 2 with one line and no stack trace', () => {
    const spawn = (args: string[]) =>
      spawnSync(process.execPath, [bin, ...args], { cwd: directory, encoding: 'utf8', timeout: 30_000 });
    expect(spawn(['validate', 'valid.json'])).toMatchObject({ status: 0, stdout: 'valid\n', stderr: '' });
    const invalid = spawn(['validate', 'broken.json']);
    expect(invalid.status).toBe(1);
    expect(invalid.stdout).toContain('toolu_9');
    for (const args of [
      ['validate', 'missing.json'],
      ['validate', 'bad-json.json'],
      ['count', 'bad-type.json'],
    ]) {
      const unreadable = spawn(args);
      expect(unreadable.status).toBe(2);
      expect(unreadable.stderr.trim().split('\n')).toHaveLength(1);
      expect(unreadable.stderr).not.toMatch(/\n\s+at /);
    }
  });
});

describe('agent-compact validate progress', () => {
  it('shows its progress on stderr when the work takes more than a couple of seconds', async () => {
    const lines = [{ system: validAnthropic.system }, ...validAnthropic.messages].map((line) =>
      JSON.stringify(line),
    );
    const folder = tempDir('agent-compact-validate-progress-');
    writeFileSync(join(folder, 'valid.jsonl'), `${lines.join('\n')}\n`);
    const { output, io } = recordingIO(folder);
    // Each reading of the clock is 3 s after the last, so the delay before progress is passed.
    let time = 0;
    io.now = () => {
      time += 3000;
      return time;
    };
    expect(await main(['validate', 'valid.jsonl'], io)).toBe(0);
    expect(output.stderr).toMatch(
      /^validate: [\d.]+ of [\d.]+ MB \(100%\)\nvalidate: checking 4 messages\n$/,
    );
  });
});
