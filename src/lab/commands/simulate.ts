/**
 * `agent-compact simulate FILE|DIR...`: replays agent transcripts through the strategies and
 * compares them — tokens sent, prompt-cache reuse, billed cost, compactions and fact retention.
 */
import { readdir, stat, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { CompactError, createExtractiveSummaryModel } from 'agent-compact';
import { importTranscriptFile, type TranscriptFormat, transcriptFormats } from 'agent-compact/importers';
import { type CliCommand, CliError, type CliIO, UsageError } from '../../cli/cli-io.js';
import { createCliCounter, parseCommandArgs } from '../../cli/command-args.js';
import { timeLeft } from '../../cli/progress.js';
import { createSummaryModelFromSpec } from '../../cli/summarizer-from-spec.js';
import { defaultPriceTable, type PriceTable } from '../../proxy/price-table.js';
import { simulationToJson, simulationToText } from '../../simulate/format-results.js';
import { strategyNames } from '../../simulate/replay-strategies.js';
import type { StrategyName } from '../../simulate/replay-strategy.js';
import { renderReport } from '../../simulate/report.js';
import {
  type SimulateOptions,
  type SimulationInput,
  type SimulationResult,
  simulate,
  simulationInputOf,
} from '../../simulate/simulate.js';
import {
  defaultCacheTtlSeconds,
  defaultLatencyModel,
  defaultTurnSeconds,
  type LatencyModel,
  type ReplayClock,
} from '../../simulate/timing.js';

const help = `Usage: agent-compact simulate FILE|DIR... [options]

Replays agent transcripts turn by turn through each strategy (none, the seed's sketch, agent-compact,
actual — what the recording agent sent, its own compactions included — and the policies of Claude Code, Codex, opencode, Anthropic context editing and LangChain) and prints
tokens, billed cost with prompt caching and summary calls, prefix rewrites, compactions, fact
retention and the time the agent waits for summaries.
A directory is searched for .json, .jsonl and .traj files.

Options:
  --format F          force the transcript format: ${transcriptFormats.join(', ')}
  --strategies LIST   comma-separated, from ${strategyNames.join(', ')} (default: all;
                      actual only where a transcript records the agent's own compactions)
  --mid N             mid threshold in tokens of every strategy; the peers clear here (default 50000)
  --hard N            hard threshold of every strategy; the peers summarize here (default 80000)
  --window N          context window: agent-compact's thresholds become fractions of it, and
                      every strategy runs at those thresholds unless --mid/--hard say otherwise
  --summarizer S      extractive (default, offline), anthropic:MODEL, openai:MODEL
                      openai-responses:MODEL or gemini:MODEL
  --base-url URL      base URL for the summarizer's API
  --price-input N     $ per million input tokens (default ${defaultPriceTable.inputPerMillion})
  --price-output N    $ per million output tokens (default ${defaultPriceTable.outputPerMillion})
  --summary-model-price IN,OUT
                      $ per million input and output tokens of summary calls (default: the agent's)
  --cache-ttl S       prompt-cache lifetime in seconds (default ${defaultCacheTtlSeconds})
  --turn-seconds S    seconds between requests when the transcript has no times (default ${defaultTurnSeconds})
  --ttft S            seconds to a summary call's first token (default ${defaultLatencyModel.ttftSeconds})
  --prefill-speed N   input tokens a second of a summary call (default ${defaultLatencyModel.prefillTokensPerSecond})
  --decode-speed N    output tokens a second of a summary call (default ${defaultLatencyModel.decodeTokensPerSecond})
  --background        agent-compact writes hard summaries in the background (hard: { background: true })
  --compactor JSON    agent-compact's other options, as createCompactor takes them (micro, mid, hard…),
                      e.g. '{"mid":{"keepToolResults":20}}'; the thresholds come from --mid/--hard/--window
  --next-calls N      tool calls after each compaction point the next-need probe looks at (default 40)
  --json              print one JSON object { files, total } instead of tables
  --report FILE       write a self-contained HTML report with a chart per transcript
  -h, --help          show this help

Exit codes: 0 replayed, 2 bad arguments, an unreadable transcript or no transcripts found.
`;

const transcriptExtensions = ['.json', '.jsonl', '.traj'];

function positiveNumber(
  value: string | undefined,
  flag: string,
  { integer }: { integer: boolean },
): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (
    value.trim() === '' ||
    !Number.isFinite(number) ||
    number < 0 ||
    (integer && !Number.isInteger(number))
  ) {
    throw new UsageError(`${flag} expects a ${integer ? 'whole ' : ''}number ≥ 0, got "${value}"`);
  }
  return number;
}

