// Checks that compaction never costs more than it saves: every shared transcript (the Claude Code
// sessions and Codex rollouts in ../shared/data/sessions, the agent runs in ../shared/data/trajectories)
// replayed as `agent-compact simulate` does, at --mid 8000 --hard 16000 and at --window 200000,
// through none, agent-compact and the peer policies. Prints the worst ratios per transcript —
// agent-compact ÷ none (target ≤ 1) and agent-compact ÷ the cheapest peer (target ≤ 1.1) — and
// mid's cache rewrites per 100 turns. `MID_COST_FILTER=REGEX` replays only the matching files.
import { readdir, stat } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { createExtractiveSummaryModel } from 'agent-compact';
import { importTranscriptFile } from 'agent-compact/importers';
import { createTiktokenCounter } from 'agent-compact/tokenizer';
import { defaultPriceTable } from '../../proxy/price-table.js';
import { midRewritesPer100Turns } from '../../simulate/format-results.js';
import { billRequest } from '../../simulate/prompt-cache.js';
import type { StrategySummary } from '../../simulate/replay.js';
import { peerNames } from '../../simulate/replay-strategies.js';
import type { StrategyName } from '../../simulate/replay-strategy.js';
import { type SimulationInput, simulate, simulationInputOf } from '../../simulate/simulate.js';

/** The folders replayed, under ../shared/data. */
const folders = ['sessions/claude-code-entireio-cli', 'sessions/codex-entireio-git-sync', 'trajectories'];
const transcriptExtensions = ['.json', '.jsonl', '.traj'];

/** The targets: never dearer than sending everything, at most 10% over the cheapest peer. */
const MAX_OF_NONE = 1;
const MAX_OF_CHEAPEST_PEER = 1.1;
/** A first compaction this close to a transcript's end is counted as late (see `lateShare`). */
const LATE_TURNS = 5;
/** Rows of the worst transcripts printed per configuration. */
const WORST_ROWS = 8;

const configurations: Array<{ label: string; mid?: number; hard?: number; window?: number }> = [
  { label: '--mid 8000 --hard 16000', mid: 8000, hard: 16000 },
  { label: '--window 200000', window: 200_000 },
];

const strategies: StrategyName[] = ['none', 'agent-compact', ...peerNames];

/** One transcript's figures at one configuration. */
interface FileRow {
  file: string;
  agent: StrategySummary;
  ofNone: number;
  cheapestPeer: StrategyName;
  /** The cheapest peer's figures, for how its summary calls were billed beside agent-compact's. */
  peer: StrategySummary;
  ofPeer: number;
}

async function transcriptFiles(path: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of (await readdir(path, { withFileTypes: true })).sort((a, b) =>
    a.name.localeCompare(b.name),
  )) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) found.push(...(await transcriptFiles(child)));
    else if (transcriptExtensions.some((extension) => entry.name.endsWith(extension))) found.push(child);
  }
  return found;
}

/** Every transcript under the folders that the importers read (other JSON files are skipped). */
async function loadInputs(root: string, filter: RegExp | undefined): Promise<SimulationInput[]> {
  const inputs: SimulationInput[] = [];
  for (const folder of folders) {
    const path = join(root, folder);
    if (!(await stat(path).catch(() => undefined))?.isDirectory()) continue;
    for (const file of await transcriptFiles(path)) {
      const name = relative(root, file);
      if (filter && !filter.test(name)) continue;
      const imported = await importTranscriptFile(file).catch(() => undefined);
      if (imported) inputs.push(simulationInputOf(name, imported));
    }
  }
  return inputs;
}

/** Replays one configuration, one file at a time (a file's turns are dropped once measured). */
async function replayConfiguration(
  inputs: readonly SimulationInput[],
  configuration: (typeof configurations)[number],
): Promise<{ rows: FileRow[]; total: StrategySummary[] }> {
  const rows: FileRow[] = [];
  const totals = new Map<StrategyName, StrategySummary>();
  for (const input of inputs) {
    const { files, total } = await simulate([input], {
      strategies,
      summarizer: createExtractiveSummaryModel(),
      counter: createTiktokenCounter(),
      ...(configuration.mid === undefined ? {} : { mid: configuration.mid }),
      ...(configuration.hard === undefined ? {} : { hard: configuration.hard }),
      ...(configuration.window === undefined ? {} : { window: configuration.window }),
    });
    const summaries = files[0]!.strategies;
    const none = summaries.none!.summary;
    const agent = summaries['agent-compact']!.summary;
    const [cheapestPeer] = [...peerNames].sort(
      (left, right) => summaries[left]!.summary.cost - summaries[right]!.summary.cost,
    );
    const peerCost = summaries[cheapestPeer!]!.summary.cost;
    rows.push({
      file: input.file,
      agent,
      ofNone: none.cost === 0 ? 1 : agent.cost / none.cost,
      cheapestPeer: cheapestPeer!,
      peer: summaries[cheapestPeer!]!.summary,
      ofPeer: peerCost === 0 ? 1 : agent.cost / peerCost,
    });
    for (const name of ['none', 'agent-compact'] as const)
      totals.set(name, addTo(totals.get(name), total[name]!));
  }
  return { rows, total: [totals.get('none')!, totals.get('agent-compact')!] };
}

