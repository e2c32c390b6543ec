// `gpt-tokenizer` is an optional peer: the current setup installs it, the previous one does not.
// With it the tokenizer subpath and `count` use the BPE tables; without it the subpath says how to
// install it and `count` falls back to the heuristic with a one-line note.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { createTiktokenCounter } from 'agent-compact/tokenizer';
import { has } from './_support.mjs';

const installed = has('gpt-tokenizer/encoding/o200k_base');

test(`agent-compact/tokenizer ${installed ? 'counts with gpt-tokenizer' : 'says how to install gpt-tokenizer'}`, () => {
  if (installed) {
    assert.equal(createTiktokenCounter().countText('Hello, world!'), 4);
  } else {
    assert.throws(() => createTiktokenCounter(), {
      code: 'MISSING_DEPENDENCY',
      message: /npm install gpt-tokenizer/,
    });
  }
});

test('agent-compact count --tokenizer o200k', async (t) => {
  const directory = await mkdtemp(path.join(tmpdir(), 'compat-tokenizer-'));
  t.after(() => rm(directory, { recursive: true, force: true }));
  await writeFile(
    path.join(directory, 'chat.json'),
    JSON.stringify([{ role: 'user', content: 'Hello, world!' }]),
  );
  const bin = path.resolve('node_modules', '.bin', 'agent-compact');
  const { stdout, stderr } = await promisify(execFile)(
    bin,
    ['count', 'chat.json', '--json', '--tokenizer', 'o200k'],
    {
      cwd: directory,
    },
  );
  assert.equal(JSON.parse(stdout).tokenizer, installed ? 'o200k' : 'heuristic');
  assert.equal(/npm install gpt-tokenizer/.test(stderr), !installed);
});
