/**
 * `agent-compact recall ID --archive DIR [--session S]`
 *
 * Prints the original bytes of an archived item — what a placeholder `recall r17` names — from the
 * folder `compact` kept it in. Exit 0 printed, 2 unknown id, missing folder or bad arguments.
 */
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { ArchiveItem } from 'agent-compact';
import { createFileArchiveStore, type FileArchiveStore, originalText } from 'agent-compact/archive';
import { type CliCommand, CliError, UsageError } from '../cli-io.js';
import { parseCommandArgs } from '../command-args.js';

const help = `Usage: agent-compact recall ID --archive DIR [--session S]

Prints the original bytes of an archived item (the id a placeholder names, e.g. r17): a tool
result's output, an assistant text, a tool call's input as JSON, or the messages a hard compaction
replaced as JSON.

Options:
  --archive DIR      the archive folder (compact keeps it in OUT.archive/ without --archive)
  --session S        the session inside DIR (default: the only one that holds ID)
  -h, --help         show this help

Exit codes: 0 printed, 2 unknown id, missing archive or bad arguments.
`;

/** The `recall` command. */
export const recallCommand: CliCommand = async (args, io) => {
  const { values, positionals } = parseCommandArgs(args, {
    archive: { type: 'string' },
    session: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout(help);
    return 0;
  }
  const [id, ...extra] = positionals;
  if (id === undefined) throw new UsageError('missing ID (see --help)');
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}" (see --help)`);
  if (values.archive === undefined) throw new UsageError('missing --archive DIR (see --help)');
  const directory = resolve(io.cwd, values.archive);
  const store = createFileArchiveStore({ directory });
  const sessions =
    values.session === undefined ? await sessionsIn(store, directory, values.archive) : [values.session];
  const found: ArchiveItem[] = [];
  for (const session of sessions) {
    const item = await store.get(session, id);
    if (item) found.push(item);
  }
  if (found.length === 0) throw new CliError(`no archived item "${id}" in ${values.archive}`, 2);
  if (found.length > 1) {
    const names = found.map((item) => item.sessionId).join(', ');
    throw new CliError(`"${id}" is in ${found.length} sessions (${names}): pass --session`, 2);
  }
  io.stdout(originalText(found[0]!));
  return 0;
};

/** The session ids an archive folder holds, as its store lists them. */
async function sessionsIn(store: FileArchiveStore, directory: string, name: string): Promise<string[]> {
  try {
    if (!(await stat(directory)).isDirectory()) throw new CliError(`${name}: not a folder`, 2);
    return (await store.sessions?.()) ?? [];
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`${name}: no such archive folder`, 2);
  }
}