function addTo(total: StrategySummary | undefined, summary: StrategySummary): StrategySummary {
  if (!total) {
    const { firstCompactionTurn: _first, ...first } = summary;
    return { ...first, compactions: { ...summary.compactions } };
  }
  total.turns += summary.turns;
  total.cost += summary.cost;
  total.midRewrites += summary.midRewrites;
  total.prefixRewrites += summary.prefixRewrites;
  total.contextOverflows += summary.contextOverflows;
  total.compactions.micro += summary.compactions.micro;
  total.compactions.mid += summary.compactions.mid;
  total.compactions.hard += summary.compactions.hard;
  total.facts += summary.facts;
  total.factsVisible += summary.factsVisible;
  return total;
}

/**
 * agent-compact ÷ the cheapest peer had its summary calls read from the cache the share of their
 * input the peer's did, billed as the replay bills a request.
 */
function atPeerCacheShare({ agent, peer }: FileRow): number {
  const share = peer.summaryInputTokens === 0 ? 0 : peer.summaryCacheReadTokens / peer.summaryInputTokens;
  const inputCost = (reusedTokens: number) =>
    billRequest({ inputTokens: agent.summaryInputTokens, reusedTokens, outputTokens: 0 }, defaultPriceTable)
      .cost;
  const saved = Math.max(
    0,
    inputCost(agent.summaryCacheReadTokens) - inputCost(share * agent.summaryInputTokens),
  );
  return peer.cost === 0 ? 1 : (agent.cost - saved) / peer.cost;
}

/** The share of the summary calls' input tokens read from the prompt cache, as a percentage. */
function cachedShare(summaries: readonly StrategySummary[]): string {
  const input = summaries.reduce((sum, summary) => sum + summary.summaryInputTokens, 0);
  const cached = summaries.reduce((sum, summary) => sum + summary.summaryCacheReadTokens, 0);
  return input === 0 ? 'n/a' : `${((100 * cached) / input).toFixed(0)}%`;
}

function verdict(pass: boolean): string {
  return pass ? 'met' : 'MISSED';
}

/** The transcripts over each target at one configuration (the bench's last lines). */
interface Misses {
  label: string;
  transcripts: number;
  overNone: FileRow[];
  overPeer: FileRow[];
}

function missesOf(label: string, rows: readonly FileRow[]): Misses {
  const overNone = rows.filter((row) => row.ofNone > MAX_OF_NONE);
  const overPeer = rows.filter((row) => row.ofPeer > MAX_OF_CHEAPEST_PEER);
  return { label, transcripts: rows.length, overNone, overPeer };
}

