// At each compaction the recording agent made itself in the shared sessions
// (../shared/data/sessions: Claude Code's own summaries, Codex's replacement histories), compares
// what survived in the agent's own compacted context with agent-compact's hard compaction of the
// same history (offline summarizer), per kind of fact, and the median compacted size in o200k
// tokens. Prints the issue #18 targets and marks the missed ones. Then the next-need probe at the
// same points (what the next 40 tool calls used that the history held, still visible): the agent's
// own context, agent-compact's and each peer policy's, with issue #32's targets.
import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createExtractiveSummaryModel } from 'agent-compact';
import { importTranscriptFile } from 'agent-compact/importers';
import { createTiktokenCounter } from 'agent-compact/tokenizer';
import {
  type CompactionPoint,
  type CompactionPointOptions,
  measureAgentCompactionPoints,
} from '../../simulate/agent-compactions.js';
import { addNextNeed, emptyNextNeed, type NextNeed } from '../../simulate/next-need.js';
import { peerCompactions } from '../../simulate/peers-at-point.js';
import { createRequestTokenCounter } from '../../simulate/prompt-cache.js';
import { peerNames } from '../../simulate/replay-strategies.js';
import {
  addSurvival,
  emptySurvival,
  type Survival,
  type SurvivalKind,
  survivalKinds,
} from '../../simulate/survival.js';
import { nextNeedTable } from '../next-need-table.js';

/** Issue #18's targets for agent-compact at Claude Code's own compaction points (percent kept). */
const targets: Partial<Record<SurvivalKind, number>> = {
  'files-edited': 99,
  'files-read': 95,
  commands: 90,
  'exit-codes': 95,
  errors: 95,
  todo: 100,
  'user-messages': 98,
};

/** Issue #32: the whole survival bench, next-need probe included, runs in under this many seconds. */
const SURVIVAL_BENCH_SECONDS = 90;

const folders = [
  { folder: 'claude-code-entireio-cli', agent: "Claude Code's own summary" },
  { folder: 'codex-entireio-git-sync', agent: "Codex's replacement_history (actual)" },
];

interface FolderFigures {
  points: CompactionPoint[];
  agent: Survival;
  agentCompact: Survival;
  /** Next need pooled over the points: the agent's own, agent-compact's, and each peer's. */
  nextNeed: Record<string, NextNeed>;
  skipped: string[];
}

/**
 * More compactor options for agent-compact, as JSON in `SURVIVAL_COMPACTOR` (issue #18 asks the
 * targets to hold with `{"hard":{"background":true}}` too).
 */
function compactorOptions(): CompactionPointOptions['compactor'] {
  const json = process.env.SURVIVAL_COMPACTOR;
  if (!json) return {};
  try {
    return JSON.parse(json) as CompactionPointOptions['compactor'];
  } catch (error) {
    throw new Error(`SURVIVAL_COMPACTOR: not JSON: ${json}`, { cause: error });
  }
}

