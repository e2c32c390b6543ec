/**
 * The repository's `agent-compact`: the published commands (src/cli/main.ts) and the lab's own,
 * which need the replay lab or the reference agent and so are in no published package.
 */
import type { CliIO } from '../cli/cli-io.js';
import { type CommandEntry, commands, main as runCli } from '../cli/main.js';

const labCommands: Record<string, CommandEntry> = {
  simulate: {
    summary: 'replay agent transcripts through the strategies and compare them',
    usage: 'agent-compact simulate FILE|DIR... [options]',
    load: async () => (await import('./commands/simulate.js')).simulateCommand,
  },
  run: {
    summary: 'run the reference coding agent on one task',
    usage: 'agent-compact run "TASK" [options]',
    load: async () => (await import('./commands/run.js')).runCommand,
  },
  chat: {
    summary: 'chat with the reference coding agent',
    usage: 'agent-compact chat [options]',
    load: async () => (await import('./commands/chat.js')).chatCommand,
  },
};

/** Runs the lab's CLI (every command) and returns the exit code. */
export function main(argv: string[], io: CliIO): Promise<number> {
  return runCli(argv, io, { ...commands, ...labCommands });
}
