import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importTranscriptFile } from '../importers/index.js';
import { createMemoryArchiveStore } from './archive/memory-archive-store.js';
import { rebuildConversation } from './archive/rebuild.js';
import { createCompactor } from './compactor.js';
import type { CompactResult } from './compactor-options.js';
import { validateMessages } from './conversation/validate.js';
import type { Message } from './model/messages.js';
import { createHeuristicCounter } from './tokens/heuristic-counter.js';

const dataDirectory = resolve(import.meta.dirname, '../../../shared/data/trajectories');
const miniSweAgent = join(dataDirectory, 'mini-swe-agent-gemini-3-pro-swebench-verified/trajs');
const sweAgent = join(dataDirectory, 'swe-agent-demonstrations');

function files(): string[] {
  if (!existsSync(miniSweAgent)) return [];
  // Every 6th run keeps the suite quick while covering short and long sessions; the benchmark replays all.
  const mini = readdirSync(miniSweAgent)
    .sort()
    .filter((_, index) => index % 6 === 0)
    .map((name) => join(miniSweAgent, name));
  const swe = readdirSync(sweAgent, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.traj'))
    .map((name) => join(sweAgent, name));
  return [...mini, ...swe];
}

const runs = files();

const sessionsDirectory = resolve(import.meta.dirname, '../../../shared/data/sessions');

/** The real Claude Code sessions and Codex rollouts, with their thinking, images and harness shapes. */
function sessionFiles(): string[] {
  if (!existsSync(sessionsDirectory)) return [];
  return readdirSync(sessionsDirectory, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.jsonl'))
    .sort()
    .map((name) => join(sessionsDirectory, name));
}

const sessions = sessionFiles();

/**
 * Replays `file` turn by turn through a compactor at mid 8,000 / hard 16,000, as an agent calls it
 * before each model call: every request validates and never grows, `check` sees each result, and
 * the original is rebuilt from the output and the archive. Returns the calls that compacted.
 */
async function replay(
  file: string,
  check: (result: CompactResult, history: readonly Message[]) => void = () => {},
): Promise<number> {
  const { conversation } = await importTranscriptFile(file);
  const store = createMemoryArchiveStore();
  const compactor = createCompactor({
    thresholds: { mid: 8000, hard: 16_000 },
    archive: store,
    counter: createHeuristicCounter(),
  });
  const original: Message[] = [];
  let history: Message[] = [];
  let compactions = 0;
  for (const message of conversation.messages) {
    original.push(message);
    history = [...history, message];
    if (message.role !== 'user') continue;
    const result = await compactor.maybeCompact(
      history,
      conversation.system === undefined ? {} : { system: conversation.system },
    );
    if (result.layer !== 'none') compactions++;
    const problems = validateMessages(result.messages);
    expect(problems, `${file}: ${problems[0]?.path} ${problems[0]?.message}`).toEqual([]);
    expect(result.tokensAfter).toBeLessThanOrEqual(result.tokensBefore);
    check(result, history);
    history = result.messages;
  }
  expect(rebuildConversation(history, await store.list(compactor.sessionId)), file).toEqual(original);
  return compactions;
}

describe.skipIf(runs.length === 0)('the compactor on the shared agent runs (../shared/data)', () => {
  if (runs.length === 0) console.warn('skipped: ../shared/data/trajectories is absent');

  it(`replays ${runs.length} runs turn by turn with every invariant holding`, async () => {
    let compactions = 0;
    for (const file of runs) {
      compactions += await replay(file, (result, history) => {
        // The latest human request is kept, and the last message is the one the model answers.
        expect(result.messages.at(-1)?.role).toBe('user');
        if (result.layer === 'hard')
          expect(result.tokensAfter).toBeLessThanOrEqual(16_000 + 2 * tokensOfLastTurn(history));
      });
    }
    expect(compactions).toBeGreaterThan(runs.length);
  });
});

function tokensOfLastTurn(history: readonly Message[]): number {
  const counter = createHeuristicCounter();
  return history
    .slice(-2)
    .reduce((sum, message) => sum + counter.countText(JSON.stringify(message.content)), 0);
}

describe.skipIf(sessions.length === 0)('the compactor on the shared Claude Code and Codex sessions', () => {
  if (sessions.length === 0) console.warn('skipped: ../shared/data/sessions is absent');

  it(`replays ${sessions.length} sessions: every request valid, the original rebuilt from the archive`, async () => {
    let compactions = 0;
    for (const file of sessions) compactions += await replay(file);
    expect(compactions).toBeGreaterThan(sessions.length);
  });
});
