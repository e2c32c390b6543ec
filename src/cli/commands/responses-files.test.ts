import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { codexLikeInput, encryptedSample } from '../../core/conversation/responses-input.test-utils.js';
import { useTempDirs } from '../../temp-dirs.test-utils.js';
import { recordingIO } from '../cli-io.test-utils.js';
import { main } from '../main.js';

const tempDir = useTempDirs();

let directory: string;

async function run(args: string[]) {
  const { output, io } = recordingIO(directory);
  const code = await main(args, io);
  return { code, ...output };
}

beforeAll(() => {
  directory = tempDir('agent-compact-responses-');
  writeFileSync(
    join(directory, 'codex.json'),
    JSON.stringify({ instructions: 'You are Codex.', input: codexLikeInput() }),
  );
  writeFileSync(
    join(directory, 'codex.jsonl'),
    codexLikeInput()
      .map((item) => JSON.stringify(item))
      .join('\n'),
  );
  // The same session with a long test log: large enough that a summary frees what it costs.
  const long = codexLikeInput().map((item) =>
    item.type === 'function_call_output'
      ? { ...item, output: `${item.output}${'  at sum (src/sum.ts:2:10)\n'.repeat(300)}` }
      : item,
  );
  writeFileSync(
    join(directory, 'codex-long.json'),
    JSON.stringify({ instructions: 'You are Codex.', input: long }),
  );
  const broken = codexLikeInput().filter((item) => item.type !== 'function_call');
  writeFileSync(join(directory, 'orphan.json'), JSON.stringify({ input: broken }));
  // A turn the user interrupted: its reasoning item is followed by the next user message.
  const interrupted = [
    ...codexLikeInput().slice(0, 3),
    { type: 'reasoning', id: 'rs_cut', summary: [], encrypted_content: `${encryptedSample}cut` },
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Stop, do it differently.' }] },
  ];
  writeFileSync(join(directory, 'interrupted.json'), JSON.stringify({ input: interrupted }));
  writeFileSync(
    join(directory, 'unreadable.json'),
    JSON.stringify({ input: [{ type: 'function_call', call_id: 'c1' }] }),
  );
  writeFileSync(
    join(directory, 'plain.json'),
    JSON.stringify([
      { role: 'developer', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
    ]),
  );
});

describe('CLI on Responses files', () => {
  it('validate: a Codex-like input is valid, JSON and JSONL', async () => {
    expect(await run(['validate', 'codex.json'])).toEqual({ code: 0, stdout: 'valid\n', stderr: '' });
    expect((await run(['validate', 'codex.jsonl'])).code).toBe(0);
    // Read whole, not streamed as Anthropic lines: its items are Responses items.
    expect((await run(['count', 'codex.jsonl', '--tokenizer', 'heuristic'])).stdout).toMatch(
      /responses\)\n$/,
    );
  });

  it('validate: an output without its call exits 1 with its path in the input', async () => {
    const result = await run(['validate', 'orphan.json']);
    expect(result.code).toBe(1);
    expect(result.stdout.split('\n')).toEqual([
      'input[3]: reasoning item "rs_001" is followed by input[4]; it must stay directly before the message or call it produced',
      'input[4]: function_call_output "call_001" answers no earlier function_call',
      '',
    ]);
  });

  it('validate: an unreadable item exits 2 with one line', async () => {
    const result = await run(['validate', 'unreadable.json']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('unreadable.json: input[0]');
    expect(result.stderr).toContain('function_call needs a string name, a string arguments');
  });

  it('compact refuses an invalid Responses file with exit 1 and one line', async () => {
    const result = await run(['compact', 'orphan.json', '--tokenizer', 'heuristic']);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('input[3]');
  });

  it('validate --fix writes a Responses file the API accepts', async () => {
    const result = await run(['validate', 'orphan.json', '--fix', '-o', 'fixed.json']);
    expect(result.code, result.stderr).toBe(0);
    const fixed = JSON.parse(readFileSync(join(directory, 'fixed.json'), 'utf8')) as {
      input: Array<{ type?: string }>;
    };
    expect(fixed.input.filter((item) => item.type === 'reasoning')).toHaveLength(2);
    expect((await run(['validate', 'fixed.json'])).stdout).toBe('valid\n');
  });

  it('validate --fix drops a reasoning item its turn left behind', async () => {
    expect((await run(['validate', 'interrupted.json'])).stdout).toMatch(
      /^input\[3\]: reasoning item "rs_cut"/,
    );
    const result = await run(['validate', 'interrupted.json', '--fix', '-o', 'fixed-interrupted.json']);
    expect(result.code, result.stdout).toBe(0);
    const fixed = readFileSync(join(directory, 'fixed-interrupted.json'), 'utf8');
    expect(fixed).not.toContain('rs_cut');
    expect(fixed).toContain('Stop, do it differently.');
    expect((await run(['validate', 'fixed-interrupted.json'])).stdout).toBe('valid\n');
  });

  it('--format responses reads a plain array as Responses input', async () => {
    const forced = await run([
      'count',
      'plain.json',
      '--format',
      'responses',
      '--json',
      '--tokenizer',
      'heuristic',
    ]);
    expect(forced.code).toBe(0);
    const wrong = await run(['count', 'plain.json', '--format', 'vertex']);
    expect(wrong).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('"anthropic", "openai", "responses" or "gemini"'),
    });
  });

  it('compact --force hard writes a Responses file back, reasoning of the kept turn untouched', async () => {
    const result = await run([
      'compact',
      'codex-long.json',
      '--force',
      'hard',
      '--tokenizer',
      'heuristic',
      '-o',
      'out.json',
    ]);
    expect(result.code).toBe(0);
    const written = JSON.parse(readFileSync(join(directory, 'out.json'), 'utf8')) as {
      instructions: string;
      input: Array<Record<string, unknown>>;
    };
    expect(written.instructions).toBe('You are Codex.');
    expect(written.input[0]).toEqual(codexLikeInput()[0]);
    expect((await run(['validate', 'out.json'])).code).toBe(0);
    expect(JSON.stringify(written)).not.toContain(`${encryptedSample}1`);
  });
});