function printConfiguration(label: string, rows: readonly FileRow[], [none, agent]: StrategySummary[]): void {
  const { overNone, overPeer } = missesOf(label, rows);
  const worstNone = [...rows].sort((left, right) => right.ofNone - left.ofNone)[0];
  const worstPeer = [...rows].sort((left, right) => right.ofPeer - left.ofPeer);
  console.log(`\n### ${label}: ${rows.length} transcripts, ${agent!.turns.toLocaleString('en-US')} turns\n`);
  console.log(
    '| transcript | turns | ÷ none | ÷ cheapest peer | cheapest peer | mid / hard | mid rewrites / 100 turns | summary input from cache (agent-compact / peer) |',
  );
  console.log('| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: |');
  for (const row of worstPeer.slice(0, WORST_ROWS)) {
    console.log(
      `| ${row.file} | ${row.agent.turns} | ${row.ofNone.toFixed(3)}× | ${row.ofPeer.toFixed(3)}× | ${row.cheapestPeer} | ${row.agent.compactions.mid} / ${row.agent.compactions.hard} | ${midRewritesPer100Turns(row.agent).toFixed(1)} | ${cachedShare([row.agent])} / ${cachedShare([row.peer])} |`,
    );
  }
  console.log(
    `\nAll transcripts: agent-compact $${agent!.cost.toFixed(2)} = ${(agent!.cost / none!.cost).toFixed(3)}× none; mid ${agent!.compactions.mid}, hard ${agent!.compactions.hard}, mid rewrites ${agent!.midRewrites} = ${midRewritesPer100Turns(agent!).toFixed(1)} per 100 turns; context overflows ${agent!.contextOverflows}; retention ${((agent!.facts === 0 ? 1 : agent!.factsVisible / agent!.facts) * 100).toFixed(1)}%.`,
  );
  if (overPeer.length > 0) {
    // Every strategy's summary call sends the history as it is; agent-compact's instructions also
    // carry the ledger and the working set as ground truth, new in every call.
    const stillOver = overPeer.filter((row) => atPeerCacheShare(row) > MAX_OF_CHEAPEST_PEER);
    console.log(
      `Summary calls' input read from the prompt cache on the ${overPeer.length} transcripts over ${MAX_OF_CHEAPEST_PEER}× the cheapest peer: agent-compact ${cachedShare(overPeer.map((row) => row.agent))}, their cheapest peers ${cachedShare(overPeer.map((row) => row.peer))}; billed at the peer's share, ${stillOver.length} of them would stay over.`,
    );
  }
  console.log(
    `- never more than none on a transcript: worst ${worstNone?.ofNone.toFixed(3)}× (${worstNone?.file}), ${overNone.length} over — ${verdict(overNone.length === 0)}`,
  );
  console.log(
    `- never more than ${MAX_OF_CHEAPEST_PEER}× the cheapest peer on a transcript: worst ${worstPeer[0]?.ofPeer.toFixed(3)}× (${worstPeer[0]?.file}), ${overPeer.length} over — ${verdict(overPeer.length === 0)}`,
  );
}

/** The counts over each target at every configuration, with the files, so a run ends with the verdict. */
function printMisses(misses: readonly Misses[]): void {
  console.log('\n### Transcripts over the targets\n');
  console.log(`| setting | transcripts | over none | over ${MAX_OF_CHEAPEST_PEER}× the cheapest peer |`);
  console.log('| --- | ---: | ---: | ---: |');
  for (const { label, transcripts, overNone, overPeer } of misses)
    console.log(`| ${label} | ${transcripts} | ${overNone.length} | ${overPeer.length} |`);
  for (const { label, overNone, overPeer } of misses) {
    const named = (rows: readonly FileRow[], ratio: (row: FileRow) => number) =>
      rows.map((row) => `${row.file} ${ratio(row).toFixed(3)}× (${firstCompaction(row)})`).join(', ') ||
      'none';
    console.log(`- ${label}, over none: ${named(overNone, (row) => row.ofNone)}`);
    if (overNone.length > 0) console.log(`  ${lateShare(overNone)}`);
    console.log(
      `- ${label}, over ${MAX_OF_CHEAPEST_PEER}× the cheapest peer: ${named(overPeer, (row) => row.ofPeer)}`,
    );
  }
}

/** Where agent-compact first compacted in a transcript: `first compaction at turn 16 of 19`. */
function firstCompaction({ agent }: FileRow): string {
  const first = agent.firstCompactionTurn;
  return first === undefined ? 'no compaction' : `first compaction at turn ${first} of ${agent.turns}`;
}

/**
 * How many of `rows` first compacted within {@link LATE_TURNS} turns of their end: a compaction
 * there cannot pay for its cache write before the transcript stops, whatever decides it.
 */
function lateShare(rows: readonly FileRow[]): string {
  const late = rows.filter(
    ({ agent }) =>
      agent.firstCompactionTurn !== undefined && agent.turns - agent.firstCompactionTurn < LATE_TURNS,
  );
  return `${late.length} of these ${rows.length} first compacted in their last ${LATE_TURNS} turns.`;
}

/** Prints, per configuration, the worst transcripts and whether the targets are met; then the counts. */
export async function run(): Promise<void> {
  const root = resolve(process.cwd(), '../shared/data');
  const pattern = process.env.MID_COST_FILTER;
  const inputs = await loadInputs(root, pattern ? new RegExp(pattern) : undefined);
  if (inputs.length === 0) {
    console.log(`skipped: no transcripts under ${root} (the shared data is not on this machine)`);
    return;
  }
  const started = performance.now();
  const misses: Misses[] = [];
  for (const configuration of configurations) {
    const { rows, total } = await replayConfiguration(inputs, configuration);
    printConfiguration(configuration.label, rows, total);
    misses.push(missesOf(configuration.label, rows));
  }
  printMisses(misses);
  console.log(`\nReplay wall time ${((performance.now() - started) / 1000).toFixed(0)} s.`);
}