function speed(value: string | undefined, flag: string): number | undefined {
  const number = positiveNumber(value, flag, { integer: false });
  if (number === 0) throw new UsageError(`${flag} expects a number > 0, got "${value}"`);
  return number;
}

/** `--summary-model-price IN,OUT`: $ per million input and output tokens of summary calls. */
function parseSummaryPrice(value: string | undefined, prices: PriceTable): PriceTable {
  if (value === undefined) return prices;
  const parts = value.split(',');
  if (parts.length !== 2) {
    throw new UsageError(`--summary-model-price expects IN,OUT in $ per million tokens, got "${value}"`);
  }
  return {
    ...prices,
    model: 'summary model',
    inputPerMillion: positiveNumber(parts[0], '--summary-model-price', { integer: false })!,
    outputPerMillion: positiveNumber(parts[1], '--summary-model-price', { integer: false })!,
  };
}

function parseStrategies(value: string | undefined): StrategyName[] {
  if (value === undefined) return [...strategyNames];
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  for (const name of names) {
    if (!(strategyNames as readonly string[]).includes(name)) {
      throw new UsageError(`--strategies: unknown strategy "${name}" (use ${strategyNames.join(', ')})`);
    }
  }
  if (names.length === 0) throw new UsageError('--strategies: name at least one strategy');
  return [...new Set(names)] as StrategyName[];
}

function parseFormat(value: string | undefined): TranscriptFormat | undefined {
  if (value === undefined) return undefined;
  if (!(transcriptFormats as readonly string[]).includes(value)) {
    throw new UsageError(`--format: unknown format "${value}" (use ${transcriptFormats.join(', ')})`);
  }
  return value as TranscriptFormat;
}

/** Every transcript file under a path (the path itself when it is a file), sorted. */
async function transcriptFiles(path: string): Promise<string[]> {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(path);
  } catch {
    throw new CliError(`${path}: no such file or directory`, 2);
  }
  if (!info.isDirectory()) return [path];
  const found: string[] = [];
  const entries = await readdir(path, { withFileTypes: true });
  for (const entry of entries.sort((left, right) => left.name.localeCompare(right.name))) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) found.push(...(await transcriptFiles(child)));
    else if (transcriptExtensions.some((extension) => entry.name.endsWith(extension))) found.push(child);
  }
  return found;
}

/** One line per replayed file, with an estimate of the time left from the files done so far. */
function progress(io: CliIO): (done: number, total: number, file: string) => void {
  const now = io.now ?? Date.now;
  const started = now();
  const left = (done: number, total: number) =>
    done < total ? `, about ${timeLeft(((now() - started) / done) * (total - done))} left` : '';
  if (!io.isTTY) {
    return (done, total, file) => io.stderr(`simulate: ${done}/${total} ${file}${left(done, total)}\n`);
  }
  return (done, total, file) => {
    const width = 24;
    const filled = Math.round((done / total) * width);
    const name = file.length > 40 ? `…${file.slice(-39)}` : file;
    io.stderr(
      `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} ${name}${left(done, total)}\u001b[K`,
    );
    if (done === total) io.stderr('\n');
  };
}

// Paths under the working directory are shown relative to it, others whole.
function displayPath(cwd: string, path: string): string {
  const relativePath = relative(cwd, path);
  return relativePath === '' || relativePath.startsWith('..') ? path : relativePath;
}

