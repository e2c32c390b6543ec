/** Installs the real agent CLIs once into a cache folder (kept out of the repository and npm test). */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Claude Code pinned at the version whose default model first sent `role: "system"` messages
 * under `per-turn-control-2026-07-01` (the proxy's own check rejected every compaction of it), so
 * a cached older install cannot hide that again.
 */
export const PINNED_CLAUDE_CODE = '2.1.328';
/** opencode pinned at the version whose requests were checked (its native binary comes in a platform package). */
const PINNED_OPENCODE = '1.18.33';
/** The packages the end-to-end runs drive; Gemini CLI pinned (its requests were checked at 0.61.0). */
const agentPackages = [
  `@anthropic-ai/claude-code@${PINNED_CLAUDE_CODE}`,
  '@openai/codex',
  '@google/gemini-cli@0.61.0',
  `opencode-ai@${PINNED_OPENCODE}`,
];
/** The newest Claude Code at install time, in a folder of its own beside the pinned one. */
const NEWEST_CLAUDE_FOLDER = 'claude-code-newest';

/** Where the agents are installed: `AGENT_COMPACT_E2E_DIR`, else `~/.cache/agent-compact-e2e`. */
export function agentsDirectory(): string {
  return process.env.AGENT_COMPACT_E2E_DIR ?? join(homedir(), '.cache', 'agent-compact-e2e');
}

/** The commands that start each agent, and the Claude Code versions installed. */
export interface InstalledAgents {
  claude: string[];
  claudeVersion: string;
  claudeNewest: string[];
  claudeNewestVersion: string;
  codex: string[];
  gemini: string[];
  opencode: string[];
  opencodeVersion: string;
}

function installedVersion(modules: string, name: string): string | undefined {
  const path = join(modules, name, 'package.json');
  if (!existsSync(path)) return undefined;
  return (JSON.parse(readFileSync(path, 'utf8')) as { version?: string }).version;
}

function npmInstall(directory: string, packages: string[]): void {
  mkdirSync(directory, { recursive: true });
  if (!existsSync(join(directory, 'package.json'))) {
    writeFileSync(
      join(directory, 'package.json'),
      '{ "name": "agent-compact-e2e-agents", "private": true }\n',
    );
  }
  console.log(`installing ${packages.join(', ')} into ${directory} …`);
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--save-exact', ...packages], {
    cwd: directory,
    stdio: 'inherit',
  });
}

/** The commands that start each agent, installing them first when they are missing or stale. */
export function installAgents(): InstalledAgents {
  const directory = agentsDirectory();
  const modules = join(directory, 'node_modules');
  const claudeWrapper = (folder: string) => join(folder, '@anthropic-ai', 'claude-code', 'cli-wrapper.cjs');
  const codexBin = join(modules, '@openai', 'codex', 'bin', 'codex.js');
  const geminiBundle = join(modules, '@google', 'gemini-cli', 'bundle', 'gemini.js');
  // The package's `bin` is the native binary itself (its postinstall, which npm may skip, only checks it).
  const opencodeBin = join(modules, 'opencode-ai', 'bin', 'opencode.exe');
  const current =
    [claudeWrapper(modules), codexBin, geminiBundle, opencodeBin].every((path) => existsSync(path)) &&
    installedVersion(modules, '@anthropic-ai/claude-code') === PINNED_CLAUDE_CODE &&
    installedVersion(modules, 'opencode-ai') === PINNED_OPENCODE;
  if (!current) npmInstall(directory, agentPackages);
  const newest = join(directory, NEWEST_CLAUDE_FOLDER);
  const newestModules = join(newest, 'node_modules');
  if (!existsSync(claudeWrapper(newestModules))) npmInstall(newest, ['@anthropic-ai/claude-code@latest']);
  // The wrapper runs the native binary even when the package's postinstall did not run.
  return {
    claude: [process.execPath, claudeWrapper(modules)],
    claudeVersion: installedVersion(modules, '@anthropic-ai/claude-code') ?? '?',
    claudeNewest: [process.execPath, claudeWrapper(newestModules)],
    claudeNewestVersion: installedVersion(newestModules, '@anthropic-ai/claude-code') ?? '?',
    codex: [process.execPath, codexBin],
    gemini: [process.execPath, geminiBundle],
    opencode: [opencodeBin],
    opencodeVersion: installedVersion(modules, 'opencode-ai') ?? '?',
  };
}
