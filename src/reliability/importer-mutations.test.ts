/**
 * Importers on damaged real files: the importer fixtures and a few shared sessions and
 * trajectories, each with fields removed, nulled or retyped and lines dropped at random (a fixed
 * seed), read by `importTranscript` and compacted. Every outcome is a transcript the compactor
 * turns into a valid request, or a `CompactError` whose path starts with the file's name (and the
 * line, for line formats): never a raw TypeError, never an index into the converted conversation
 * that names no place in the file.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCompactor } from '../core/compactor.js';
import { CompactError } from '../core/model/errors.js';
import { importTranscript } from '../importers/index.js';
import { expectValidRequest, random } from './reliability.test-utils.js';

const SEED = 20261206;
const MUTATIONS_PER_FILE = 3;
const fixtures = resolve(import.meta.dirname, '../importers/__fixtures__');
const shared = resolve(import.meta.dirname, '../../../shared/data');

/** The value with a few of its fields removed, set to null, to a number or to a string. */
function damaged(value: unknown, next: () => number): unknown {
  if (Array.isArray(value)) return value.filter(() => next() > 0.05).map((item) => damaged(item, next));
  if (typeof value !== 'object' || value === null) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    const roll = next();
    if (roll < 0.03) continue;
    copy[key] = roll < 0.05 ? null : roll < 0.06 ? 42 : roll < 0.07 ? 'x' : damaged(field, next);
  }
  return copy;
}

function damagedText(text: string, jsonLines: boolean, next: () => number): string {
  if (!jsonLines) return JSON.stringify(damaged(JSON.parse(text), next));
  return text
    .split('\n')
    .filter((line) => line.trim() === '' || next() > 0.02)
    .map((line) => {
      try {
        return JSON.stringify(damaged(JSON.parse(line), next));
      } catch {
        // Blank, or two objects on one line (a shared rollout has one): left as it is.
        return line;
      }
    })
    .join('\n');
}

function firstFiles(directory: string, count: number, pattern: RegExp): string[] {
  if (!existsSync(directory)) return [];
  return readdirSync(directory)
    .filter((name) => pattern.test(name))
    .sort()
    .slice(0, count)
    .map((name) => join(directory, name));
}

const sharedFiles = [
  ...firstFiles(join(shared, 'sessions/claude-code-entireio-cli'), 3, /\.jsonl$/),
  ...firstFiles(join(shared, 'sessions/codex-entireio-git-sync'), 4, /\.jsonl$/),
  ...firstFiles(
    join(shared, 'trajectories/mini-swe-agent-gemini-3-pro-swebench-verified/trajs'),
    5,
    /\.json$/,
  ),
  ...firstFiles(join(shared, 'trajectories/swe-agent-demonstrations'), 5, /\.traj$/),
];

async function expectReadOrLocated(file: string, seed: number): Promise<void> {
  const name = file.split('/').at(-1)!;
  const source = `damaged-${seed}-${name}`;
  const text = damagedText(readFileSync(file, 'utf8'), file.endsWith('.jsonl'), random(seed));
  let imported: ReturnType<typeof importTranscript>;
  try {
    imported = importTranscript(text, { source });
  } catch (error) {
    expect(CompactError.isInstance(error), `${source}: ${String(error)}`).toBe(true);
    expect((error as CompactError).path ?? '', (error as Error).message).toMatch(new RegExp(`^${source}\\b`));
    return;
  }
  const { messages, system } = imported.conversation;
  if (messages.length === 0) return;
  const result = await createCompactor().maybeCompact(messages, {
    force: 'hard',
    ...(system === undefined ? {} : { system }),
  });
  expectValidRequest(result.messages, system);
}

describe('importers on damaged files: read, or a typed error naming the file', () => {
  const fixtureFiles = firstFiles(fixtures, 50, /\.jsonl?$/);

  it(`the ${fixtureFiles.length} importer fixtures, ${MUTATIONS_PER_FILE} damaged copies each`, async () => {
    expect(fixtureFiles.length).toBeGreaterThan(5);
    for (const file of fixtureFiles)
      for (let copy = 0; copy < MUTATIONS_PER_FILE; copy++) await expectReadOrLocated(file, SEED + copy);
  });

  it.skipIf(sharedFiles.length === 0)(
    'shared Claude Code sessions, Codex rollouts and trajectories (../shared present)',
    async () => {
      for (const file of sharedFiles)
        for (let copy = 0; copy < MUTATIONS_PER_FILE; copy++) await expectReadOrLocated(file, SEED + copy);
    },
  );
});
