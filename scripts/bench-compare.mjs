// Compares one benchmark suite between a baseline commit and this checkout's build, alternating
// runs (baseline, this, baseline, this, …) so both see the same machine load, and prints each run's
// figures, the medians and this build's median ÷ the baseline's.
//
//   npm run build && node scripts/bench-compare.mjs --baseline 354f8f2 [--runs 3] compaction-overhead
//   node scripts/bench-compare.mjs --baseline 354f8f2 proxy-cpu   # both proxies in one run, taking turns
//
// The baseline is checked out with `git worktree` into a temporary folder, installed with `npm ci`
// and built once (`--keep DIR` reuses one). compaction-overhead runs this checkout's harness on both
// sides (each against its own library); the other suites run each side's own. Figures are normalised within each run where the suite
// prints a floor measured beside it (the seed port, the bare Node hop), so load moves both sides.
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Per suite: the figures read from its output, each `[name, regex, lower is better]`. */
const FIGURES = {
  'compaction-overhead': [
    // The 5,000-turn row: agent-compact default mean (median), o200k, seed port mean (median).
    ['5,000 turns median µs', /^\| 5,000 \| \d+ \((\d+)\)/m],
    ['5,000 turns mean µs', /^\| 5,000 \| (\d+) \(/m],
    [
      '5,000 turns median ÷ seed port median',
      /^\| 5,000 \| \d+ \((\d+)\) \| [^|]+\| \d+ \((\d+)\)/m,
      (a, b) => a / b,
    ],
  ],
  proxy: [
    ['small request added p50 ms', /^Small request \(.*\n.*added p50 ([\d.]+) ms/m],
    ['CPU per request, proxy ms', /CPU per request .*proxy ([\d.]+) ms/],
    [
      'CPU per request ÷ bare hop',
      /CPU per request .*bare hop ([\d.]+) ms, proxy ([\d.]+) ms/,
      (hop, proxy) => proxy / hop,
    ],
    [
      'requests per second ÷ direct',
      /Requests per second.*direct (\d+), proxy (\d+)/,
      (direct, proxy) => proxy / direct,
    ],
  ],
};

function figuresOf(suite, output) {
  return FIGURES[suite].map(([name, pattern, combine]) => {
    const match = output.match(pattern);
    if (!match) return [name, Number.NaN];
    const values = match.slice(1).map(Number);
    return [name, combine ? combine(...values) : values[0]];
  });
}

function baselineBuild(commit, keep) {
  const dir = keep ?? path.join(mkdtempSync(path.join(tmpdir(), 'bench-baseline-')), 'repo');
  if (!existsSync(path.join(dir, 'dist', 'bench', 'run.js'))) {
    if (!existsSync(dir))
      execFileSync('git', ['worktree', 'add', '--detach', dir, commit], { cwd: root, stdio: 'inherit' });
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' });
    execFileSync('npm', ['run', 'build'], { cwd: dir, stdio: 'inherit' });
  }
  return dir;
}

/**
 * Suites that use only the public API: both sides run this checkout's copy of the suite, each
 * against its own library, so a change to the harness (its warm-up, its session) moves both.
 */
const SAME_HARNESS = ['compaction-overhead'];

/** This checkout's compiled suite, copied into `dir`'s dist beside its own (where its imports resolve). */
function harnessIn(dir, suite) {
  const target = path.join(dir, 'dist', 'bench', 'compare-harness');
  mkdirSync(target, { recursive: true });
  copyFileSync(path.join(root, 'dist', 'bench', 'suites', `${suite}.js`), path.join(target, `${suite}.js`));
  return pathToFileURL(path.join(target, `${suite}.js`)).href;
}

function runSuite(dir, suite) {
  const args = SAME_HARNESS.includes(suite)
    ? ['--input-type=module', '-e', `await (await import(${JSON.stringify(harnessIn(dir, suite))})).run();`]
    : ['dist/bench/run.js', suite];
  const result = spawnSync(process.execPath, ['--expose-gc', ...args], {
    cwd: dir,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) throw new Error(`${suite} failed in ${dir}:\n${result.stderr}`);
  return figuresOf(suite, result.stdout);
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const shown = (value) => (Number.isInteger(value) ? String(value) : value.toFixed(3));

const { values, positionals } = parseArgs({
  options: { baseline: { type: 'string' }, runs: { type: 'string', default: '3' }, keep: { type: 'string' } },
  allowPositionals: true,
});
const [suite] = positionals;
// proxy-cpu starts the baseline's proxy itself, beside this build's, taking turns within one run.
const SAME_RUN = ['proxy-cpu'];
if (!values.baseline || !(FIGURES[suite] || SAME_RUN.includes(suite))) {
  console.error(
    `usage: node scripts/bench-compare.mjs --baseline COMMIT [--runs N] [--keep DIR] ${[...Object.keys(FIGURES), ...SAME_RUN].join('|')}`,
  );
  process.exit(2);
}
if (!existsSync(path.join(root, 'dist', 'bench', 'run.js'))) throw new Error('run `npm run build` first');
const baseline = baselineBuild(values.baseline, values.keep);
if (SAME_RUN.includes(suite)) {
  const result = spawnSync(process.execPath, ['dist/bench/run.js', suite], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, AGENT_COMPACT_BENCH_BASELINE: baseline },
  });
  process.exit(result.status ?? 1);
}
const runs = { baseline: [], this: [] };
for (let run = 1; run <= Number(values.runs); run++) {
  for (const [side, dir] of [
    ['baseline', baseline],
    ['this', root],
  ]) {
    const figures = runSuite(dir, suite);
    runs[side].push(figures);
    console.log(
      `run ${run} ${side}: ${figures.map(([name, value]) => `${name} ${shown(value)}`).join('; ')}`,
    );
  }
}
const head = (git) =>
  execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: git, encoding: 'utf8' }).trim();
console.log(
  `\n${suite}, ${values.runs} alternated runs each: baseline ${head(baseline)}, this ${head(root)} (medians)`,
);
console.log('| figure | baseline | this | this ÷ baseline |');
console.log('| --- | ---: | ---: | ---: |');
FIGURES[suite].forEach(([name], index) => {
  const before = median(runs.baseline.map((figures) => figures[index][1]));
  const after = median(runs.this.map((figures) => figures[index][1]));
  console.log(`| ${name} | ${shown(before)} | ${shown(after)} | ${(after / before).toFixed(2)}× |`);
});
