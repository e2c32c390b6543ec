import { CompactError } from '../core/errors.js';
import { type CliCommand, CliError, type CliIO } from './cli-io.js';

const commands: Record<string, { summary: string; load: () => Promise<CliCommand> }> = {
  validate: {
    summary: 'check a conversation against the provider rules (--fix -o OUT repairs it)',
    load: async () => (await import('./commands/validate.js')).validateCommand,
  },
  count: {
    summary: 'count the tokens of a conversation',
    load: async () => (await import('./commands/count.js')).countCommand,
  },
  compact: {
    summary: 'compact a conversation once and write the result',
    load: async () => (await import('./commands/compact.js')).compactCommand,
  },
  recall: {
    summary: 'print the original of an archived item (recall ID --archive DIR)',
    load: async () => (await import('./commands/recall.js')).recallCommand,
  },
  simulate: {
    summary: 'replay agent transcripts through the strategies and compare them',
    load: async () => (await import('./commands/simulate.js')).simulateCommand,
  },
  run: {
    summary: 'run the reference coding agent on one task',
    load: async () => (await import('./commands/run.js')).runCommand,
  },
  proxy: {
    summary: 'compact the conversations of any agent through its base URL',
    load: async () => (await import('./commands/proxy.js')).proxyCommand,
  },
  mcp: {
    summary: 'serve an archive to MCP clients: recall, search, sessions (stdio)',
    load: async () => (await import('./commands/mcp.js')).mcpCommand,
  },
  chat: {
    summary: 'chat with the reference coding agent',
    load: async () => (await import('./commands/chat.js')).chatCommand,
  },
};

function usage(): string {
  const lines = Object.entries(commands).map(([name, { summary }]) => `  ${name.padEnd(10)}${summary}`);
  return `Usage: agent-compact <command> [options]\n\nCommands:\n${lines.join('\n')}\n\nRun agent-compact <command> --help for a command's options.\n`;
}

/** Runs the CLI and returns the exit code. Errors become one line on stderr. */
export async function main(argv: string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(usage());
    return name ? 0 : 2;
  }
  if (name === '--version' || name === '-v') {
    io.stdout('0.1.0\n');
    return 0;
  }
  const command = commands[name];
  if (!command) {
    io.stderr(`agent-compact: unknown command "${name}"\n\n${usage()}`);
    return 2;
  }
  try {
    return await (await command.load())(rest, io);
  } catch (error) {
    io.stderr(`agent-compact ${name}: ${describeError(error)}\n`);
    return exitCodeOf(error);
  }
}

function describeError(error: unknown): string {
  if (error instanceof Error) return error.message.split('\n')[0] ?? error.name;
  return String(error);
}

function exitCodeOf(error: unknown): number {
  if (error instanceof CliError) return error.exitCode;
  if (CompactError.isInstance(error) && error.code === 'INVALID_TRANSCRIPT') return 1;
  return 2;
}
