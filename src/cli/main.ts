import { CompactError } from 'agent-compact';
import { type CliCommand, CliError, type CliIO, UsageError } from './cli-io.js';

/** A command: its line in the list, its usage line (the first line of its --help), how to load it. */
export interface CommandEntry {
  summary: string;
  usage: string;
  load: () => Promise<CliCommand>;
}

/** The published `agent-compact` command's commands; the lab's bin adds its own (src/lab/main.ts). */
export const commands: Record<string, CommandEntry> = {
  validate: {
    summary: 'check a conversation against the provider rules (--fix -o OUT repairs it)',
    usage: 'agent-compact validate FILE [--json] [--format anthropic|openai|responses|gemini] [--fix -o OUT]',
    load: async () => (await import('./commands/validate.js')).validateCommand,
  },
  count: {
    summary: 'count the tokens of a conversation',
    usage:
      'agent-compact count FILE [--json] [--tokenizer o200k|cl100k|heuristic] [--format anthropic|openai|responses|gemini]',
    load: async () => (await import('./commands/count.js')).countCommand,
  },
  compact: {
    summary: 'compact a conversation once and write the result',
    usage: 'agent-compact compact FILE [options]',
    load: async () => (await import('./commands/compact.js')).compactCommand,
  },
  recall: {
    summary: 'print the original of an archived item (recall ID --archive DIR)',
    usage: 'agent-compact recall ID --archive DIR [--session S]',
    load: async () => (await import('./commands/recall.js')).recallCommand,
  },
  proxy: {
    summary: 'compact the conversations of any agent through its base URL',
    usage: 'agent-compact proxy --upstream URL [options]',
    load: async () => (await import('./commands/proxy.js')).proxyCommand,
  },
  wrap: {
    summary: 'run an agent through the proxy (wrap [proxy options] -- AGENT [ARGS…])',
    usage: 'agent-compact wrap [proxy options] -- AGENT [ARGS…]',
    load: async () => (await import('./commands/wrap.js')).wrapCommand,
  },
  claude: {
    summary: 'run Claude Code through the proxy (wrap -- claude …)',
    usage: 'agent-compact claude [ARGS…]',
    load: async () => (await import('./commands/wrap.js')).shortForm('claude'),
  },
  codex: {
    summary: 'run Codex through the proxy (wrap -- codex …)',
    usage: 'agent-compact codex [ARGS…]',
    load: async () => (await import('./commands/wrap.js')).shortForm('codex'),
  },
  gemini: {
    summary: 'run Gemini CLI through the proxy (wrap -- gemini …)',
    usage: 'agent-compact gemini [ARGS…]',
    load: async () => (await import('./commands/wrap.js')).shortForm('gemini'),
  },
  mcp: {
    summary: 'serve an archive to MCP clients: recall, search, sessions (stdio)',
    usage: 'agent-compact mcp (--archive DIR | --store redis://…)',
    load: async () => (await import('./commands/mcp.js')).mcpCommand,
  },
};

/** The lab's commands (src/lab/main.ts): named when asked for here, where they are not. */
const LAB_COMMANDS = ['simulate', 'run', 'chat'];

function usage(table: Record<string, CommandEntry>): string {
  const lines = Object.entries(table).map(([name, { summary }]) => `  ${name.padEnd(10)}${summary}`);
  return `Usage: agent-compact <command> [options]\n\nCommands:\n${lines.join('\n')}\n\nRun agent-compact <command> --help for a command's options and exit codes, agent-compact --version\nfor the version.\nExit codes: 2 an unknown command or bad arguments; otherwise the command's own.\n`;
}

/** Runs the CLI and returns the exit code. Errors become one line on stderr. */
export async function main(
  argv: string[],
  io: CliIO,
  table: Record<string, CommandEntry> = commands,
): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(usage(table));
    return name ? 0 : 2;
  }
  if (name === '--version' || name === '-v') {
    io.stdout('0.1.0\n');
    return 0;
  }
  const command = table[name];
  if (!command) {
    const where = LAB_COMMANDS.includes(name)
      ? ` (it is a command of the agent-compact repository's lab: npm run lab -- ${name})`
      : '';
    io.stderr(`agent-compact: unknown command "${name}"${where}\n\n${usage(table)}`);
    return 2;
  }
  try {
    return await (await command.load())(rest, io);
  } catch (error) {
    io.stderr(`agent-compact ${name}: ${describeError(error)}\n`);
    if (error instanceof UsageError) io.stderr(`Usage: ${command.usage}\n`);
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