/** Survival at every compaction point of every session in a folder. */
async function measureFolder(directory: string): Promise<FolderFigures> {
  const figures: FolderFigures = {
    points: [],
    agent: emptySurvival(),
    agentCompact: emptySurvival(),
    nextNeed: {},
    skipped: [],
  };
  const counter = createTiktokenCounter();
  const summarizer = createExtractiveSummaryModel();
  const others = peerCompactions({ summarizer, tokens: createRequestTokenCounter(counter) });
  const files = (await readdir(directory)).filter((file) => file.endsWith('.jsonl')).sort();
  for (const file of files) {
    const path = join(directory, file);
    try {
      const transcript = await importTranscriptFile(path);
      for (const warning of transcript.meta.warnings ?? []) figures.skipped.push(`warning: ${warning}`);
      const points = await measureAgentCompactionPoints(transcript, {
        counter,
        summarizer,
        compactor: compactorOptions(),
        onSkip: (line, reason) => figures.skipped.push(`${file}:${line}: skipped: ${reason}`),
        others,
      });
      for (const point of points) {
        figures.points.push(point);
        addSurvival(figures.agent, point.agent);
        addSurvival(figures.agentCompact, point.agentCompact);
        addPointNextNeed(figures.nextNeed, point);
      }
    } catch (error) {
      figures.skipped.push(
        `${file}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
      );
    }
  }
  return figures;
}

function addPointNextNeed(total: Record<string, NextNeed>, point: CompactionPoint): void {
  const add = (name: string, need: NextNeed) => {
    total[name] ??= emptyNextNeed();
    addNextNeed(total[name], need);
  };
  add('own', point.agentNextNeed);
  add('agent-compact', point.agentCompactNextNeed);
  for (const [name, other] of Object.entries(point.others)) add(name, other.nextNeed);
}

/** The next-need table at the folder's points: the agent's own context, agent-compact's, each peer's. */
function printNextNeed(agentLabel: string, figures: FolderFigures, withTargets: boolean): void {
  const empty = emptyNextNeed();
  const columns = [
    {
      label: agentLabel,
      nextNeed: figures.nextNeed.own ?? empty,
      medianTokens: median(figures.points.map((point) => point.agentTokens)),
    },
    {
      label: 'agent-compact',
      nextNeed: figures.nextNeed['agent-compact'] ?? empty,
      medianTokens: median(figures.points.map((point) => point.agentCompactTokens)),
    },
    ...peerNames.map((name) => ({
      label: name,
      nextNeed: figures.nextNeed[name] ?? empty,
      medianTokens: median(figures.points.map((point) => point.others[name]?.tokens ?? 0)),
    })),
  ];
  console.log(
    `\nNext need at the same points: what the next 40 tool calls used that the history held, still visible (docs/simulate.md "Next need"); peers compacting there (hard one token under the history)\n`,
  );
  console.log(nextNeedTable(columns, { targets: withTargets }));
}

function percent({ visible, total }: { visible: number; total: number }): string {
  return total === 0 ? 'n/a' : `${((visible / total) * 100).toFixed(0)}%`;
}

function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : Math.round((sorted[middle - 1]! + sorted[middle]!) / 2);
}

/**
 * The median compacted sizes: of the text the agent's file records, and of what it really sent by
 * its provider's usage (Claude Code attaches re-read files the file does not record), at the points
 * that have usage.
 */
function sizeRows(figures: FolderFigures, withTargets: boolean): string[][] {
  const row = (
    label: string,
    points: readonly CompactionPoint[],
    theirs: (point: CompactionPoint) => number,
  ) => {
    const agentSize = median(points.map(theirs));
    const ourSize = median(points.map((point) => point.agentCompactTokens));
    return [
      label,
      String(points.length),
      String(agentSize),
      String(ourSize),
      ...(withTargets ? [`≤ ${agentSize}`, ourSize <= agentSize ? '' : 'MISSED'] : []),
    ];
  };
  const rows = [row('median size (o200k)', figures.points, (point) => point.agentTokens)];
  const sent = figures.points.filter((point) => point.agentSentTokens !== undefined);
  if (sent.length > 0) rows.push(row('median size sent (usage)', sent, (point) => point.agentSentTokens!));
  return rows;
}

function printTable(agentLabel: string, figures: FolderFigures, withTargets: boolean): void {
  const header = ['kind', 'facts', agentLabel, 'agent-compact', ...(withTargets ? ['target', ''] : [])];
  const rows: string[][] = [];
  for (const kind of survivalKinds) {
    const own = figures.agent[kind];
    const ours = figures.agentCompact[kind];
    const target = targets[kind];
    const met = target === undefined || ours.total === 0 || (ours.visible / ours.total) * 100 >= target;
    rows.push([
      kind,
      String(ours.total),
      percent(own),
      percent(ours),
      ...(withTargets ? [target === undefined ? '' : `${target}%`, met ? '' : 'MISSED'] : []),
    ]);
  }
  rows.push(...sizeRows(figures, withTargets));
  const widths = header.map((cell, column) =>
    Math.max(cell.length, ...rows.map((row) => row[column]!.length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join('  ');
  console.log(line(header));
  for (const row of rows) console.log(line(row));
  if (figures.points.some((point) => point.agentSentTokens !== undefined)) {
    console.log(
      `  size sent: the agent's own next request by its provider's usage, beyond the session's smallest request, in o200k at the history's ratio; it holds what the agent attached and its file does not record (docs/simulate.md "Size sent")`,
    );
  }
}

/** Prints survival at the agents' own compaction points, and the targets. */
export async function run(): Promise<void> {
  const root = resolve(process.cwd(), '../shared/data/sessions');
  if (
    !(await stat(root).then(
      (info) => info.isDirectory(),
      () => false,
    ))
  ) {
    console.log(`skipped: ${root} is absent (the shared sessions are read where they lie)`);
    return;
  }
  const started = performance.now();
  if (process.env.SURVIVAL_COMPACTOR) console.log(`agent-compact with ${process.env.SURVIVAL_COMPACTOR}`);
  for (const { folder, agent } of folders) {
    const directory = join(root, folder);
    if (
      !(await stat(directory).then(
        (info) => info.isDirectory(),
        () => false,
      ))
    )
      continue;
    const figures = await measureFolder(directory);
    console.log(`\n${folder}: ${figures.points.length} compaction points\n`);
    printTable(agent, figures, folder.startsWith('claude-code'));
    printNextNeed(agent, figures, folder.startsWith('claude-code'));
    for (const note of figures.skipped) console.log(`  ${note}`);
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `\nsurvival bench: ${seconds.toFixed(1)} s (target under ${SURVIVAL_BENCH_SECONDS} s)${seconds < SURVIVAL_BENCH_SECONDS ? '' : '  MISSED'}`,
  );
}
