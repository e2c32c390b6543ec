/**
 * The HTML report of a simulation: one self-contained file (inline CSS and SVG, no script, no
 * external URL) with the totals table, and per transcript a chart of the context size sent on each
 * turn for each strategy, the threshold lines, and markers where a layer fired.
 */
import type { CompactionLayer } from 'agent-compact';
import type { StrategySummary } from './replay.js';
import type { StrategyName } from './replay-strategy.js';
import type { FileResult, SimulationResult } from './simulate.js';

/** Options of {@link renderReport}. */
export interface ReportOptions {
  /** At most this many charts (the files with the largest uncompacted peak). @default 12 */
  maxCharts?: number;
  /** A line under the title, e.g. the command that produced the report. */
  subtitle?: string;
}

import { type NextNeed, nextNeedKinds } from './next-need.js';
import type { Survival } from './survival.js';
import { renderSurvivalChart } from './survival-chart.js';

const colors: Record<StrategyName, string> = {
  none: '#8a8f98',
  seed: '#d9622b',
  'agent-compact': '#2f6fdf',
  actual: '#4d4d4d',
  'claude-code': '#c2417a',
  codex: '#1a9e77',
  opencode: '#7b52c9',
  'anthropic-context-editing': '#b8860b',
  langchain: '#17a2b8',
};

