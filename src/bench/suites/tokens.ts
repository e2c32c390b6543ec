// Token counting: speed of the incremental counter against the seed's `JSON.stringify(messages).length / 4`
// on every turn, and accuracy of every counter against the provider's reported prompt tokens, on the
// shared mini-swe-agent × Gemini 3 Pro runs replayed turn by turn. `npm run bench -- tokens`.

import type { Message, TokenCounter } from 'agent-compact';
import {
  createAnchoredCounter,
  createHeuristicCounter,
  createIncrementalCounter,
} from 'agent-compact/counters';
import { createTiktokenCounter } from 'agent-compact/tokenizer';
import {
  hasMiniSweAgentData,
  loadReplayRuns,
  miniSweAgentTrajectoriesDir,
  quantile,
  type ReplayRun,
  replayErrors,
} from '../mini-swe-agent-replay.js';

/** History sizes (provider prompt tokens before the turn) the per-turn cost is grouped by. */
const buckets = [
  { label: '0–10k', below: 10_000 },
  { label: '10k–20k', below: 20_000 },
  { label: '20k–40k', below: 40_000 },
  { label: '40k–60k', below: 60_000 },
  { label: '60k–70k', below: 70_000 },
  { label: '70k–90k (~80k)', below: 90_000 },
  { label: '90k+', below: Number.POSITIVE_INFINITY },
];

/** Per-turn times in milliseconds by method name (`seed` or a counter's name), and `new characters` per turn. */
interface BucketTimes {
  turns: number;
  milliseconds: Map<string, number[]>;
}

const passes = 3;

const emptyTimes = (): BucketTimes[] => buckets.map(() => ({ turns: 0, milliseconds: new Map() }));

/**
 * Replays every run as an agent loop does: one array that grows by the assistant message and the
 * tool output each turn, counted before every assistant turn. The seed's way serializes the whole
 * list; the incremental counters see the same array and tokenize only what is new.
 */
function timePass(runs: readonly ReplayRun[], counters: readonly TokenCounter[], times: BucketTimes[]): void {
  for (const run of runs) {
    const incremental = counters.map((counter) => createIncrementalCounter(counter));
    const systemMessages = run.system === undefined ? 0 : 1;
    const raw = run.rawMessages.slice(0, systemMessages);
    const messages: Message[] = [];
    for (const turn of run.turns) {
      let newCharacters = 0;
      while (messages.length < turn.messageCount) {
        const message = run.rawMessages[messages.length + systemMessages]!;
        newCharacters += message.content.length;
        raw.push(message);
        messages.push(run.messages[messages.length]!);
      }
      const bucket = times[buckets.findIndex(({ below }) => turn.providerTokens < below)]!;
      bucket.turns++;
      record(bucket, 'new characters', newCharacters);
      let started = performance.now();
      const seedCount = JSON.stringify(raw).length / 4;
      record(bucket, 'seed', performance.now() - started);
      for (const counter of incremental) {
        started = performance.now();
        const count = counter.count(messages, run.system);
        record(bucket, counter.counter.name, performance.now() - started);
        if (!(count > 0 && seedCount > 0)) throw new Error(`empty count in ${run.id}`);
      }
    }
  }
}

function record(bucket: BucketTimes, name: string, milliseconds: number): void {
  const list = bucket.milliseconds.get(name) ?? [];
  list.push(milliseconds);
  bucket.milliseconds.set(name, list);
}

type Statistic = 'mean' | 'median';

/**
 * Microseconds per turn in one bucket: each turn's time is the fastest of the passes (the work is
 * the same every pass, so anything slower is another process or a GC pause on a shared machine),
 * then the mean or median over the bucket's turns. `new characters` passes through unscaled.
 */
function perTurn(results: BucketTimes[][], index: number, name: string, statistic: Statistic): number {
  const lists = results.map((times) => times[index]!.milliseconds.get(name) ?? []);
  const fastest = lists[0]!.map((_, turn) => Math.min(...lists.map((list) => list[turn]!)));
  const value =
    statistic === 'mean'
      ? fastest.reduce((sum, time) => sum + time, 0) / fastest.length
      : quantile(fastest, 0.5);
  return name === 'new characters' ? value : value * 1000;
}

