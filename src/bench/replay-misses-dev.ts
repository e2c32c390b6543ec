/**
 * A development look at the next-need probe in the replays (`node dist/bench/replay-misses-dev.js
 * [dir] [--window N | --mid N --hard N] [--items]` after `npm run build`): agent-compact replayed
 * over every transcript under `dir` (the shared trajectories at mid 8,000 / hard 16,000 by
 * default), and at each request a layer changed, the share of the items the agent used next still
 * visible, by layer and kind, and the items missed most often. `--items` lists each missed item
 * with its file and turn. The `replay` bench suite prints the shares beside the peers'.
 */
import { readdir } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createExtractiveSummaryModel } from 'agent-compact';
import { importTranscriptFile } from 'agent-compact/importers';
import { resolveSettings } from 'agent-compact/internal';
import { createTiktokenCounter } from 'agent-compact/tokenizer';
import { defaultPriceTable } from '../proxy/price-table.js';
import { createNextNeedProbe } from '../simulate/next-need.js';
import { createRequestTokenCounter } from '../simulate/prompt-cache.js';
import { replayTranscript } from '../simulate/replay.js';
import { createReplayStrategy } from '../simulate/replay-strategies.js';
import { simulationInputOf } from '../simulate/simulate.js';
import { defaultLatencyModel, defaultReplayClock } from '../simulate/timing.js';

const counter = createTiktokenCounter();

async function transcriptFiles(directory: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) found.push(...(await transcriptFiles(path)));
    else if (/\.(jsonl|traj|traj\.json)$/.test(entry.name)) found.push(path);
  }
  return found.sort();
}

/** Visible and total items per `layer kind`, and how often each missed item was missed. */
interface Totals {
  shares: Map<string, { visible: number; total: number }>;
  missed: Map<string, number>;
}

async function replayFile(
  path: string,
  label: string,
  thresholds: { mid?: number; hard?: number; window?: number },
  totals: Totals,
  listItems: boolean,
): Promise<void> {
  const imported = await importTranscriptFile(path).catch(() => undefined);
  if (imported === undefined) return;
  const input = simulationInputOf(label, imported);
  const { messages } = input.transcript;
  const probe = createNextNeedProbe({ messages });
  const assistantIndexes = messages.flatMap((message, index) =>
    message.role === 'assistant' ? [index] : [],
  );
  const tokens = createRequestTokenCounter(counter);
  const strategy = createReplayStrategy('agent-compact', {
    summarizer: createExtractiveSummaryModel(),
    counter,
    tokens,
    ...thresholds,
    cacheTtlSeconds: defaultReplayClock.cacheTtlSeconds,
    latency: defaultLatencyModel,
    ...(input.compactions === undefined ? {} : { compactions: input.compactions }),
  });
  await replayTranscript(input.transcript, {
    strategy,
    tokens,
    prices: defaultPriceTable,
    onRequest(turn, request, layer) {
      if (layer === 'none') return;
      for (const item of probe.items(assistantIndexes[turn]!, request)) {
        const key = `${layer} ${item.kind}`;
        const share = totals.shares.get(key) ?? { visible: 0, total: 0 };
        share.total++;
        if (item.visible) share.visible++;
        totals.shares.set(key, share);
        if (item.visible) continue;
        const missed = `${item.kind} ${item.text.slice(0, 80)}`;
        totals.missed.set(missed, (totals.missed.get(missed) ?? 0) + 1);
        if (listItems) console.log(`${label} t${turn} ${layer} ${item.kind}: ${item.text.slice(0, 100)}`);
      }
    },
  });
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      window: { type: 'string' },
      mid: { type: 'string', default: '8000' },
      hard: { type: 'string', default: '16000' },
      items: { type: 'boolean', default: false },
    },
  });
  const directory = resolve(positionals[0] ?? '../shared/data/trajectories');
  const window = values.window === undefined ? undefined : Number(values.window);
  // As `simulate --window`: the thresholds agent-compact derives from the window.
  const thresholds =
    window === undefined
      ? { mid: Number(values.mid), hard: Number(values.hard) }
      : { window, ...resolveSettings({ contextWindow: window }).limits };
  const totals: Totals = { shares: new Map(), missed: new Map() };
  for (const file of await transcriptFiles(directory))
    await replayFile(file, relative(directory, file), thresholds, totals, values.items);
  console.log(`\nnext need at agent-compact's points in ${directory}, by layer and kind`);
  for (const [key, { visible, total }] of [...totals.shares].sort())
    console.log(
      `  ${key.padEnd(24)} ${((100 * visible) / total).toFixed(1).padStart(5)}% (${visible}/${total})`,
    );
  console.log('\nmissed most often');
  for (const [item, count] of [...totals.missed].sort((left, right) => right[1] - left[1]).slice(0, 25))
    console.log(`  ${String(count).padStart(5)}  ${item}`);
}

await main();
