import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { validateMessages } from '../core/conversation/validate.js';
import { createExtractiveSummaryModel } from '../core/summary/extractive-summary.js';
import { importTranscript } from '../importers/index.js';
import { createTiktokenCounter } from '../tokenizer/index.js';
import { simulate } from './simulate.js';

const examplePath = fileURLToPath(new URL('../../examples/session.jsonl', import.meta.url));
const generatorPath = fileURLToPath(new URL('./__fixtures__/make-example-session.mjs', import.meta.url));

describe('examples/session.jsonl', () => {
  it('is what the generator writes, under 1 MB', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [generatorPath], {
      maxBuffer: 8 * 1024 * 1024,
    });
    expect(stdout).toBe(await readFile(examplePath, 'utf8'));
    expect((await stat(examplePath)).size).toBeLessThan(1024 * 1024);
  });

  it('imports as a valid Anthropic conversation with a system prompt', async () => {
    const { conversation, meta } = importTranscript(await readFile(examplePath, 'utf8'), {
      source: examplePath,
    });
    expect(meta.format).toBe('anthropic');
    expect(typeof conversation.system).toBe('string');
    expect(validateMessages(conversation.messages)).toEqual([]);
    expect(
      conversation.messages.filter((message) => message.role === 'assistant').length,
    ).toBeGreaterThanOrEqual(60);
  });

  it('makes every layer of both compacting strategies fire at the thresholds npm start passes', async () => {
    const { conversation } = importTranscript(await readFile(examplePath, 'utf8'));
    const result = await simulate(
      [{ file: 'examples/session.jsonl', format: 'anthropic', transcript: conversation }],
      {
        summarizer: createExtractiveSummaryModel(),
        counter: createTiktokenCounter(),
        ...startThresholds(),
      },
    );
    for (const name of ['seed', 'agent-compact'] as const) {
      const { compactions } = result.total[name]!;
      expect(compactions.micro, name).toBeGreaterThan(0);
      expect(compactions.mid, name).toBeGreaterThan(0);
      expect(compactions.hard, name).toBeGreaterThan(0);
    }
    expect(result.total.none!.peakTokens).toBeGreaterThan(80_000);
  });
});

/** The --mid and --hard that `npm start` passes, read from package.json so the two cannot drift. */
function startThresholds(): { mid: number; hard: number } {
  const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  const match = /--mid (\d+) --hard (\d+)/.exec(packageJson.scripts.start);
  if (!match) throw new Error('npm start passes no --mid/--hard');
  return { mid: Number(match[1]), hard: Number(match[2]) };
}