const layerLabels: Record<Exclude<CompactionLayer, 'none'>, string> = {
  micro: 'micro',
  mid: 'mid',
  hard: 'hard',
};

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** `12,345` */
export function formatInteger(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

/** `12.3k` */
function formatThousands(value: number): string {
  if (value >= 1000) return `${(value / 1000).toFixed(value >= 100_000 ? 0 : 1).replace(/\.0$/, '')}k`;
  return String(Math.round(value));
}

/** `$1.23` (more digits under a cent) */
export function formatCost(value: number): string {
  return value >= 0.01 || value === 0 ? `$${value.toFixed(2)}` : `$${value.toPrecision(2)}`;
}

/** `81.3%` */
export function formatPercent(value: number): string {
  return `${(value * 100).toFixed(1)}%`;
}

function ratio(value: number, base: number | undefined): string {
  if (base === undefined || base === 0) return '—';
  return `${(value / base).toFixed(2)}×`;
}

function niceStep(max: number): number {
  const raw = max / 5;
  const magnitude = 10 ** Math.floor(Math.log10(Math.max(raw, 1)));
  for (const factor of [1, 2, 2.5, 5, 10]) if (raw <= factor * magnitude) return factor * magnitude;
  return 10 * magnitude;
}

function marker(
  layer: Exclude<CompactionLayer, 'none'>,
  x: number,
  y: number,
  color: string,
  title: string,
): string {
  const tooltip = `<title>${escapeHtml(title)}</title>`;
  switch (layer) {
    case 'micro':
      return `<circle class="marker micro" cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="3" fill="#fff" stroke="${color}" stroke-width="1.5">${tooltip}</circle>`;
    case 'mid':
      return `<rect class="marker mid" x="${(x - 4).toFixed(1)}" y="${(y - 4).toFixed(1)}" width="8" height="8" fill="${color}" stroke="#fff" stroke-width="1" transform="rotate(45 ${x.toFixed(1)} ${y.toFixed(1)})">${tooltip}</rect>`;
    case 'hard':
      return `<path class="marker hard" d="M${x.toFixed(1)} ${(y - 6).toFixed(1)} L${(x + 6).toFixed(1)} ${(y + 5).toFixed(1)} L${(x - 6).toFixed(1)} ${(y + 5).toFixed(1)} Z" fill="${color}" stroke="#fff" stroke-width="1">${tooltip}</path>`;
    default: {
      const unreachable: never = layer;
      return unreachable;
    }
  }
}

/** The chart's size and the plot's margins, in pixels: tick labels on the left, threshold labels on the right. */
const chartFrame = { width: 1080, height: 340, left: 64, right: 120, top: 16, bottom: 40 } as const;
const plotWidth = chartFrame.width - chartFrame.left - chartFrame.right;
const plotHeight = chartFrame.height - chartFrame.top - chartFrame.bottom;

/** A threshold line: one per layer and value, shared by the strategies that have it. */
interface ChartThreshold {
  value: number;
  label: string;
  strategies: StrategyName[];
}

/** Where a turn and a token count sit on the chart, and the token axis's ticks. */
type ChartScale = ReturnType<typeof chartScale>;

/** The SVG chart of one file: context size per turn for each strategy. */
export function renderChart(file: FileResult, strategies: readonly StrategyName[]): string {
  const extent = chartExtent(file, strategies);
  // A threshold far above every request would squash the lines; it is left out instead.
  const visibleThresholds = extent.thresholds.filter(
    (threshold) => threshold.value <= extent.maxTokens * 1.6,
  );
  let maxTokens = extent.maxTokens;
  for (const threshold of visibleThresholds) maxTokens = Math.max(maxTokens, threshold.value);
  const scale = chartScale(extent.maxTurns, maxTokens);
  const { width, height } = chartFrame;
  return [
    `<svg class="chart" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="Context size per turn for ${escapeHtml(file.file)}" xmlns="http://www.w3.org/2000/svg">`,
    ...chartAxes(scale),
    ...thresholdLines(visibleThresholds, scale),
    ...seriesLines(file, strategies, scale),
    ...layerMarkers(file, strategies, scale),
    '</svg>',
  ].join('\n');
}

/** The most turns and tokens of any strategy, and the threshold lines of all of them. */
function chartExtent(
  file: FileResult,
  strategies: readonly StrategyName[],
): { maxTurns: number; maxTokens: number; thresholds: ChartThreshold[] } {
  const thresholds = new Map<string, ChartThreshold>();
  let maxTurns = 1;
  let maxTokens = 1;
  for (const name of strategies) {
    const result = file.strategies[name];
    if (!result) continue;
    maxTurns = Math.max(maxTurns, result.turns.length);
    for (const turn of result.turns) maxTokens = Math.max(maxTokens, turn.inputTokens);
    if (result.thresholds) {
      for (const layer of ['mid', 'hard'] as const) {
        const value = result.thresholds[layer];
        const key = `${layer}:${value}`;
        const entry = thresholds.get(key) ?? {
          value,
          label: `${layer} ${formatThousands(value)}`,
          strategies: [],
        };
        entry.strategies.push(name);
        thresholds.set(key, entry);
      }
    }
  }
  return { maxTurns, maxTokens, thresholds: [...thresholds.values()] };
}

/** The scale of a plot of `maxTurns` turns up to `maxTokens` tokens, with a little room on top. */
function chartScale(maxTurns: number, maxTokens: number) {
  const { left, top } = chartFrame;
  const step = niceStep(maxTokens);
  const yMax = Math.ceil((maxTokens * 1.04) / step) * step;
  return {
    maxTurns,
    yMax,
    step,
    x: (turn: number) => left + (maxTurns <= 1 ? 0 : (turn / (maxTurns - 1)) * plotWidth),
    y: (tokens: number) => top + plotHeight - (tokens / yMax) * plotHeight,
  };
}

/** The grid with its token ticks, the turn ticks, the axis labels and the turn axis. */
function chartAxes({ maxTurns, yMax, step, x, y }: ChartScale): string[] {
  const { height, left, top } = chartFrame;
  const parts: string[] = [];
  for (let tick = 0; tick <= yMax; tick += step) {
    parts.push(
      `<line class="grid" x1="${left}" x2="${left + plotWidth}" y1="${y(tick).toFixed(1)}" y2="${y(tick).toFixed(1)}"/>`,
      `<text class="tick" x="${left - 8}" y="${(y(tick) + 4).toFixed(1)}" text-anchor="end">${formatThousands(tick)}</text>`,
    );
  }
  const turnStep = niceStep(maxTurns);
  for (let turn = 0; turn < maxTurns; turn += turnStep) {
    parts.push(
      `<text class="tick" x="${x(turn).toFixed(1)}" y="${top + plotHeight + 18}" text-anchor="middle">${turn + 1}</text>`,
    );
  }
  parts.push(
    `<text class="axis-label" x="${left + plotWidth / 2}" y="${height - 4}" text-anchor="middle">assistant turn</text>`,
    `<text class="axis-label" transform="translate(14 ${top + plotHeight / 2}) rotate(-90)" text-anchor="middle">input tokens sent</text>`,
    `<line class="axis" x1="${left}" x2="${left + plotWidth}" y1="${top + plotHeight}" y2="${top + plotHeight}"/>`,
  );
  return parts;
}

/** A dashed line and a label per threshold, its strategies named in the tooltip. */
function thresholdLines(thresholds: readonly ChartThreshold[], { y }: ChartScale): string[] {
  const { left } = chartFrame;
  return thresholds.flatMap((threshold) => {
    const lineY = y(threshold.value).toFixed(1);
    return [
      `<line class="threshold" x1="${left}" x2="${left + plotWidth}" y1="${lineY}" y2="${lineY}"><title>${escapeHtml(`${threshold.label} threshold of ${threshold.strategies.join(', ')}`)}</title></line>`,
      `<text class="threshold-label" x="${left + plotWidth + 6}" y="${(Number(lineY) + 4).toFixed(1)}">${escapeHtml(threshold.label)}</text>`,
    ];
  });
}

/** One line per strategy through the size of each request it sent. */
function seriesLines(file: FileResult, strategies: readonly StrategyName[], { x, y }: ChartScale): string[] {
  const parts: string[] = [];
  for (const name of strategies) {
    const result = file.strategies[name];
    if (!result || result.turns.length === 0) continue;
    const points = result.turns.map((turn) => `${x(turn.turn).toFixed(1)},${y(turn.inputTokens).toFixed(1)}`);
    parts.push(
      `<polyline class="series" data-strategy="${name}" points="${points.join(' ')}" fill="none" stroke="${colors[name]}" stroke-width="2" stroke-linejoin="round"/>`,
    );
  }
  return parts;
}

/** A marker on every turn where a layer ran, drawn after all lines so no line hides one. */
function layerMarkers(file: FileResult, strategies: readonly StrategyName[], { x, y }: ChartScale): string[] {
  const parts: string[] = [];
  for (const name of strategies) {
    const result = file.strategies[name];
    if (!result) continue;
    for (const turn of result.turns) {
      if (turn.layer === 'none') continue;
      parts.push(
        marker(
          turn.layer,
          x(turn.turn),
          y(turn.inputTokens),
          colors[name],
          `${name}: ${layerLabels[turn.layer]} at turn ${turn.turn + 1}, ${formatInteger(turn.inputTokens)} tokens sent${turn.prefixRewrite ? ', prefix rewritten' : ''}`,
        ),
      );
    }
  }
  return parts;
}

function legend(strategies: readonly StrategyName[]): string {
  const items = strategies.map(
    (name) =>
      `<span class="legend-item"><span class="swatch" style="background:${colors[name]}"></span>${name}</span>`,
  );
  items.push(
    '<span class="legend-item"><svg width="14" height="14"><circle cx="7" cy="7" r="3" fill="#fff" stroke="#333" stroke-width="1.5"/></svg>micro</span>',
    '<span class="legend-item"><svg width="14" height="14"><rect x="3" y="3" width="8" height="8" fill="#333" transform="rotate(45 7 7)"/></svg>mid</span>',
    '<span class="legend-item"><svg width="14" height="14"><path d="M7 1 L13 12 L1 12 Z" fill="#333"/></svg>hard</span>',
    '<span class="legend-item"><svg width="22" height="14"><line x1="0" x2="22" y1="7" y2="7" class="threshold"/></svg>threshold</span>',
  );
  return `<div class="legend">${items.join('')}</div>`;
}

/** The table rows of one set of summaries, one row per strategy. */
function summaryTable(
  summaries: Partial<Record<StrategyName, StrategySummary>>,
  strategies: readonly StrategyName[],
): string {
  const base = summaries.none;
  const rows = strategies.map((name) => {
    const summary = summaries[name];
    if (!summary) return '';
    return [
      '<tr>',
      `<th scope="row"><span class="swatch" style="background:${colors[name]}"></span>${name}</th>`,
      `<td>${formatInteger(summary.turns)}</td>`,
      `<td>${formatInteger(summary.peakTokens)}</td>`,
      `<td>${formatInteger(summary.inputTokens)}</td>`,
      `<td>${formatInteger(summary.billedInputTokens)}</td>`,
      `<td>${ratio(summary.billedInputTokens, base?.billedInputTokens)}</td>`,
      `<td>${formatCost(summary.cost)}</td>`,
      `<td>${formatInteger(summary.prefixRewrites)}</td>`,
      `<td>${summary.compactions.micro}</td>`,
      `<td>${summary.compactions.mid}</td>`,
      `<td>${summary.compactions.hard}</td>`,
      `<td>${formatPercent(summary.retention)}</td>`,
      `<td>${formatPercent(summary.retentionOfCompacted)}</td>`,
      `<td>${formatInteger(summary.summaryCalls)}</td>`,
      `<td>${formatCost(summary.summaryCost)}</td>`,
      `<td>${summary.blockedSeconds.toFixed(1)}</td>`,
      '</tr>',
    ].join('');
  });
  return [
    '<table class="summary">',
    '<thead><tr><th>strategy</th><th>turns</th><th>peak tokens</th><th>input tokens</th><th>billed input</th><th>vs none</th><th>cost</th><th>prefix rewrites</th><th>micro</th><th>mid</th><th>hard</th><th>retention</th><th>of compacted</th><th>summaries</th><th>summary cost</th><th>blocked s</th></tr></thead>',
    `<tbody>${rows.join('')}</tbody>`,
    '</table>',
  ].join('\n');
}

const style = `
:root { color-scheme: light; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: #1f2328; margin: 0; background: #f6f7f9; }
main { max-width: 1120px; margin: 0 auto; padding: 28px 24px 48px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 16px; margin: 28px 0 8px; }
h3 { font-size: 14px; margin: 0 0 6px; font-weight: 600; word-break: break-all; }
.subtitle { color: #57606a; margin: 0 0 16px; }
.card { background: #fff; border: 1px solid #d8dee4; border-radius: 8px; padding: 16px 18px; margin: 14px 0; overflow-x: auto; }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
th, td { padding: 6px 8px; border-bottom: 1px solid #eaeef2; text-align: right; white-space: nowrap; }
thead th { white-space: normal; vertical-align: bottom; }
th:first-child, td:first-child { text-align: left; }
thead th { font-weight: 600; color: #57606a; font-size: 12px; text-transform: uppercase; letter-spacing: .02em; }
tbody tr:last-child th, tbody tr:last-child td { border-bottom: none; }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 7px; vertical-align: baseline; }
.legend { display: flex; flex-wrap: wrap; gap: 16px; margin: 4px 0 8px; color: #57606a; font-size: 13px; }
.legend-item { display: inline-flex; align-items: center; gap: 4px; }
.chart { display: block; max-width: 100%; height: auto; }
.chart .grid { stroke: #eaeef2; stroke-width: 1; }
.chart .axis { stroke: #8c959f; stroke-width: 1; }
.chart .tick, .chart .axis-label { fill: #57606a; font-size: 11px; }
.threshold { stroke: #cf222e; stroke-width: 1; stroke-dasharray: 5 4; opacity: .75; }
.chart .threshold-label { fill: #cf222e; font-size: 11px; }
.notes { color: #57606a; font-size: 13px; }
.notes li { margin: 3px 0; }
.files td:first-child { white-space: normal; word-break: break-all; max-width: 360px; }
`;

/**
 * The whole report as one HTML string.
 *
 * @example
 * await writeFile('report.html', renderReport(result, { subtitle: 'agent-compact simulate examples/session.jsonl' }));
 */
export function renderReport(
  result: SimulationResult,
  { maxCharts = 12, subtitle }: ReportOptions = {},
): string {
  const { strategies } = result;
  const sections = [
    ...totalsSection(result),
    ...survivalSection(result),
    nextNeedSection(result, strategies, colors),
    ...chartsSection(result, maxCharts),
  ];
  if (result.files.length > 1) {
    sections.push('<h2>Files</h2>', `<div class="card">${filesTable(result, strategies)}</div>`);
  }
  const files = result.files.length;
  return htmlPage(subtitle ?? `${files} transcript${files === 1 ? '' : 's'} replayed`, sections);
}

/** The totals table, and notes on how its figures are counted and priced. */
function totalsSection(result: SimulationResult): string[] {
  const { strategies, prices } = result;
  return [
    '<h2>Totals</h2>',
    `<div class="card">${summaryTable(result.total, strategies)}</div>`,
    '<ul class="notes">',
    `<li>Tokens counted with <b>${escapeHtml(result.counter)}</b> for every strategy. Billed input is in base-price token equivalents: tokens reused from the previous request bill as cache reads (${prices.cacheReadMultiplier}×), the rest as cache writes (${prices.cacheWriteMultiplier}×).</li>`,
    `<li>Cost at ${escapeHtml(prices.model)} prices: $${prices.inputPerMillion}/MTok input, $${prices.outputPerMillion}/MTok output, summary calls included (billed under the same caching model at ${escapeHtml(result.summaryPrices.model)} prices). Blocked: seconds the agent waited for summary calls (${result.latency.ttftSeconds} s + input ÷ ${formatInteger(result.latency.prefillTokensPerSecond)}/s + output ÷ ${formatInteger(result.latency.decodeTokensPerSecond)}/s each).</li>`,
    `<li>The prompt cache lives ${result.clock.cacheTtlSeconds} s: a request made later than that after the previous one reads nothing from it (recorded times where the transcript has them, else ${result.clock.turnSeconds} s a turn).</li>`,
    '<li>Each line is the size of the request sent on that turn; a marker sits on the size after its layer ran.</li>',
    '<li>A prefix rewrite is a request that differs from the previous one before its end, which throws away the prompt cache from that point on.</li>',
    '<li>Retention: the share of key facts (path or command, non-zero exit code, first error line) of every tool call answered before the last request that the last request still shows (a call kept whole shows all its facts) — one denominator for every strategy. Of compacted: the same share among the calls the strategy compacted away.</li>',
    '</ul>',
  ];
}

/** The survival charts, at the last request and at the agents' own compaction points; none when nothing was measured. */
function survivalSection(result: SimulationResult): string[] {
  const { strategies } = result;
  const lastSurvival: Partial<Record<StrategyName, Survival>> = {};
  const pointSurvival: Partial<Record<StrategyName, Survival>> = {};
  for (const name of strategies) {
    const entry = result.survival?.[name];
    if (entry) lastSurvival[name] = entry.last;
    if (entry?.atCompactions) pointSurvival[name] = entry.atCompactions;
  }
  if (Object.keys(lastSurvival).length === 0) return [];
  return [
    '<h2>Survival</h2>',
    `<div class="card"><h3>At the last request</h3>${renderSurvivalChart(lastSurvival, strategies, colors)}`,
    Object.keys(pointSurvival).length > 0
      ? `<h3>At the agents' own compaction points</h3>${renderSurvivalChart(pointSurvival, strategies, colors)}`
      : '',
    '<p class="notes">Facts of the history (files edited and read, commands, exit codes, error lines, the latest todo list, what the user typed, the task) still visible as text; counting rules in docs/simulate.md.</p></div>',
  ];
}

/**
 * A card per charted file: its chart, and its own table when there are several files. Only the
 * `maxCharts` files with the largest peak are charted (a report of hundreds of charts is unreadable),
 * in the order of the input.
 */
function chartsSection(result: SimulationResult, maxCharts: number): string[] {
  const { strategies } = result;
  const charted = [...result.files]
    .sort((left, right) => peakOf(right) - peakOf(left))
    .slice(0, maxCharts)
    .sort((left, right) => result.files.indexOf(left) - result.files.indexOf(right));
  const sections = [
    `<h2>Context size per turn${result.files.length > charted.length ? ` (the ${charted.length} largest of ${result.files.length} files)` : ''}</h2>`,
  ];
  for (const file of charted) {
    sections.push(
      '<div class="card">',
      `<h3>${escapeHtml(file.file)} <span class="subtitle">(${escapeHtml(file.format)})</span></h3>`,
      legend(strategies),
      renderChart(file, strategies),
      result.files.length > 1 ? summaryTable(summariesOf(file), strategies) : '',
      '</div>',
    );
  }
  return sections;
}

/** The HTML document around the sections: its head with the inline style, the title and the subtitle. */
function htmlPage(subtitle: string, sections: readonly string[]): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<title>agent-compact simulate report</title>',
    `<style>${style}</style>`,
    '</head>',
    '<body>',
    '<main>',
    '<h1>agent-compact simulate</h1>',
    `<p class="subtitle">${escapeHtml(subtitle)}</p>`,
    ...sections,
    '</main>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

function peakOf(file: FileResult): number {
  return Math.max(0, ...Object.values(file.strategies).map((result) => result?.summary.peakTokens ?? 0));
}

function summariesOf(file: FileResult): Partial<Record<StrategyName, StrategySummary>> {
  const summaries: Partial<Record<StrategyName, StrategySummary>> = {};
  for (const [name, result] of Object.entries(file.strategies) as Array<
    [StrategyName, { summary: StrategySummary }]
  >) {
    summaries[name] = result.summary;
  }
  return summaries;
}

function filesTable(result: SimulationResult, strategies: readonly StrategyName[]): string {
  const head = strategies.map((name) => `<th>${name} billed</th><th>${name} rewrites</th>`).join('');
  const rows = result.files.map((file) => {
    const cells = strategies
      .map((name) => {
        const summary = file.strategies[name]?.summary;
        return summary
          ? `<td>${formatInteger(summary.billedInputTokens)}</td><td>${summary.prefixRewrites}</td>`
          : '<td>—</td><td>—</td>';
      })
      .join('');
    const turns = file.strategies[strategies[0] ?? 'none']?.summary.turns ?? 0;
    return `<tr><td>${escapeHtml(file.file)}</td><td>${turns}</td>${cells}</tr>`;
  });
  return `<table class="files"><thead><tr><th>file</th><th>turns</th>${head}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** The next-need chart: per kind, the share each strategy's compacted contexts still showed. */
function nextNeedSection(
  result: SimulationResult,
  strategies: readonly StrategyName[],
  colors: Readonly<Record<StrategyName, string>>,
): string {
  const shares: Partial<Record<StrategyName, NextNeed>> = {};
  const points: string[] = [];
  for (const name of strategies) {
    const entry = result.nextNeed?.[name];
    if (!entry || entry.points === 0) continue;
    shares[name] = entry.nextNeed;
    points.push(`${escapeHtml(name)} ${formatInteger(entry.points)}`);
  }
  if (points.length === 0) return '';
  return [
    '<h2>Next need</h2>',
    `<div class="card">${renderSurvivalChart(shares, strategies, colors, { kinds: nextNeedKinds, label: 'next need per kind of item', className: 'next-need' })}`,
    `<p class="notes">At each strategy's own compaction points (${points.join(', ')}): of the file names, code identifiers, exact edit texts and commands its next ${result.nextCalls} tool calls used that the history already held, the share the compacted context still showed; rules in docs/simulate.md.</p></div>`,
  ].join('');
}
