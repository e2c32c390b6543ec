import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CompactError } from '../core/model/errors.js';
import { createSession, newSessionId, openSession } from './session-store.js';

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'agent-session-'));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

const secret = 'sk-session-test-abcdef123456';

describe('sessions', () => {
  it('saves the context, appends the transcript and reopens both', async () => {
    const session = await createSession({ workspace, provider: 'anthropic', model: 'm', secrets: [secret] });
    expect(session.directory).toBe(path.join(workspace, '.agent-compact', 'sessions', session.id));
    await session.appendTranscript([
      { type: 'message', at: 't1', message: { role: 'user', content: 'one' } },
    ]);
    await session.appendTranscript([
      { type: 'message', at: 't2', message: { role: 'assistant', content: `key ${secret}` } },
    ]);
    await session.saveContext([{ role: 'user', content: 'compacted' }]);
    await session.setState('answered');

    const reopened = await openSession({ workspace, id: session.id });
    expect(reopened.context).toEqual([{ role: 'user', content: 'compacted' }]);
    expect(reopened.info).toMatchObject({
      id: session.id,
      provider: 'anthropic',
      model: 'm',
      state: 'answered',
    });
    expect(await reopened.readTranscript()).toEqual([
      { type: 'message', at: 't1', message: { role: 'user', content: 'one' } },
      { type: 'message', at: 't2', message: { role: 'assistant', content: 'key [redacted]' } },
    ]);
    const names = await readdir(session.directory);
    expect(names.sort()).toEqual(['context.json', 'session.json', 'transcript.jsonl']);
    for (const name of names) {
      expect((await stat(path.join(session.directory, name))).mode & 0o077).toBe(0);
      expect(await readFile(path.join(session.directory, name), 'utf8')).not.toContain(secret);
    }
  });

  it.each([['../escape'], ['a/b'], [''], ['.hidden']])('refuses the session id %j', async (id) => {
    const error = await openSession({ workspace, id }).catch((caught: unknown) => caught);
    expect(CompactError.isInstance(error) && error.code).toBe('INVALID_OPTIONS');
  });

  it('says which session is missing', async () => {
    await expect(openSession({ workspace, id: 'missing' })).rejects.toThrow(
      /no session "missing" in .*sessions/,
    );
  });

  it('makes sortable ids from the time', () => {
    expect(newSessionId(new Date('2026-11-30T05:10:00Z'))).toMatch(/^20261130-051000-[0-9a-f]{4}$/);
  });
});
