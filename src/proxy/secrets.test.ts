import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFileArchiveStore } from '../archive/index.js';
import { anthropicLoop, openAIChatLoop, toolCallingScript } from './agent-loops.test-utils.js';
import { useProxyHarness } from './proxy-harness.test-utils.js';

const startProxyOver = useProxyHarness();
let directory: string | undefined;
afterEach(async () => {
  if (directory) await rm(directory, { recursive: true, force: true });
  directory = undefined;
});

const ANTHROPIC_KEY = 'sk-ant-secret-0123456789';
const OPENAI_KEY = 'sk-openai-secret-9876543210';

/** Every file under `root`, read as text. */
async function filesUnder(root: string): Promise<string[]> {
  const names = await readdir(root, { recursive: true, withFileTypes: true });
  return Promise.all(
    names
      .filter((entry) => entry.isFile())
      .map((entry) => readFile(join(entry.parentPath, entry.name), 'utf8')),
  );
}

describe('keys never leave the request', () => {
  it('appear in no log line, JSON log record, archive file, stats, dashboard page or exported session', async () => {
    directory = await mkdtemp(join(tmpdir(), 'secrets-'));
    const logs: string[] = [];
    const { proxy, records } = await startProxyOver(toolCallingScript, {
      thresholds: { mid: 1500, hard: 2500 },
      summarizer: 'same',
      archive: createFileArchiveStore({ directory }),
      log: (line) => logs.push(line),
    });
    await anthropicLoop(proxy.url, { turns: 12, apiKey: ANTHROPIC_KEY, task: 'anthropic task' });
    await openAIChatLoop(`${proxy.url}/v1`, { turns: 12, apiKey: OPENAI_KEY, task: 'openai task' });
    expect(records.some((record) => record.layer === 'hard')).toBe(true);
    const archived = await filesUnder(directory);
    expect(archived.length).toBeGreaterThan(0);
    const served = await Promise.all(
      ['/agent-compact/stats', ...(await ownPages(proxy.url))].map(async (path) =>
        (await fetch(`${proxy.url}${path}`)).text(),
      ),
    );
    const everything = [...logs, ...records.map((record) => JSON.stringify(record)), ...archived, ...served];
    for (const text of everything) {
      expect(text).not.toContain(ANTHROPIC_KEY);
      expect(text).not.toContain(OPENAI_KEY);
    }
  });
});

/** The dashboard's page, data and every session's export, when the proxy serves them. */
async function ownPages(url: string): Promise<string[]> {
  const answer = await fetch(`${url}/agent-compact/sessions`);
  if (answer.status !== 200) return [];
  const sessions = (await answer.json()) as { id: string }[];
  return ['/agent-compact/', ...sessions.map((session) => `/agent-compact/sessions/${session.id}/export`)];
}
