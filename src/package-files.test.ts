/**
 * What `npm pack` publishes: each package's `files` rules applied to a dist tree with test files in
 * it, so the check does not depend on a build having run.
 *
 * The core package (`packages/core`, published as `agent-compact`) is checked the same way: its
 * build compiles its subpaths' entry points and what they import (read here with the TypeScript
 * program of `packages/core/tsconfig.build.json`), which must hold no file of the proxy, the CLI,
 * the lab or the tests, and its manifest names no runtime dependency. The packages beside it
 * (`packages/redis`, `packages/testing`) each compile their own folder of src/ alone and reach the
 * core through its package name; so do the proxy package (`packages/proxy`: src/proxy, src/cli
 * without the lab's commands, src/otel) and the private lab at the root, whose build holds no core
 * file, so a process loads one copy of the core.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const scratch = mkdtempSync(join(tmpdir(), 'agent-compact-pack-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The paths `npm pack --dry-run --json` lists for a package with these fields and that tree. */
function packedFiles(fields: Record<string, unknown>, emitted: string[], folder: string): string[] {
  const { name, version, files, bin, main, types, exports } = fields;
  mkdirSync(folder, { recursive: true });
  writeFileSync(
    join(folder, 'package.json'),
    JSON.stringify({ name, version, files, bin, main, types, exports }),
  );
  for (const path of emitted) {
    mkdirSync(dirname(join(folder, path)), { recursive: true });
    writeFileSync(join(folder, path), '');
  }
  const output = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: folder,
    encoding: 'utf8',
    env: { ...process.env, npm_config_loglevel: 'silent' },
  });
  return (JSON.parse(output) as [{ files: { path: string }[] }])[0].files.map((file) => file.path);
}

const corePackage = join(root, 'packages', 'core');
const coreManifest = JSON.parse(readFileSync(join(corePackage, 'package.json'), 'utf8'));
/** What the proxy, the CLI, the lab and the tests are made of: none of it is in the core package. */
const NOT_CORE =
  /^(proxy|cli|simulate|agent|redis|testing|otel|bench|e2e|reliability)\/|(^|\/)__fixtures__\/|\.test(-utils)?\.ts$/;