const simulateOptions = {
  format: { type: 'string' },
  strategies: { type: 'string' },
  mid: { type: 'string' },
  hard: { type: 'string' },
  window: { type: 'string' },
  summarizer: { type: 'string', default: 'extractive' },
  'base-url': { type: 'string' },
  'price-input': { type: 'string' },
  'price-output': { type: 'string' },
  'summary-model-price': { type: 'string' },
  'cache-ttl': { type: 'string' },
  'turn-seconds': { type: 'string' },
  ttft: { type: 'string' },
  'prefill-speed': { type: 'string' },
  'decode-speed': { type: 'string' },
  background: { type: 'boolean', default: false },
  compactor: { type: 'string' },
  'next-calls': { type: 'string' },
  json: { type: 'boolean', default: false },
  report: { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

function parseSimulateArgs(args: string[]) {
  return parseCommandArgs(args, simulateOptions);
}

type SimulateValues = ReturnType<typeof parseSimulateArgs>['values'];

/** `--mid`, `--hard` and `--window`; mid must be below hard. */
function parseThresholds(values: SimulateValues): { mid?: number; hard?: number; window?: number } {
  const mid = positiveNumber(values.mid, '--mid', { integer: true });
  const hard = positiveNumber(values.hard, '--hard', { integer: true });
  const window = positiveNumber(values.window, '--window', { integer: true });
  if (mid !== undefined && hard !== undefined && mid >= hard) {
    throw new UsageError(`--mid (${mid}) must be below --hard (${hard})`);
  }
  return {
    ...(mid === undefined ? {} : { mid }),
    ...(hard === undefined ? {} : { hard }),
    ...(window === undefined ? {} : { window }),
  };
}

/** `--price-input` and `--price-output` over the default price table. */
function parsePrices(values: SimulateValues): PriceTable {
  const prices: PriceTable = {
    ...defaultPriceTable,
    ...(values['price-input'] === undefined
      ? {}
      : { inputPerMillion: positiveNumber(values['price-input'], '--price-input', { integer: false })! }),
    ...(values['price-output'] === undefined
      ? {}
      : { outputPerMillion: positiveNumber(values['price-output'], '--price-output', { integer: false })! }),
  };
  if (values['price-input'] !== undefined || values['price-output'] !== undefined) prices.model = 'custom';
  return prices;
}

function parseClock(values: SimulateValues): ReplayClock {
  return {
    cacheTtlSeconds:
      positiveNumber(values['cache-ttl'], '--cache-ttl', { integer: false }) ?? defaultCacheTtlSeconds,
    turnSeconds:
      positiveNumber(values['turn-seconds'], '--turn-seconds', { integer: false }) ?? defaultTurnSeconds,
  };
}

function parseLatency(values: SimulateValues): LatencyModel {
  return {
    ttftSeconds: positiveNumber(values.ttft, '--ttft', { integer: false }) ?? defaultLatencyModel.ttftSeconds,
    prefillTokensPerSecond:
      speed(values['prefill-speed'], '--prefill-speed') ?? defaultLatencyModel.prefillTokensPerSecond,
    decodeTokensPerSecond:
      speed(values['decode-speed'], '--decode-speed') ?? defaultLatencyModel.decodeTokensPerSecond,
  };
}

/** `--compactor JSON` with `--background`: agent-compact's options for the replay, if any. */
function parseCompactorOptions(values: SimulateValues): SimulateOptions['agentCompact'] {
  const options = values.compactor === undefined ? undefined : jsonObject(values.compactor);
  if (!values.background) return options;
  return { ...options, hard: { ...(options?.hard as object | undefined), background: true } };
}

function jsonObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--compactor expects a JSON object: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new UsageError('--compactor expects a JSON object, e.g. \'{"micro":{"keepTurns":6}}\'');
  return value as Record<string, unknown>;
}

/** A transcript that could not be read in a directory, and why. */
interface SkippedFile {
  file: string;
  error: string;
}

/** Reads every transcript the positionals name; in a directory, files that are not transcripts are skipped. */
async function readTranscripts(
  positionals: readonly string[],
  format: TranscriptFormat | undefined,
  io: CliIO,
): Promise<{ inputs: SimulationInput[]; skipped: SkippedFile[] }> {
  const inputs: SimulationInput[] = [];
  const skipped: SkippedFile[] = [];
  for (const positional of positionals) {
    const path = resolve(io.cwd, positional);
    const isDirectory = (await stat(path).catch(() => undefined))?.isDirectory() ?? false;
    for (const file of await transcriptFiles(path)) {
      const name = displayPath(io.cwd, file);
      try {
        const imported = await importTranscriptFile(file, format === undefined ? {} : { format });
        for (const warning of imported.meta.warnings ?? []) io.stderr(`simulate: warning: ${warning}\n`);
        inputs.push(simulationInputOf(name, imported));
      } catch (error) {
        // In a directory a file that is not a transcript is skipped; a file named alone must read.
        if (!isDirectory) throw error;
        const reason = error instanceof Error ? error.message.split('\n')[0]! : String(error);
        skipped.push({ file: name, error: reason });
        io.stderr(`simulate: skipped ${name}: ${reason}\n`);
      }
    }
  }
  return { inputs, skipped };
}

/** Runs the replay; invalid options (from the core) are a usage error. */
async function runSimulation(
  inputs: readonly SimulationInput[],
  options: SimulateOptions,
): Promise<SimulationResult> {
  try {
    return await simulate(inputs, options);
  } catch (error) {
    if (CompactError.isInstance(error) && error.code === 'INVALID_OPTIONS')
      throw new CliError(error.message, 2);
    throw error;
  }
}

/** The `simulate` command. */
export const simulateCommand: CliCommand = async (args, io) => {
  const { values, positionals } = parseSimulateArgs(args);
  if (values.help) {
    io.stdout(help);
    return 0;
  }
  if (positionals.length === 0) throw new UsageError('name a transcript file or directory (see --help)');

  let strategies = parseStrategies(values.strategies);
  const format = parseFormat(values.format);
  const thresholds = parseThresholds(values);
  const prices = parsePrices(values);
  const summaryPrices = parseSummaryPrice(values['summary-model-price'], prices);
  const clock = parseClock(values);
  const latency = parseLatency(values);
  const nextCalls = positiveNumber(values['next-calls'], '--next-calls', { integer: true });
  if (nextCalls === 0) throw new CliError('--next-calls expects a whole number > 0, got "0"', 2);
  const agentCompact = parseCompactorOptions(values);
  const summarizer =
    (await createSummaryModelFromSpec(values.summarizer, {
      env: io.env,
      ...(values['base-url'] === undefined ? {} : { baseURL: values['base-url'] }),
    })) ?? createExtractiveSummaryModel();

  const { inputs, skipped } = await readTranscripts(positionals, format, io);
  if (inputs.length === 0) throw new CliError('no transcripts found to replay', 2);
  // By default `actual` is replayed only where an agent compacted by itself; elsewhere it is `none`.
  if (values.strategies === undefined && inputs.every((input) => (input.compactions ?? []).length === 0)) {
    strategies = strategies.filter((name) => name !== 'actual');
  }

  const result = await runSimulation(inputs, {
    strategies,
    summarizer,
    counter: await createCliCounter('o200k', { stderr: io.stderr }),
    prices,
    summaryPrices,
    clock,
    latency,
    onFile: progress(io),
    ...thresholds,
    ...(nextCalls === undefined ? {} : { nextCalls }),
    ...(agentCompact === undefined ? {} : { agentCompact }),
  });

  if (values.report !== undefined) {
    const reportPath = resolve(io.cwd, values.report);
    await writeFile(
      reportPath,
      renderReport(result, { subtitle: `agent-compact simulate ${args.join(' ')}` }),
    );
    io.stderr(`simulate: wrote ${displayPath(io.cwd, reportPath)}\n`);
  }
  if (values.json) {
    io.stdout(
      `${JSON.stringify({ ...simulationToJson(result), ...(skipped.length > 0 ? { skipped } : {}) }, null, 2)}\n`,
    );
  } else {
    io.stdout(simulationToText(result));
  }
  return 0;
};
