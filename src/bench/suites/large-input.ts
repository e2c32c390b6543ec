// `compact` and `count` on large Anthropic JSONL sessions, 10 MB to 200 MB: time and peak memory per
// MB of input, each run in its own process (peak RSS is the process's). Flat per-MB figures mean
// linear work; the ratio column divides each size's figure by the smallest size's.
// `npm run bench -- large-input` (LARGE_INPUT_SIZES=10,20 for a shorter run).
//
// The inputs are made here, in a temp folder, by repeating the bundled example session
// (examples/session.jsonl) with every repetition varied: its ids renamed, each line of text
// marked with the repetition, so no text repeats and no cache sees the same string twice.
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Input sizes in MB (10⁶ bytes); the figures were 10/20/40/200. */
const DEFAULT_SIZES_MB = [10, 20, 40, 100, 200];
const MB = 1_000_000;

const examplePath = fileURLToPath(new URL('../../../examples/session.jsonl', import.meta.url));
const childPath = fileURLToPath(new URL('../large-input-child.js', import.meta.url));

/** What the child reports of one command. */
interface Measured {
  exitCode: number;
  wallMs: number;
  cpuMs: number;
  maxRssBytes: number;
  /** The largest heap in use just after a full collection: what the command holds at its peak. */
  liveHeapBytes: number;
}

/** A value with its type, id or name fields left alone and every other string marked per repetition. */
function vary(value: unknown, repetition: number, key?: string): unknown {
  if (typeof value === 'string') {
    if (key === 'type' || key === 'role' || key === 'name') return value;
    if (key === 'id' || key === 'tool_use_id') return `${value}_r${repetition}`;
    return value.replace(/\n/g, ` r${repetition}\n`);
  }
  if (Array.isArray(value)) return value.map((item) => vary(item, repetition, key));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([name, item]) => [name, vary(item, repetition, name)]),
    );
  }
  return value;
}

/** Writes a session of at least `megabytes` MB: the example's system line, then its messages repeated. */
async function writeSession(path: string, megabytes: number): Promise<number> {
  const [systemLine, ...messageLines] = (await readFile(examplePath, 'utf8')).split('\n').filter(Boolean);
  const messages = messageLines.map((line) => JSON.parse(line) as unknown);
  const out = createWriteStream(path);
  const write = (line: string) =>
    out.write(`${line}\n`) ? Promise.resolve() : new Promise<void>((done) => out.once('drain', done));
  let bytes = 0;
  await write(systemLine!);
  for (let repetition = 0; bytes < megabytes * MB; repetition++) {
    for (const message of messages) {
      const line = JSON.stringify(vary(message, repetition));
      bytes += Buffer.byteLength(line) + 1;
      await write(line);
    }
  }
  await new Promise<void>((done, fail) => out.end((error?: Error | null) => (error ? fail(error) : done())));
  return (await stat(path)).size;
}