/** The repository's source files a workspace package's build compiles, relative to src/. */
function packageSources(folder: string): string[] {
  const configPath = join(folder, 'tsconfig.build.json');
  const config = ts.getParsedCommandLineOfConfigFile(
    configPath,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  if (!config) throw new Error(`${configPath}: not read`);
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
  const source = `${join(root, 'src')}/`;
  return program
    .getSourceFiles()
    .map((file) => file.fileName)
    .filter((path) => path.startsWith(source))
    .map((path) => path.slice(source.length));
}

describe('the core package (agent-compact)', () => {
  const sources = packageSources(corePackage);

  it('compiles the core and its adapters, and no file of the proxy, the CLI, the lab or the tests', () => {
    expect(sources).toEqual(expect.arrayContaining(['index.ts', 'core/compactor.ts', 'ai-sdk/index.ts']));
    expect(sources.filter((path) => NOT_CORE.test(path))).toEqual([]);
  });

  it('has no runtime dependency, only optional peers', () => {
    expect(coreManifest.dependencies ?? {}).toEqual({});
    expect(coreManifest.bin).toBeUndefined();
    const peers = Object.keys(coreManifest.peerDependencies ?? {});
    expect(peers.filter((peer) => coreManifest.peerDependenciesMeta?.[peer]?.optional !== true)).toEqual([]);
  });

  it('exports a subpath for each entry point it builds', () => {
    for (const [subpath, target] of Object.entries(coreManifest.exports)) {
      if (subpath === './package.json') continue;
      const entry = (target as { import: string }).import.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts');
      expect([subpath, sources]).toEqual([subpath, expect.arrayContaining([entry])]);
    }
  });

  it('packs its dist and nothing else of the repository', () => {
    const emitted = sources.flatMap((path) => {
      const base = `dist/${path.replace(/\.ts$/, '')}`;
      return [`${base}.js`, `${base}.d.ts`];
    });
    const files = packedFiles(
      coreManifest,
      [...emitted, 'dist/core/compactor.test.js'],
      join(scratch, 'core'),
    );
    expect(files).toEqual(
      expect.arrayContaining(['dist/index.js', 'dist/ai-sdk/index.d.ts', 'package.json']),
    );
    expect(files.filter((path) => path !== 'package.json' && !path.startsWith('dist/'))).toEqual([]);
    expect(files.filter((path) => /\.test\./.test(path))).toEqual([]);
  });
});

/** The packages beside the core: each compiles its own folder of src/ and reaches the core by name. */
const besideCore = [
  {
    folder: 'redis',
    name: '@agent-compact/redis',
    dependencies: ['agent-compact', 'lru-cache'],
    peers: ['redis'],
  },
  { folder: 'testing', name: '@agent-compact/testing', dependencies: ['agent-compact'], peers: [] },
];

describe.each(besideCore)('the package $name', ({ folder, name, dependencies, peers }) => {
  const packageFolder = join(root, 'packages', folder);
  const packageManifest = JSON.parse(readFileSync(join(packageFolder, 'package.json'), 'utf8'));

  it(`compiles src/${folder} alone: the core comes from the agent-compact package`, () => {
    const sources = packageSources(packageFolder);
    expect(packageManifest.name).toBe(name);
    expect(sources).toContain(`${folder}/index.ts`);
    const outside = sources.filter(
      (path) => !path.startsWith(`${folder}/`) || /\.test(-utils)?\.ts$/.test(path),
    );
    expect(outside).toEqual([]);
  });

  it('depends on the core (this version) and what its code imports, nothing more', () => {
    expect(Object.keys(packageManifest.dependencies ?? {}).sort()).toEqual(dependencies);
    expect(packageManifest.dependencies['agent-compact']).toBe(coreManifest.version);
    expect(Object.keys(packageManifest.peerDependencies ?? {})).toEqual(peers);
  });

  it('packs its dist and nothing else of the repository', () => {
    const files = packedFiles(
      packageManifest,
      ['dist/index.js', 'dist/index.d.ts', 'dist/index.test.js'],
      join(scratch, folder),
    );
    const elsewhere = files.filter(
      (path) => path !== 'package.json' && path !== 'README.md' && !path.startsWith('dist/'),
    );
    expect(elsewhere).toEqual([]);
    expect(files).toContain('dist/index.js');
    expect(files.filter((path) => /\.test\./.test(path))).toEqual([]);
  });
});

const proxyPackage = join(root, 'packages', 'proxy');
const proxyManifest = JSON.parse(readFileSync(join(proxyPackage, 'package.json'), 'utf8'));

describe('the proxy package (@agent-compact/proxy)', () => {
  const sources = packageSources(proxyPackage);

  it('compiles the proxy, the CLI and its OpenTelemetry adapter; the core by name, no lab file', () => {
    expect(sources).toEqual(
      expect.arrayContaining(['cli/bin.ts', 'cli/commands/wrap.ts', 'proxy/index.ts', 'otel/index.ts']),
    );
    expect(sources.filter((path) => !/^(cli|proxy|otel)\//.test(path))).toEqual([]);
  });

  it('depends on the core, undici, the SSE parser and lru-cache; the Redis stores and OpenTelemetry are optional', () => {
    expect(Object.keys(proxyManifest.dependencies).sort()).toEqual([
      'agent-compact',
      'eventsource-parser',
      'lru-cache',
      'undici',
    ]);
    expect(proxyManifest.dependencies['agent-compact']).toBe(coreManifest.version);
    for (const peer of Object.keys(proxyManifest.peerDependencies)) {
      expect([peer, proxyManifest.peerDependenciesMeta[peer]?.optional]).toEqual([peer, true]);
    }
  });

  it('links the agent-compact bin to a committed file that runs the built CLI', () => {
    expect(proxyManifest.bin).toEqual({ 'agent-compact': './bin/agent-compact.js' });
    expect(readFileSync(join(proxyPackage, 'bin', 'agent-compact.js'), 'utf8')).toContain(
      "import '../dist/cli/bin.js';",
    );
  });

  it('packs its bin and dist and nothing else of the repository', () => {
    const files = packedFiles(
      proxyManifest,
      ['bin/agent-compact.js', 'dist/cli/bin.js', 'dist/proxy/index.js', 'dist/proxy/access.test.js'],
      join(scratch, 'proxy'),
    );
    expect(files.sort()).toEqual([
      'bin/agent-compact.js',
      'dist/cli/bin.js',
      'dist/proxy/index.js',
      'package.json',
    ]);
  });
});

describe('the lab (the private workspace root)', () => {
  const sources = packageSources(root);

  it('is never published', () => {
    expect(manifest.private).toBe(true);
  });

  it('compiles no core file: the lab, the proxy and the CLI reach the core by its package name', () => {
    expect(sources).toEqual(expect.arrayContaining(['lab/bin.ts', 'simulate/simulate.ts', 'bench/run.ts']));
    const core = new Set(packageSources(corePackage));
    expect(sources.filter((path) => core.has(path))).toEqual([]);
  });

  it('builds bench and e2e, which their scripts run from dist/', () => {
    expect(sources).toEqual(expect.arrayContaining(['bench/run.ts', 'e2e/run.ts']));
    expect(manifest.scripts.bench).toContain('dist/bench/run.js');
    expect(manifest.scripts.e2e).toContain('dist/e2e/run.js');
  });
});