function printSpeed(runs: readonly ReplayRun[]): void {
  const counters = [createTiktokenCounter({ encoding: 'o200k' }), createHeuristicCounter()];
  const names = counters.map((counter) => counter.name);
  // One warm-up pass so the JIT has compiled every path, then `passes` timed passes.
  timePass(runs, counters, emptyTimes());
  const results: BucketTimes[][] = [];
  for (let pass = 0; pass < passes; pass++) {
    (globalThis as { gc?: () => void }).gc?.();
    const times = emptyTimes();
    timePass(runs, counters, times);
    results.push(times);
  }

  const turns = runs.reduce((sum, run) => sum + run.turns.length, 0);
  console.log(
    `Per-turn counting cost, ${runs.length} runs replayed turn by turn (${turns} turns). ` +
      'Time to count the whole prompt before each assistant turn, in µs, each turn the fastest of ' +
      `${passes} passes after a warm-up pass; ratio = seed ÷ incremental, both timed on the same turns.`,
  );
  for (const statistic of ['median', 'mean'] as const) {
    console.log(`\n${statistic} µs per turn:\n`);
    const header = [
      'history (provider tokens)',
      'turns',
      `new characters per turn (${statistic})`,
      'seed JSON.stringify(messages).length / 4',
      ...names.map((name) => `incremental ${name}`),
      ...names.map((name) => `ratio ${name}`),
    ];
    console.log(`| ${header.join(' | ')} |`);
    console.log(`|${' --- |'.repeat(header.length)}`);
    buckets.forEach((bucket, index) => {
      const turnsInBucket = results[0]![index]!.turns;
      if (turnsInBucket === 0) return;
      const seed = perTurn(results, index, 'seed', statistic);
      const cells = names.map((name) => perTurn(results, index, name, statistic).toFixed(1));
      const ratios = names.map((name) => `${(seed / perTurn(results, index, name, statistic)).toFixed(1)}×`);
      const newCharacters = Math.round(perTurn(results, index, 'new characters', statistic));
      console.log(
        `| ${bucket.label} | ${turnsInBucket} | ${newCharacters} | ${seed.toFixed(1)} | ${cells.join(' | ')} | ${ratios.join(' | ')} |`,
      );
    });
  }
}

function printAccuracy(runs: readonly ReplayRun[]): void {
  const percent = (values: number[], fraction: number) => `${(100 * quantile(values, fraction)).toFixed(2)}%`;
  const o200k = replayErrors(runs, createTiktokenCounter({ encoding: 'o200k' }));
  const heuristic = replayErrors(runs, createHeuristicCounter());
  const rows: [string, number[]][] = [
    ['chars/4 of JSON.stringify(messages) (seed)', o200k.charactersOver4],
    ['o200k, unanchored', o200k.unanchored],
    ['heuristic, unanchored', heuristic.unanchored],
    ['o200k, anchored to the previous turn', o200k.anchored],
    ['heuristic, anchored to the previous turn', heuristic.anchored],
  ];
  console.log(
    `\nAccuracy against the provider's prompt_tokens (Gemini tokenizer), ${runs.length} runs, ` +
      `${o200k.anchored.length} turns (|estimate − provider| ÷ provider; the anchored counter is fresh per run, ` +
      'so each run’s first turn is a local count):\n',
  );
  console.log('| counter | median error | p90 error | max error |');
  console.log('| --- | --- | --- | --- |');
  for (const [label, errors] of rows) {
    console.log(`| ${label} | ${percent(errors, 0.5)} | ${percent(errors, 0.9)} | ${percent(errors, 1)} |`);
  }
  const learned = createAnchoredCounter({ counter: createTiktokenCounter({ encoding: 'o200k' }) });
  const longest = runs.reduce((best, run) => (run.turns.length > best.turns.length ? run : best));
  for (const turn of longest.turns) {
    learned.observe(
      { prompt_tokens: turn.providerTokens },
      longest.messages.slice(0, turn.messageCount),
      longest.system,
    );
  }
  const { deltaRatio, overallRatio } = learned.calibration();
  console.log(
    `\nLearned on the longest run (${longest.id}, ${longest.turns.length} turns): ` +
      `delta ratio ${deltaRatio.toFixed(3)} Gemini tokens per o200k token, overall ratio ${overallRatio.toFixed(3)}.`,
  );
}

export async function run(): Promise<void> {
  if (!hasMiniSweAgentData()) {
    console.log(`skipped: the shared data folder ${miniSweAgentTrajectoriesDir} is absent`);
    return;
  }
  const runs = loadReplayRuns();
  printSpeed(runs);
  printAccuracy(runs);
}
