/**
 * Bad input: every corpus entry (see bad-input-corpus.test-utils.ts) through the library
 * (parseConversation, validateMessages, createCompactor().maybeCompact on the parsed and on the raw
 * values) and through the CLI (`main` in-process, and a few through the built bin): a CompactError
 * with a code and a path — never a raw TypeError or RangeError — or, for odd but valid input, a
 * result; the CLI exits 1 (invalid conversation) or 2 (unreadable input) with one clear line and no
 * stack trace. (Timings are printed with RELIABILITY_TIMINGS=1; bounds on them belong in benchmarks.) Then a 200 MB JSONL session is counted by the built
 * CLI in a 150 MB heap, which only works when the file is streamed.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordingIO } from '../cli/cli-io.test-utils.js';
import { createMemoryArchiveStore } from '../core/archive/memory-archive-store.js';
import { createCompactor } from '../core/compactor.js';
import { parseConversation } from '../core/conversation/parse-conversation.js';
import { assertValidMessages, validateMessages } from '../core/conversation/validate.js';
import { CompactError } from '../core/model/errors.js';
import type { Conversation } from '../core/model/messages.js';
import { main } from '../lab/main.js';
import { type BadInput, badInputs } from './bad-input-corpus.test-utils.js';
import { builtBin, expectNothingLost, hasDist, removeDir, tempDir, timed } from './reliability.test-utils.js';

let directory: string;
beforeAll(async () => {
  directory = await tempDir('agent-compact-bad-input-');
  for (const entry of badInputs) await writeFile(join(directory, entry.file), entry.content());
});
afterAll(async () => {
  await removeDir(directory);
});

const textOf = (entry: BadInput) => {
  const content = entry.content();
  return typeof content === 'string' ? content : content.toString('utf8');
};

/** The raw value a careless caller might pass straight to maybeCompact. */
function rawMessagesOf(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) && 'messages' in value
      ? (value as { messages: unknown }).messages
      : value;
  } catch {
    try {
      return text
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as unknown);
    } catch {
      return undefined;
    }
  }
}

