// Per-turn overhead of `maybeCompact` against the port of the seed's sketch, on a synthetic coding
// session that grows by one tool turn per call, at 100, 1,000 and 5,000 turns. Both carry their
// own compacted history forward, as an agent does, with the seed's thresholds (50,000 / 80,000)
// and the offline extractive summarizer. Only the compaction calls are timed.

import type { CompactionLayer, Message, TokenCounter } from 'agent-compact';
import { createCompactor, createExtractiveSummaryModel } from 'agent-compact';
import { createTiktokenCounter } from 'agent-compact/tokenizer';
import { createSeedStrategy } from '../../simulate/seed-strategy.js';

const sessionLengths = [100, 1_000, 5_000];

/** The two messages of synthetic turn `index`: a tool call and its result (about 600 tokens). */
function syntheticTurn(index: number): [Message, Message] {
  const path = `src/module_${index % 97}/file_${index}.ts`;
  const failed = index % 7 === 3;
  const lines = Array.from(
    { length: 40 },
    (_, line) =>
      `${String(line + 1).padStart(4)}  export function step${index}_${line}(value: number): number { return value * ${line}; }`,
  );
  return [
    {
      role: 'assistant',
      content: [
        {
          type: 'text',
          text: `Step ${index}: reading ${path} to check how the values are combined before the next edit.`,
        },
        {
          type: 'tool_use',
          id: `toolu_${index}`,
          name: index % 3 === 0 ? 'bash' : 'read_file',
          input: { path },
        },
      ],
    },
    {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: `toolu_${index}`,
          content: failed ? `Error: ${path}: no such file or directory\nexit code 1` : lines.join('\n'),
          ...(failed ? { is_error: true } : {}),
        },
      ],
    },
  ];
}

interface Measurement {
  microsecondsPerTurn: number;
  medianMicroseconds: number;
  layers: Record<CompactionLayer, number>;
  /** Mean µs of the calls where each layer was the strongest that changed something. */
  layerMicroseconds: Record<CompactionLayer, number>;
}

type Step = (messages: readonly Message[]) => Promise<{ messages: Message[]; layer: CompactionLayer }>;

async function measure(turns: number, step: Step): Promise<Measurement> {
  let history: Message[] = [
    { role: 'user', content: 'Refactor the value pipeline and keep the tests green.' },
  ];
  const durations: number[] = [];
  const layers: Record<CompactionLayer, number> = { none: 0, micro: 0, mid: 0, hard: 0 };
  const layerTotals: Record<CompactionLayer, number> = { none: 0, micro: 0, mid: 0, hard: 0 };
  for (let index = 0; index < turns; index++) {
    const started = process.hrtime.bigint();
    const result = await step(history);
    const duration = Number(process.hrtime.bigint() - started) / 1000;
    durations.push(duration);
    layers[result.layer]++;
    layerTotals[result.layer] += duration;
    const [call, answer] = syntheticTurn(index);
    history = [...result.messages, call, answer];
  }
  const sorted = [...durations].sort((left, right) => left - right);
  return {
    microsecondsPerTurn: durations.reduce((sum, value) => sum + value, 0) / durations.length,
    medianMicroseconds: sorted[Math.floor(sorted.length / 2)]!,
    layers,
    layerMicroseconds: {
      none: layerTotals.none / Math.max(1, layers.none),
      micro: layerTotals.micro / Math.max(1, layers.micro),
      mid: layerTotals.mid / Math.max(1, layers.mid),
      hard: layerTotals.hard / Math.max(1, layers.hard),
    },
  };
}

function agentCompactStep(counter?: TokenCounter): Step {
  const compactor = createCompactor({
    summarizer: createExtractiveSummaryModel(),
    ...(counter ? { counter } : {}),
  });
  return (messages) => compactor.maybeCompact(messages, { system: 'You are a coding agent.' });
}

function seedStep(): Step {
  const seed = createSeedStrategy({ summarizer: createExtractiveSummaryModel() });
  return (messages) => seed.maybeCompact(messages, { system: 'You are a coding agent.' });
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

function layersText({ layers, layerMicroseconds }: Measurement): string {
  return (['none', 'micro', 'mid', 'hard'] as const)
    .filter((layer) => layers[layer] > 0)
    .map((layer) => `${layer} ×${layers[layer]} at ${layerMicroseconds[layer].toFixed(0)} µs`)
    .join(', ');
}

/** Prints µs per turn of each strategy and the ratio, per session length. */
export async function run(): Promise<void> {
  const o200k = createTiktokenCounter();
  // Warm up the JIT and the tokenizer table on a whole session of the longest length, so every
  // layer's code (hard runs from about turn 600) is compiled before a row is timed: the rows
  // measure what each turn costs an agent that runs on, not the one-off compile of a process.
  const warmUpTurns = sessionLengths.at(-1)!;
  await measure(warmUpTurns, agentCompactStep());
  await measure(warmUpTurns, agentCompactStep(o200k));
  await measure(warmUpTurns, seedStep());
  console.log(
    'Per-turn cost of the compaction call on a synthetic session growing by one ~600-token tool turn',
  );
  console.log('per call, thresholds 50,000 / 80,000, extractive summarizer. Mean (median) µs per turn.\n');
  console.log(
    '| turns | agent-compact (heuristic counter, default) | agent-compact (o200k counter) | seed port (json//4) | seed ÷ agent-compact (default) |',
  );
  console.log('| ---: | ---: | ---: | ---: | ---: |');
  const details: string[] = [];
  for (const turns of sessionLengths) {
    gc();
    const heuristic = await measure(turns, agentCompactStep());
    gc();
    const tiktoken = await measure(turns, agentCompactStep(o200k));
    gc();
    const seed = await measure(turns, seedStep());
    const cell = (value: Measurement) =>
      `${value.microsecondsPerTurn.toFixed(0)} (${value.medianMicroseconds.toFixed(0)})`;
    console.log(
      `| ${turns.toLocaleString('en-US')} | ${cell(heuristic)} | ${cell(tiktoken)} | ${cell(seed)} | ${(seed.microsecondsPerTurn / heuristic.microsecondsPerTurn).toFixed(2)}× |`,
    );
    details.push(
      `${turns} turns, calls by strongest layer that changed something (mean µs):`,
      `  agent-compact default: ${layersText(heuristic)}`,
      `  agent-compact o200k:   ${layersText(tiktoken)}`,
      `  seed port:             ${layersText(seed)}`,
    );
  }
  console.log(`\n${details.join('\n')}`);
}
