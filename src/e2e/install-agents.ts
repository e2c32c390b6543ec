/** Installs the real agent CLIs once into a cache folder (kept out of the repository and npm test). */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The packages the end-to-end runs drive; Gemini CLI pinned (its requests were checked at 0.61.0). */
const agentPackages = ['@anthropic-ai/claude-code', '@openai/codex', '@google/gemini-cli@0.61.0'];

/** Where the agents are installed: `AGENT_COMPACT_E2E_DIR`, else `~/.cache/agent-compact-e2e`. */
export function agentsDirectory(): string {
  return process.env.AGENT_COMPACT_E2E_DIR ?? join(homedir(), '.cache', 'agent-compact-e2e');
}

/** The commands that start each agent, installing them first when they are missing. */
export function installAgents(): { claude: string[]; codex: string[]; gemini: string[] } {
  const directory = agentsDirectory();
  const modules = join(directory, 'node_modules');
  const claudeWrapper = join(modules, '@anthropic-ai', 'claude-code', 'cli-wrapper.cjs');
  const codexBin = join(modules, '@openai', 'codex', 'bin', 'codex.js');
  const geminiBundle = join(modules, '@google', 'gemini-cli', 'bundle', 'gemini.js');
  if (![claudeWrapper, codexBin, geminiBundle].every((path) => existsSync(path))) {
    mkdirSync(directory, { recursive: true });
    if (!existsSync(join(directory, 'package.json'))) {
      writeFileSync(
        join(directory, 'package.json'),
        '{ "name": "agent-compact-e2e-agents", "private": true }\n',
      );
    }
    console.log(`installing ${agentPackages.join(', ')} into ${directory} …`);
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--save-exact', ...agentPackages], {
      cwd: directory,
      stdio: 'inherit',
    });
  }
  // The wrapper runs the native binary even when the package's postinstall did not run.
  return {
    claude: [process.execPath, claudeWrapper],
    codex: [process.execPath, codexBin],
    gemini: [process.execPath, geminiBundle],
  };
}