function expectCompactError(error: unknown, where: string): asserts error is CompactError {
  if (!CompactError.isInstance(error)) {
    throw new Error(
      `${where}: expected a CompactError, got ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
    );
  }
  expect(error.code, where).toMatch(/^[A-Z_]+$/);
  expect(error.message.includes('\n'), `${where}: one line`).toBe(false);
}

const compactor = () =>
  createCompactor({
    thresholds: { mid: 2000, hard: 4000 },
    micro: { cacheAware: false },
    // No backoff between summary tries: the corpus is about input, not summarizer faults.
    hard: { retryDelayMs: 1 },
    archive: createMemoryArchiveStore(),
    sessionId: 'bad-input',
  });

const noPollution = () => {
  const probe = {} as Record<string, unknown>;
  expect(probe.polluted).toBeUndefined();
  expect(Object.prototype).not.toHaveProperty('polluted');
};

describe(`bad input corpus (${badInputs.length} cases): the library`, () => {
  it('holds at least 40 malformed inputs', () => {
    expect(badInputs.filter((entry) => entry.kind !== 'odd').length).toBeGreaterThanOrEqual(40);
  });

  it.each(badInputs)('$kind: $name', async (entry) => {
    const text = textOf(entry);
    const parse = await timed(() => parseConversation(text, { source: entry.file }));
    if (process.env.RELIABILITY_TIMINGS) console.info(entry.name, 'parse', parse.ms);
    let conversation: Conversation | undefined;
    if (entry.kind === 'unreadable') {
      expectCompactError(parse.error, 'parseConversation');
      expect(parse.error.code).toBe('UNREADABLE_INPUT');
      expect(parse.error.path, 'an error names where').toMatch(
        new RegExp(`^${entry.file.replace(/\./g, '\\.')}`),
      );
    } else {
      if (parse.error) throw parse.error;
      conversation = parse.value?.conversation;
    }

    if (conversation) {
      const { messages, system } = conversation;
      const validation = await timed(() =>
        validateMessages(messages, system === undefined ? {} : { system }),
      );
      if (entry.kind === 'invalid') {
        expect(validation.value?.length).toBeGreaterThan(0);
        const assertion = await timed(() =>
          assertValidMessages(messages, system === undefined ? {} : { system }),
        );
        expectCompactError(assertion.error, 'assertValidMessages');
        expect(assertion.error.code).toBe('INVALID_TRANSCRIPT');
        expect(assertion.error.path).toMatch(/^(messages|system)/);
      } else {
        expect(validation.value).toEqual([]);
      }
      for (const force of [undefined, 'mid', 'hard'] as const) {
        const instance = compactor();
        const run = await timed(() =>
          instance.maybeCompact(messages, {
            ...(system === undefined ? {} : { system }),
            ...(force ? { force } : {}),
          }),
        );
        if (process.env.RELIABILITY_TIMINGS) console.info(entry.name, force, run.ms);
        if (run.error !== undefined) {
          expectCompactError(run.error, `maybeCompact(${force ?? 'auto'})`);
          // An odd but valid input whose latest request alone is over the hard threshold is refused
          // honestly: nothing compaction may remove would bring it under.
          if (!(entry.kind === 'odd' && force === undefined && isFixedPartOverflow(run.error)))
            expect(entry.kind, `${run.error.message}`).toBe('invalid');
        } else if (entry.kind === 'odd' && run.value) {
          // Valid input compacts to a valid request and loses nothing.
          expect(validateMessages(run.value.messages)).toEqual([]);
          await expectNothingLost(messages, run.value.messages, instance.archive, instance.sessionId);
        }
      }
    }

    // The raw values of malformed input, unchecked, straight into the compactor: a CompactError or
    // a result, never a raw error.
    const raw = entry.kind === 'odd' ? undefined : rawMessagesOf(text);
    if (raw !== undefined) {
      for (const force of [undefined, 'hard'] as const) {
        const run = await timed(() => compactor().maybeCompact(raw as never, force ? { force } : {}));
        if (run.error !== undefined) {
          expectCompactError(run.error, `maybeCompact(raw, ${force ?? 'auto'})`);
          if (run.error.code === 'INVALID_TRANSCRIPT') expect(run.error.path).toMatch(/^messages/);
        }
      }
    }
    noPollution();
  });
});

/** Whether the CLI, reading the file's bytes, refuses them: exit 2 with a line naming the file. */
const refusedAsUnreadable = (entry: BadInput) =>
  entry.kind === 'unreadable' || entry.unreadableBytes === true;

describe('bad input corpus: the CLI in-process', () => {
  const expectedExit = (entry: BadInput, command: 'validate' | 'count' | 'compact') =>
    refusedAsUnreadable(entry) ? 2 : entry.kind === 'invalid' && command !== 'count' ? 1 : 0;

  it.each(badInputs)('$kind: $name', async (entry) => {
    const commands = {
      validate: ['validate', entry.file],
      count: ['count', entry.file, '--tokenizer', 'heuristic'],
      compact: [
        'compact',
        entry.file,
        '--tokenizer',
        'heuristic',
        '--mid',
        '2000',
        '--hard',
        '4000',
        '-o',
        `${entry.file}.out`,
      ],
    } as const;
    for (const [command, args] of Object.entries(commands) as [keyof typeof commands, readonly string[]][]) {
      const { output, io } = recordingIO(directory);
      const run = await timed(() => main([...args], io));
      if (run.error) throw run.error;
      const where = `${command} ${entry.file}: ${output.stderr}`;
      if (command === 'compact' && entry.kind === 'odd' && fixedPartOverflowLine.test(output.stderr)) {
        // See above: the latest request alone is over --hard; one clear line, exit 2.
        expect(run.value, where).toBe(2);
        expect(output.stderr.trimEnd().split('\n'), where).toHaveLength(1);
        continue;
      }
      expect(run.value, where).toBe(expectedExit(entry, command));
      expect(output.stderr, where).not.toMatch(/\n\s+at |TypeError|RangeError|ReferenceError/);
      // Nothing from the input may drive the terminal.
      expect(output.stderr, where).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/);
      if (run.value !== 0 && command !== 'validate') {
        // One clear line: the command, where, what.
        expect(output.stderr.trimEnd().split('\n'), where).toHaveLength(1);
        expect(output.stderr, where).toMatch(new RegExp(`^agent-compact ${command}: `));
        // It says where: the file (unreadable) or the message path (invalid).
        expect(output.stderr, where).toMatch(refusedAsUnreadable(entry) ? entry.file : /messages\[\d+\]/);
      }
      if (command === 'validate' && run.value === 1) {
        for (const line of output.stdout.trimEnd().split('\n'))
          expect(line).toMatch(/^(messages|system)\S*: \S/);
      }
    }
    noPollution();
  });
});

function runBin(args: string[], options: { cwd: string; maxOldSpaceMb?: number }) {
  return new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    stderr: string;
    ms: number;
  }>((resolve, reject) => {
    const started = performance.now();
    const child = spawn(
      process.execPath,
      [
        ...(options.maxOldSpaceMb ? [`--max-old-space-size=${options.maxOldSpaceMb}`] : []),
        builtBin,
        ...args,
      ],
      { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('exit', (code, signal) =>
      resolve({ code, signal, stdout, stderr, ms: performance.now() - started }),
    );
  });
}

describe.skipIf(!hasDist)('bad input through the built bin', () => {
  it.each([
    { file: 'empty.json', command: 'validate', exit: 2 },
    { file: 'image.json', command: 'count', exit: 2 },
    { file: 'nested-deeper.json', command: 'compact', exit: 2 },
    { file: 'orphan-result.json', command: 'compact', exit: 1 },
    { file: 'missing-file.json', command: 'count', exit: 2 },
  ])('$command $file exits $exit with one line and no stack trace', async ({ file, command, exit }) => {
    const result = await runBin(
      [command, file, ...(command === 'validate' ? [] : ['--tokenizer', 'heuristic'])],
      {
        cwd: directory,
      },
    );
    expect(result.code, result.stderr).toBe(exit);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(
      new RegExp(`^agent-compact ${command}: (${file.replace(/\./g, '\\.')}|messages)`),
    );
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});

describe.skipIf(!hasDist)('memory stays bounded on a 200 MB JSONL session', () => {
  it('the built CLI counts it in a 150 MB heap (streamed, never read whole)', async () => {
    const folder = existsSync('/dev/shm') ? await tempDir('agent-compact-big-') : directory;
    const file = join(folder, 'big.jsonl');
    try {
      const stream = createWriteStream(file);
      const write = (text: string) =>
        new Promise<void>((resolve, reject) => {
          if (stream.write(text)) resolve();
          else stream.once('drain', resolve).once('error', reject);
        });
      const body = 'x'.repeat(1900);
      let size = 0;
      let turns = 0;
      await write(`${JSON.stringify({ role: 'user', content: 'Fix the tests.' })}\n`);
      while (size < 200 * 1024 * 1024) {
        turns += 1;
        const id = `toolu_${turns}`;
        const text =
          `${JSON.stringify({ role: 'assistant', content: [{ type: 'tool_use', id, name: 'bash', input: { command: `ls ${turns}` } }] })}\n` +
          `${JSON.stringify({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: `line ${turns} ${body}` }] })}\n`;
        await write(text);
        size += text.length;
      }
      await new Promise<void>((resolve, reject) =>
        stream.end((error?: Error | null) => (error ? reject(error) : resolve())),
      );
      const result = await runBin(['count', file, '--tokenizer', 'heuristic', '--json'], {
        cwd: folder,
        maxOldSpaceMb: 150,
      });
      expect(result.signal, result.stderr).toBeNull();
      expect(result.code, result.stderr).toBe(0);
      const counted = JSON.parse(result.stdout) as { messages: number; tokens: number };
      expect(counted.messages).toBe(1 + 2 * turns);
      expect(counted.tokens).toBeGreaterThan(size / 8);
      console.info(
        `200 MB JSONL (${(size / 1024 / 1024).toFixed(0)} MB, ${counted.messages} messages) counted in a 150 MB heap in ${(result.ms / 1000).toFixed(1)} s`,
      );
    } finally {
      if (folder !== directory) await removeDir(folder);
      else await writeFile(file, '');
    }
  });
});

it('the corpus files are what the cases say', async () => {
  const entry = badInputs.find((candidate) => candidate.file === 'proto.json');
  expect(entry && (await readFile(join(directory, entry.file), 'utf8'))).toContain('__proto__');
});

/** The compactor's refusal when the system prompt, tools and latest request alone are over hard. */
const fixedPartOverflowLine =
  /latest request \(\d+\) add up to \d+ tokens, over the hard threshold of \d+; compaction cannot remove any of them/;

function isFixedPartOverflow(error: { code?: string; message: string }): boolean {
  return error.code === 'CONTEXT_OVERFLOW' && fixedPartOverflowLine.test(error.message);
}
