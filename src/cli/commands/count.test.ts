import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Message } from '../../core/model/messages.js';
import { createHeuristicCounter } from '../../core/tokens/heuristic-counter.js';
import { countMessageTokens, countSystemTokens } from '../../core/tokens/message-tokens.js';
import { useTempDirs } from '../../temp-dirs.test-utils.js';
import { setTokenizerPackage } from '../../tokenizer/load-tokenizer.js';
import { recordingIO } from '../cli-io.test-utils.js';
import { main } from '../main.js';

const tempDir = useTempDirs();

let directory: string;

const system = 'You are a careful coding agent.';
const messages: Message[] = [
  { role: 'user', content: 'List the files in the repository, please.' },
  {
    role: 'assistant',
    content: [{ type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: 'ls -la' } }],
  },
  {
    role: 'user',
    content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'README.md\nsrc\npackage.json' }],
  },
  { role: 'assistant', content: 'Three entries: README.md, src and package.json.' },
];

beforeAll(() => {
  directory = tempDir('agent-compact-count-');
  writeFileSync(join(directory, 'chat.json'), JSON.stringify({ system, messages }));
  writeFileSync(join(directory, 'chat.jsonl'), messages.map((message) => JSON.stringify(message)).join('\n'));
  writeFileSync(
    join(directory, 'openai.json'),
    JSON.stringify([
      { role: 'system', content: system },
      { role: 'user', content: 'List the files in the repository, please.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'toolu_1', type: 'function', function: { name: 'bash', arguments: '{"command":"ls -la"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'README.md\nsrc\npackage.json' },
      { role: 'assistant', content: 'Three entries: README.md, src and package.json.' },
    ]),
  );
  writeFileSync(
    join(directory, 'bad-type.jsonl'),
    '{"role":"user","content":"a"}\n\n{"role":"assistant","content":5}\n',
  );
  writeFileSync(join(directory, 'broken.jsonl'), '{"role":"user","content":"a"}\n{"role":"assistant",\n');
});

async function run(args: string[]) {
  const { output, io } = recordingIO(directory);
  const code = await main(args, io);
  return { code, ...output };
}

describe('agent-compact count', () => {
  it('counts with the heuristic exactly as countMessageTokens and countSystemTokens do', async () => {
    const counter = createHeuristicCounter();
    const systemTokens = countSystemTokens(system, counter);
    const expected = messages.reduce(
      (sum, message) => sum + countMessageTokens(message, counter),
      systemTokens,
    );
    const result = await run(['count', 'chat.json', '--json', '--tokenizer', 'heuristic']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      tokens: expected,
      messages: 4,
      system: systemTokens,
      tools: 0,
      tokenizer: 'heuristic',
      format: 'anthropic',
    });
  });

  it('counts with o200k by default and cl100k on request', async () => {
    const o200k = JSON.parse((await run(['count', 'chat.json', '--json'])).stdout) as Record<string, unknown>;
    expect(o200k.tokenizer).toBe('o200k');
    expect(o200k.tokens).toBeGreaterThan(30);
    const cl100k = JSON.parse((await run(['count', 'chat.json', '--json', '--tokenizer', 'cl100k'])).stdout);
    expect(cl100k.tokenizer).toBe('cl100k');
    expect(typeof cl100k.tokens).toBe('number');
  });

  it('gives the same count for the same conversation as Anthropic JSON and OpenAI JSON', async () => {
    const anthropic = JSON.parse((await run(['count', 'chat.json', '--json'])).stdout);
    const openai = JSON.parse((await run(['count', 'openai.json', '--json'])).stdout);
    expect(openai.format).toBe('openai');
    expect(openai.tokens).toBe(anthropic.tokens);
  });

  it('reads JSONL line by line', async () => {
    const result = JSON.parse(
      (await run(['count', 'chat.jsonl', '--json', '--tokenizer', 'heuristic'])).stdout,
    );
    expect(result).toMatchObject({ messages: 4, system: 0 });
  });

  it('prints one line of text without --json', async () => {
    const result = await run(['count', 'chat.json', '--tokenizer', 'heuristic']);
    expect(result.stdout).toMatch(/^\d+ tokens \(4 messages, system \d+; heuristic, anthropic\)\n$/);
  });

  it.each([
    [['count', 'broken.jsonl'], /^agent-compact count: broken\.jsonl:2:\d+: broken JSON/],
    [
      ['count', 'bad-type.jsonl'],
      /^agent-compact count: bad-type\.jsonl:3: messages\[1\]\.content: expected string or array, got number$/,
    ],
    [['count', 'nope.json'], /^agent-compact count: nope\.json: no such file$/],
    [['count', 'chat.json', '--tokenizer', 'gpt2'], /--tokenizer must be "o200k", "cl100k" or "heuristic"/],
    [['count', 'chat.json', '-x'], /^agent-compact count: unknown option -x \(see --help\)\n/],
    [['count', 'a.json', 'b.json'], /unexpected argument "b\.json"/],
  ])('%j fails with exit 2 and one line', async (args, expected) => {
    const result = await run(args);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toMatch(expected);
    // One line of its own; an argument mistake adds the command's usage line under it.
    const lines = result.stderr.trim().split('\n');
    expect(lines.filter((line) => !line.startsWith('Usage: agent-compact '))).toHaveLength(1);
  });

  it('prints its help with --help', async () => {
    const result = await run(['count', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('--tokenizer TOKENIZER');
  });
});

describe('agent-compact count without gpt-tokenizer', () => {
  afterEach(() => setTokenizerPackage('gpt-tokenizer'));

  it('counts with the heuristic and, when a tokenizer was asked for, says how to install it', async () => {
    setTokenizerPackage('agent-compact-no-such-tokenizer');
    const asked = await run(['count', 'chat.json', '--json', '--tokenizer', 'o200k']);
    const heuristic = await run(['count', 'chat.json', '--json', '--tokenizer', 'heuristic']);
    expect(asked.code).toBe(0);
    expect(JSON.parse(asked.stdout)).toEqual(JSON.parse(heuristic.stdout));
    expect(asked.stderr).toBe(
      'note: --tokenizer o200k needs gpt-tokenizer (npm install gpt-tokenizer); counting with the anchored heuristic\n',
    );
    const unasked = await run(['count', 'chat.json', '--json']);
    expect(JSON.parse(unasked.stdout).tokenizer).toBe('heuristic');
    expect(unasked.stderr).toBe('');
  });
});
