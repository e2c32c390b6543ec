import { originalText } from '../archive/original-text.js';
import type { ArchiveItem, ArchiveStore } from '../core/archive/archive-store.js';

/** A tool's answer: text for the model, and whether it is an error it should read as one. */
export interface ToolAnswer {
  text: string;
  isError?: boolean;
}

/** The three tools' JSON schemas, as MCP's `tools/list` sends them. */
export const recallToolDefinitions = [
  {
    name: 'recall',
    description:
      'Return the original content of an archived item, by the id a compaction placeholder names (e.g. "r17").',
    inputSchema: {
      type: 'object' as const,
      properties: {
        id: { type: 'string', description: 'The archived item id, e.g. r17.' },
        session: {
          type: 'string',
          description: 'The session that holds it (default: the only one that does).',
        },
      },
      required: ['id'],
    },
  },
  {
    name: 'search',
    description:
      'Search the text of archived items (case-insensitive); returns ids with a line of context each.',
    inputSchema: {
      type: 'object' as const,
      properties: {
        query: { type: 'string', description: 'The text to look for.' },
        session: { type: 'string', description: 'Only this session (default: every session).' },
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: 200,
          description: 'At most this many hits (default 20).',
        },
      },
      required: ['query'],
    },
  },
  {
    name: 'sessions',
    description: 'List the sessions the archive holds, with the number of archived items in each.',
    inputSchema: { type: 'object' as const, properties: {} },
  },
];

/** Runs one tool call against an archive; unknown tools and bad arguments are answered as errors. */
export async function callRecallTool(
  archive: ArchiveStore,
  name: string,
  args: Record<string, unknown> = {},
): Promise<ToolAnswer> {
  switch (name) {
    case 'recall':
      if (typeof args.id !== 'string' || args.id === '') return fail('recall needs "id", a string');
      return recall(archive, args.id, optionalString(args.session));
    case 'search':
      if (typeof args.query !== 'string' || args.query === '') return fail('search needs "query", a string');
      return search(archive, args.query, optionalString(args.session), limitOf(args.limit));
    case 'sessions':
      return listSessions(archive);
    default:
      return fail(`unknown tool "${name}"; the tools are recall, search and sessions`);
  }
}

async function recall(archive: ArchiveStore, id: string, session: string | undefined): Promise<ToolAnswer> {
  const sessions = session === undefined ? await sessionsOf(archive) : [session];
  if (sessions === undefined) return fail('this archive cannot list its sessions: pass "session"');
  const found: ArchiveItem[] = [];
  for (const name of sessions) {
    const item = await archive.get(name, id);
    if (item) found.push(item);
  }
  if (found.length === 0) return fail(`no archived item "${id}"${session ? ` in session ${session}` : ''}`);
  if (found.length > 1) {
    return fail(
      `"${id}" is in ${found.length} sessions (${found.map((item) => item.sessionId).join(', ')}): pass "session"`,
    );
  }
  return { text: originalText(found[0]!) };
}

async function search(
  archive: ArchiveStore,
  query: string,
  session: string | undefined,
  limit: number,
): Promise<ToolAnswer> {
  const sessions = session === undefined ? await sessionsOf(archive) : [session];
  if (sessions === undefined) return fail('this archive cannot list its sessions: pass "session"');
  const needle = query.toLowerCase();
  const hits: string[] = [];
  for (const name of sessions) {
    for (const item of await archive.list(name)) {
      const text = originalText(item);
      const at = text.toLowerCase().indexOf(needle);
      if (at < 0) continue;
      hits.push(`${name} ${item.id} (${describe(item)}): ${contextLine(text, at)}`);
      if (hits.length >= limit) return { text: hits.join('\n') };
    }
  }
  return { text: hits.length > 0 ? hits.join('\n') : `no archived item contains "${query}"` };
}

async function listSessions(archive: ArchiveStore): Promise<ToolAnswer> {
  const sessions = await sessionsOf(archive);
  if (sessions === undefined) return fail('this archive cannot list its sessions');
  if (sessions.length === 0) return { text: 'the archive holds no sessions' };
  const lines = await Promise.all(
    sessions.map(async (name) => `${name}: ${(await archive.list(name)).length} item(s)`),
  );
  return { text: lines.join('\n') };
}

function sessionsOf(archive: ArchiveStore): Promise<string[]> | undefined {
  return archive.sessions?.();
}

function describe(item: ArchiveItem): string {
  if (item.kind === 'messages') return `${item.messages?.length ?? 0} messages`;
  return item.toolName ? `${item.kind} of ${item.toolName}` : item.kind;
}

/** The line around a hit, at most 160 characters. */
function contextLine(text: string, at: number): string {
  const start = text.lastIndexOf('\n', at) + 1;
  const end = text.indexOf('\n', at);
  const line = text.slice(start, end < 0 ? undefined : end);
  const offset = at - start;
  return line.length <= 160 ? line : line.slice(Math.max(0, offset - 60), Math.max(0, offset - 60) + 160);
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function limitOf(value: unknown): number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? Math.min(value, 200) : 20;
}

function fail(text: string): ToolAnswer {
  return { text, isError: true };
}
