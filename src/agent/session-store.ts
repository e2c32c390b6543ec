import { randomBytes } from 'node:crypto';
import { appendFile, mkdir, open, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { CompactionLayer, Message } from 'agent-compact';
import { CompactError } from 'agent-compact';

/** What `session.json` holds. */
export interface SessionInfo {
  id: string;
  /** ISO time the session was created. */
  createdAt: string;
  /** ISO time of the last change. */
  updatedAt: string;
  provider: string;
  model: string;
  /** Where the session stands: a step is running, the model answered, or the user stopped a step. */
  state: 'running' | 'answered' | 'interrupted' | 'failed';
}

/** One line of `transcript.jsonl`. */
export type TranscriptEntry =
  | { type: 'message'; at: string; message: Message }
  | {
      type: 'compaction';
      at: string;
      layer: Exclude<CompactionLayer, 'none'>;
      tokensBefore: number;
      tokensAfter: number;
      archived: string[];
    }
  | { type: 'interrupted'; at: string; reason: string };

/** Options of {@link createSession} and {@link openSession}. */
export interface SessionStoreOptions {
  /** The workspace; sessions live in `<workspace>/.agent-compact/sessions/`. */
  workspace: string;
  /** Strings (API keys) replaced by `[redacted]` before anything is written. @default [] */
  secrets?: readonly string[];
}

/** One session on disk. */
export interface Session {
  readonly id: string;
  /** `<workspace>/.agent-compact/sessions/<id>`. */
  readonly directory: string;
  /** Where the session's archive store keeps its files. */
  readonly archiveDirectory: string;
  /** The current (compacted) context, as saved last. */
  readonly context: Message[];
  readonly info: SessionInfo;
  /** Appends entries to the full transcript (every message as it happened, never compacted). */
  appendTranscript(entries: readonly TranscriptEntry[]): Promise<void>;
  /** Replaces the saved current context (atomically: a crash leaves the old or the new one). */
  saveContext(messages: readonly Message[]): Promise<void>;
  /** Updates `session.json`. */
  setState(state: SessionInfo['state']): Promise<void>;
  /** Every transcript entry, in order. */
  readTranscript(): Promise<TranscriptEntry[]>;
}

const sessionIdPattern = /^[A-Za-z0-9][A-Za-z0-9_-]{0,79}$/;

/** `<workspace>/.agent-compact/sessions`. */
export function sessionsDirectory(workspace: string): string {
  return path.join(workspace, '.agent-compact', 'sessions');
}

/**
 * Creates a new session directory with an empty transcript and context.
 *
 * @example
 * const session = await createSession({ workspace, provider: 'anthropic', model: 'claude-sonnet-5-5' });
 */
export async function createSession({
  workspace,
  secrets = [],
  provider,
  model,
  id = newSessionId(),
}: SessionStoreOptions & { provider: string; model: string; id?: string }): Promise<Session> {
  checkId(id);
  const directory = path.join(sessionsDirectory(workspace), id);
  await mkdir(directory, { recursive: true, mode: 0o700 });
  const now = new Date().toISOString();
  const info: SessionInfo = { id, createdAt: now, updatedAt: now, provider, model, state: 'running' };
  const session = sessionAt(directory, info, [], secrets);
  await writeFile(path.join(directory, 'transcript.jsonl'), '', { flag: 'a', mode: 0o600 });
  await session.saveContext([]);
  await session.setState('running');
  return session;
}

/**
 * Opens an existing session to continue it (`--resume <id>`).
 *
 * @example
 * const session = await openSession({ workspace, id: '20261130-051000-3f2a' });
 */
export async function openSession({
  workspace,
  secrets = [],
  id,
}: SessionStoreOptions & { id: string }): Promise<Session> {
  checkId(id);
  const directory = path.join(sessionsDirectory(workspace), id);
  let info: SessionInfo;
  let context: Message[];
  try {
    info = JSON.parse(await readFile(path.join(directory, 'session.json'), 'utf8')) as SessionInfo;
    context = JSON.parse(await readFile(path.join(directory, 'context.json'), 'utf8')) as Message[];
  } catch (error) {
    const missing = (error as { code?: unknown }).code === 'ENOENT';
    throw new CompactError(
      missing ? `no session "${id}" in ${sessionsDirectory(workspace)}` : `session "${id}" cannot be read`,
      { code: 'UNREADABLE_INPUT', cause: error },
    );
  }
  return sessionAt(directory, info, context, secrets);
}

/** A new session id: the UTC time and four random hex digits, e.g. `20261130-051000-3f2a`. */
export function newSessionId(now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${stamp}-${randomBytes(2).toString('hex')}`;
}

function checkId(id: string): void {
  if (!sessionIdPattern.test(id)) {
    throw new CompactError(`session id "${id}" may hold only letters, digits, "-" and "_"`, {
      code: 'INVALID_OPTIONS',
    });
  }
}

function sessionAt(
  directory: string,
  info: SessionInfo,
  context: Message[],
  secrets: readonly string[],
): Session {
  const usableSecrets = secrets.filter((secret) => secret.length >= 8);
  const clean = (text: string) =>
    usableSecrets.reduce((result, secret) => result.split(secret).join('[redacted]'), text);
  let currentContext = context;
  let currentInfo = info;

  async function writeAtomically(file: string, text: string): Promise<void> {
    const temporary = `${file}.${process.pid}.tmp`;
    const handle = await open(temporary, 'w', 0o600);
    try {
      await handle.writeFile(clean(text), 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, file);
  }

  return {
    id: info.id,
    directory,
    archiveDirectory: path.join(directory, 'archive'),
    get context() {
      return currentContext;
    },
    get info() {
      return currentInfo;
    },
    async appendTranscript(entries) {
      if (entries.length === 0) return;
      const text = entries.map((entry) => `${JSON.stringify(entry)}\n`).join('');
      await appendFile(path.join(directory, 'transcript.jsonl'), clean(text), { mode: 0o600 });
    },
    async saveContext(messages) {
      currentContext = [...messages];
      await writeAtomically(path.join(directory, 'context.json'), `${JSON.stringify(messages)}\n`);
    },
    async setState(state) {
      currentInfo = { ...currentInfo, state, updatedAt: new Date().toISOString() };
      await writeAtomically(
        path.join(directory, 'session.json'),
        `${JSON.stringify(currentInfo, null, 2)}\n`,
      );
    },
    async readTranscript() {
      const text = await readFile(path.join(directory, 'transcript.jsonl'), 'utf8');
      return text
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as TranscriptEntry);
    },
  };
}
