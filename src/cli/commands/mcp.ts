/**
 * `agent-compact mcp --archive DIR | --store redis://…`
 *
 * A stdio MCP server with the tools recall, search and sessions over an archive the proxy, `compact`
 * or the library wrote. Register it with an agent: `claude mcp add agent-compact -- npx agent-compact
 * mcp --archive DIR`. Runs until the client closes stdin.
 */
import { resolve } from 'node:path';
import type { ArchiveStore } from 'agent-compact';
import { createFileArchiveStore } from 'agent-compact/archive';
import { type CliCommand, CliError, UsageError } from '../cli-io.js';
import { parseCommandArgs } from '../command-args.js';
import { openStoreFromSpec } from '../store-from-spec.js';

const help = `Usage: agent-compact mcp (--archive DIR | --store redis://…)

Serves an archive over MCP on stdin/stdout with three tools: recall (an id such as r17 -> the
original content), search (text search over archived items) and sessions.

  claude mcp add agent-compact -- npx agent-compact mcp --archive .agent-compact/archive

Options:
  --archive DIR      an archive folder (the proxy's --archive, or compact's OUT.archive/)
  --store URL        a Redis URL the proxy or library archived into
  -h, --help         show this help

Exit codes: 0 the client closed the connection, 2 bad arguments or the MCP SDK is missing.
`;

/** The `mcp` command. */
export const mcpCommand: CliCommand = async (args, io) => {
  const { values, positionals } = parseCommandArgs(args, {
    archive: { type: 'string' },
    store: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout(help);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}" (see --help)`);
  if ((values.archive === undefined) === (values.store === undefined)) {
    throw new UsageError('pass exactly one of --archive DIR and --store URL (see --help)');
  }
  let mcp: typeof import('agent-compact/mcp');
  try {
    mcp = await import('agent-compact/mcp');
  } catch {
    throw new CliError('agent-compact mcp needs the MCP SDK: npm install @modelcontextprotocol/sdk', 2);
  }
  const opened =
    values.store === undefined ? undefined : await openStoreFromSpec(values.store, { env: io.env });
  const archive: ArchiveStore =
    opened?.archive ?? createFileArchiveStore({ directory: resolve(io.cwd, values.archive!), sync: false });
  const server = await mcp.serveRecallOverStdio({ archive });
  // It closes once the client closed stdin and every request read has its answer.
  await new Promise<void>((done) => {
    server.onclose = done;
  });
  await opened?.close();
  return 0;
};