/** Runs one CLI command in a child process and reads what it measured. */
async function measure(directory: string, args: string[]): Promise<Measured> {
  const report = join(directory, 'report.json');
  const child = spawn(process.execPath, [childPath, report, '--', ...args], {
    cwd: directory,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const code = await new Promise<number | null>((done) => child.on('close', done));
  if (code !== 0) throw new Error(`${args.join(' ')} exited ${code}: ${stderr.trim()}`);
  const measured = JSON.parse(await readFile(report, 'utf8')) as Measured;
  if (measured.exitCode !== 0)
    throw new Error(`${args.join(' ')} exited ${measured.exitCode}: ${stderr.trim()}`);
  return measured;
}

function sizes(): number[] {
  const asked = process.env.LARGE_INPUT_SIZES;
  if (!asked) return DEFAULT_SIZES_MB;
  return asked.split(',').map((size) => {
    const number = Number(size);
    if (!(number > 0)) throw new Error(`LARGE_INPUT_SIZES: not a size in MB: "${size}"`);
    return number;
  });
}

interface Row {
  megabytes: number;
  compact: Measured;
  count: Measured;
}

const fixed = (value: number, digits: number) => value.toFixed(digits);
const cpuSeconds = (measured: Measured) => measured.cpuMs / 1000;
const peakMb = (measured: Measured) => measured.maxRssBytes / MB;
const liveMb = (measured: Measured) => measured.liveHeapBytes / MB;

/**
 * A figure per MB of input over the baseline (the same command on the 0.4 MB example): what each MB
 * adds, without Node's start and the tokenizer's tables, which every run pays once.
 */
function perMb(row: Row, baseline: Row, pick: (row: Row) => number): number {
  return (pick(row) - pick(baseline)) / (row.megabytes - baseline.megabytes);
}

function printRows(baseline: Row, rows: readonly Row[]): void {
  const compactCpu = (row: Row) => cpuSeconds(row.compact);
  const compactPeak = (row: Row) => peakMb(row.compact);
  const compactLive = (row: Row) => liveMb(row.compact);
  const countCpu = (row: Row) => cpuSeconds(row.count);
  const countPeak = (row: Row) => peakMb(row.count);
  console.log(
    `baseline (${fixed(baseline.megabytes, 2)} MB example): compact ${fixed(compactCpu(baseline), 2)} s CPU, ` +
      `${fixed(compactPeak(baseline), 0)} MB peak; count ${fixed(countCpu(baseline), 2)} s CPU, ` +
      `${fixed(countPeak(baseline), 0)} MB peak\n`,
  );
  console.log(
    '| input MB | compact CPU s | compact wall s | compact peak MB | compact live MB | compact CPU s/MB | compact peak MB/MB | compact live MB/MB | count CPU s | count peak MB | count CPU s/MB | compact/count CPU |',
  );
  console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const row of rows) {
    console.log(
      `| ${fixed(row.megabytes, 1)} | ${fixed(compactCpu(row), 1)} | ${fixed(row.compact.wallMs / 1000, 1)} | ` +
        `${fixed(compactPeak(row), 0)} | ${fixed(compactLive(row), 0)} | ${fixed(perMb(row, baseline, compactCpu), 3)} | ` +
        `${fixed(perMb(row, baseline, compactPeak), 2)} | ${fixed(perMb(row, baseline, compactLive), 2)} | ` +
        `${fixed(countCpu(row), 1)} | ${fixed(countPeak(row), 0)} | ` +
        `${fixed(perMb(row, baseline, countCpu), 3)} | ${fixed(compactCpu(row) / countCpu(row), 2)} |`,
    );
  }
  const first = rows[0]!;
  const last = rows.at(-1)!;
  const ratio = (pick: (row: Row) => number) =>
    fixed(perMb(last, baseline, pick) / perMb(first, baseline, pick), 2);
  console.log(
    `\nper MB, ${fixed(last.megabytes, 0)} MB against ${fixed(first.megabytes, 0)} MB (1.00 is flat): ` +
      `compact CPU ${ratio(compactCpu)}×, compact peak memory ${ratio(compactPeak)}× (live heap ${ratio(compactLive)}×); ` +
      `count CPU ${ratio(countCpu)}×, count peak memory ${ratio(countPeak)}×`,
  );
}

/** Compacts and counts one input, the compacted output and its archive in `directory`. */
async function measureBoth(directory: string, input: string, megabytes: number): Promise<Row> {
  const output = join(directory, 'out.jsonl');
  const compact = await measure(directory, ['compact', input, '-o', output]);
  const count = await measure(directory, ['count', input]);
  await rm(`${output}.archive`, { recursive: true, force: true });
  return { megabytes, compact, count };
}

export async function run(): Promise<void> {
  const directory = await mkdtemp(join(tmpdir(), 'agent-compact-large-input-'));
  try {
    const baseline = await measureBoth(directory, examplePath, (await stat(examplePath)).size / MB);
    const rows: Row[] = [];
    for (const size of sizes()) {
      const input = join(directory, `session-${size}mb.jsonl`);
      const row = await measureBoth(directory, input, (await writeSession(input, size)) / MB);
      await rm(input);
      rows.push(row);
      console.log(
        `${fixed(row.megabytes, 1)} MB: compact ${fixed(cpuSeconds(row.compact), 1)} s CPU ` +
          `(${fixed(row.compact.wallMs / 1000, 1)} s wall), peak ${fixed(peakMb(row.compact), 0)} MB ` +
          `(live heap ${fixed(liveMb(row.compact), 0)} MB); ` +
          `count ${fixed(cpuSeconds(row.count), 1)} s CPU, peak ${fixed(peakMb(row.count), 0)} MB`,
      );
    }
    console.log('');
    printRows(baseline, rows);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
