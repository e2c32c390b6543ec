import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TranscriptEntry } from '../../agent/session-store.js';
import type { RecordedRequest, ScriptedToolCall, ScriptStep } from '../../testing/index.js';
import { estimateTokens, startScriptedModelServer } from '../../testing/index.js';
import { main } from '../main.js';
import {
  conversationOf,
  keyVariables,
  lastToolResults,
  secretKey,
  sessionIdFrom,
  testIO,
} from './run.test-utils.js';

const thresholds = { mid: 24_000, hard: 40_000, window: 100_000 };

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'agent-e2e-'));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

/** A 20–40 KB source-like file with a line that occurs once. */
function fileContent(index: number): string {
  const lines: string[] = [`// module f${index}: generated for the end-to-end test`];
  const target = 20_000 + index * 1_700;
  for (let line = 1; lines.join('\n').length < target; line += 1) {
    lines.push(
      `export const value_${index}_${line} = computeSomething(${line}, "f${index}", { retries: ${line % 7} });`,
    );
  }
  lines.push(`// UNIQUE-MARKER-${index}`);
  return `${lines.join('\n')}\n`;
}

const files = Array.from({ length: 12 }, (_, index) => ({
  path: `src/f${index}.ts`,
  content: fileContent(index),
}));

async function createWorkspaceFiles(): Promise<void> {
  await mkdir(path.join(workspace, 'src'), { recursive: true });
  for (const file of files) await writeFile(path.join(workspace, file.path), file.content);
}

const read = (index: number) => ({ name: 'read_file', input: { path: files[index]!.path } });

/** The planned turns of the scripted task: 56 tool calls, then an answer. */
function plannedTurns(): (Omit<ScriptedToolCall, 'id'>[] | 'recall' | 'answer')[] {
  return [
    [
      {
        name: 'bash',
        input: { command: `ls src; echo "key:$${keyVariables.anthropic}$${keyVariables.openai}"` },
      },
    ],
    ...files.map((_file, index) => [read(index)]),
    'recall',
    ...[0, 2, 4, 6, 8, 10].map((index) => [read(index), read(index + 1)]),
    [
      {
        name: 'edit_file',
        input: { path: 'src/f0.ts', old_text: '// UNIQUE-MARKER-0', new_text: '// EDITED-MARKER-0' },
      },
    ],
    [{ name: 'bash', input: { command: 'grep -c EDITED-MARKER src/f0.ts' } }],
    ...[0, 3, 6, 9].map((index) => [read(index), read(index + 1), read(index + 2)]),
    'recall',
    [{ name: 'compact', input: { focus: 'write the report next' } }],
    // Large tool inputs, one a turn: the context crosses the mid threshold well below hard.
    ...[1, 2, 3, 4, 5, 6, 7, 8, 9].map((index) => [
      {
        name: 'write_file',
        input: { path: `report-${index}.md`, content: `# Report ${index}\n${'- finding\n'.repeat(1200)}` },
      },
    ]),
    ...[1, 3, 5, 7, 9].map((index) => [read(index), read(index + 1)]),
    [{ name: 'bash', input: { command: 'wc -c src/*.ts | tail -1' } }],
    'answer',
  ];
}

function isSummaryRequest(body: Record<string, unknown>): boolean {
  const messages = conversationOf(body);
  return JSON.stringify(messages.at(-1)).includes('Write a dense summary of the conversation so far');
}

/**
 * The scripted model: answers the planned turns in order, checks on every request that the
 * previous turn's tool results arrived, answers summary requests, and recalls an archived result.
 */
function createScriptedTask() {
  const turns = plannedTurns();
  const problems: string[] = [];
  const recalls: { id: string; path: string; callId: string }[] = [];
  let previousCalls: ScriptedToolCall[] = [];
  let turnIndex = 0;
  let callCounter = 0;
  let recalledId: { id: string; path: string } | undefined;
  let summaries = 0;

  const script = (request: Omit<RecordedRequest, 'outcome'>): ScriptStep => {
    if (isSummaryRequest(request.body)) {
      summaries += 1;
      // Like a good model, the summary keeps the placeholders' archive ids (the instructions ask for it).
      const placeholders =
        JSON.stringify(conversationOf(request.body)).match(/\[Previous: used [^\]]*?recall r\d+\]/g) ?? [];
      const kept = placeholders.map((placeholder) => `- ${placeholder}`).join('\n');
      return `## Task and constraints\n- Read the files and write the report.\n## Done so far\n- Summary ${summaries}.\n${kept}\n## Key findings and decisions\n- (none)\n## Files touched\n- src/f0.ts\n## Errors and fixes\n- (none)\n## Current state\n- working\n## Next steps\n- continue`;
    }
    const seen = lastToolResults(request.api, request.body);
    for (const call of previousCalls) {
      const result = seen.find((candidate) => candidate.id === call.id);
      if (!result) {
        problems.push(`request ${request.index}: no result for ${call.name} ${call.id}`);
        continue;
      }
      if (call.name === 'read_file') {
        const expected = files.find((file) => file.path === call.input.path)!.content;
        const current =
          call.input.path === 'src/f0.ts'
            ? expected.replace('// UNIQUE-MARKER-0', '// EDITED-MARKER-0')
            : expected;
        // Right after a hard compaction a kept turn over a quarter of the usable window comes cut
        // to its head and tail, the whole recallable (hard.keptTurnTokens); otherwise it comes whole.
        const cut = / \[…shortened; [^\]]*recall r\d+\]$/.test(result.text);
        const head = result.text.split('\n')[0]!;
        const intact = cut ? expected.startsWith(head) : result.text === expected || result.text === current;
        if (!intact)
          problems.push(`request ${request.index}: read_file ${call.input.path} came back changed`);
      } else if (result.isError) {
        problems.push(`request ${request.index}: ${call.name} failed: ${result.text.slice(0, 200)}`);
      }
      if (call.name === 'recall') {
        const original = files.find((file) => file.path === recalledId?.path)?.content;
        if (result.text !== original)
          problems.push(`request ${request.index}: recall ${call.input.id} is not byte-identical`);
        else recalls.push({ id: String(call.input.id), path: recalledId!.path, callId: call.id! });
      }
    }
    const turn = turns[turnIndex];
    turnIndex += 1;
    if (turn === undefined) {
      problems.push(`request ${request.index}: the script ran out of turns`);
      return 'Out of turns.';
    }
    if (turn === 'answer') {
      previousCalls = [];
      return 'Done: read every file, edited src/f0.ts and wrote nine reports.';
    }
    let calls: Omit<ScriptedToolCall, 'id'>[];
    if (turn === 'recall') {
      if (!recalledId) {
        // A read_file placeholder of a file other than the edited one, with its archive id.
        const text = JSON.stringify(conversationOf(request.body));
        const match = /read_file\((src\/f(?:[1-9]|1[01])\.ts)\)[^\]]*?recall (r\d+)/.exec(text);
        if (!match) problems.push(`request ${request.index}: no read_file placeholder to recall`);
        else recalledId = { path: match[1]!, id: match[2]! };
      }
      calls = [{ name: 'recall', input: { id: recalledId?.id ?? 'r1' } }];
    } else {
      calls = turn;
    }
    previousCalls = calls.map((call) => {
      callCounter += 1;
      return { ...call, id: `toolu_e2e_${callCounter}` };
    });
    return { type: 'tool-calls', calls: previousCalls };
  };
  return {
    script,
    problems,
    recalls,
    get toolCalls() {
      return callCounter;
    },
    get summaries() {
      return summaries;
    },
  };
}

async function filesUnder(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
}

async function readTranscript(sessionId: string): Promise<TranscriptEntry[]> {
  const text = await readFile(
    path.join(workspace, '.agent-compact/sessions', sessionId, 'transcript.jsonl'),
    'utf8',
  );
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as TranscriptEntry);
}

describe.each(['anthropic', 'openai', 'openai-responses'] as const)(
  'agent-compact run against the scripted %s server',
  (provider) => {
    it('runs a 50+ tool-call task through micro, mid and hard, resumes, and keeps everything valid', async () => {
      await createWorkspaceFiles();
      const task = createScriptedTask();
      const server = await startScriptedModelServer({ script: task.script });
      try {
        const baseURL = provider === 'anthropic' ? server.anthropicBaseURL : server.openaiBaseURL;
        const common = [
          '--provider',
          provider,
          '--model',
          'scripted-model',
          '--base-url',
          baseURL,
          '--yes',
          '--mid',
          String(thresholds.mid),
          '--hard',
          String(thresholds.hard),
          '--window',
          String(thresholds.window),
        ];
        const env = { [keyVariables[provider]]: secretKey, ANTHROPIC_API_KEY: secretKey };

        // First run: stopped by --max-steps half way.
        const first = testIO(env, workspace);
        const firstCode = await main(
          ['run', 'Read every file, then write the report.', ...common, '--max-steps', '20'],
          first.io,
        );
        expect(first.output.stderr).toContain('stopped after 20 steps');
        expect(firstCode).toBe(1);
        const sessionId = sessionIdFrom(first.output.stderr);
        const requestsAfterFirst = server.requests.length;
        const transcriptAfterFirst = await readTranscript(sessionId);

        // Second run: resumes where the first stopped and finishes.
        const second = testIO(env, workspace);
        const secondCode = await main(['run', ...common, '--resume', sessionId], second.io);
        expect(second.output.stderr).toContain(`session ${sessionId} (resumed)`);
        expect(secondCode, second.output.stderr).toBe(0);
        expect(second.output.stdout).toBe(
          'Done: read every file, edited src/f0.ts and wrote nine reports.\n',
        );

        // Every request was valid, and every tool result reached the model.
        expect(
          server.requests.filter((request) => request.outcome !== 'tool-calls' && request.outcome !== 'text'),
        ).toEqual([]);
        expect(task.problems).toEqual([]);
        expect(task.toolCalls).toBeGreaterThanOrEqual(50);

        // The resumed run continued: its first request carries the first run's whole saved context.
        const resumedRequest = server.requests[requestsAfterFirst]!;
        const savedContextLength = conversationOf(resumedRequest.body).length;
        expect(savedContextLength).toBeGreaterThan(2);
        const transcript = await readTranscript(sessionId);
        expect(transcript.slice(0, transcriptAfterFirst.length)).toEqual(transcriptAfterFirst);
        expect(transcript.length).toBeGreaterThan(transcriptAfterFirst.length);

        // micro, mid and hard all fired (hard both by threshold and by the compact tool).
        console.log(
          JSON.stringify(
            transcript.flatMap((entry) =>
              entry.type === 'compaction' ? [[entry.layer, entry.tokensBefore, entry.tokensAfter]] : [],
            ),
          ),
          server.requests.map((r) => r.inputTokens).join(','),
        );
        const layers = new Set(
          transcript.flatMap((entry) => (entry.type === 'compaction' ? [entry.layer] : [])),
        );
        expect([...layers].sort()).toEqual(['hard', 'micro', 'mid']);
        expect(task.summaries).toBeGreaterThanOrEqual(2);
        // Summary requests go to the agent's own model with its tools, and forbid tool calls.
        const summaryRequests = server.requests.filter((request) => isSummaryRequest(request.body));
        expect(summaryRequests.map((request) => request.body.tool_choice)).toEqual(
          summaryRequests.map(() => (provider === 'anthropic' ? { type: 'none' } : 'none')),
        );
        expect(`${first.output.stderr}${second.output.stderr}`).toMatch(
          /compaction hard: [\d.]+k → [\d.]+k tokens/,
        );

        // No request exceeded the hard threshold plus one turn.
        for (const request of server.requests) {
          const messages = conversationOf(request.body);
          const lastTurn = estimateTokens(messages.slice(-2));
          expect(request.inputTokens, `request ${request.index}`).toBeLessThanOrEqual(
            thresholds.hard + lastTurn,
          );
        }

        // Responses: the model's encrypted reasoning went back with its calls (the server verifies it).
        if (provider === 'openai-responses') {
          const sentBack = server.requests.filter((request) =>
            conversationOf(request.body).some((item) => (item as { type?: unknown }).type === 'reasoning'),
          );
          expect(sentBack.length).toBeGreaterThan(server.requests.length / 2);
        }

        // recall brought back an archived result byte-identical, before and after a hard compaction.
        expect(task.recalls).toHaveLength(2);

        // The transcript holds every message uncompacted: each file read whole at least once.
        const transcriptText = JSON.stringify(transcript);
        for (const file of files.slice(1))
          expect(transcriptText).toContain(JSON.stringify(file.content).slice(1, -1));

        // The API key reached no file of the session and no request body.
        const sessionDirectory = path.join(workspace, '.agent-compact/sessions', sessionId);
        const sessionFiles = await filesUnder(sessionDirectory);
        expect(sessionFiles.map((file) => path.relative(sessionDirectory, file))).toEqual(
          expect.arrayContaining(['transcript.jsonl', 'context.json', 'session.json']),
        );
        for (const file of sessionFiles) expect(await readFile(file, 'utf8')).not.toContain(secretKey);
        expect(JSON.stringify(server.requests.map((request) => request.body))).not.toContain(secretKey);
        expect(first.output.stderr + second.output.stderr).not.toContain(secretKey);
        expect((await stat(sessionDirectory)).mode & 0o077).toBe(0);
      } finally {
        await server.close();
      }
    }, 60_000);
  },
);

describe('agent-compact run --background against a slow scripted summarizer', () => {
  it('keeps working while the summary is written, swaps it in, and every request stays valid', async () => {
    await createWorkspaceFiles();
    const task = createScriptedTask();
    // A summary answers only once the agent has sent another request meanwhile (or after a long
    // wait, when the agent is blocked on it): deterministic whatever the machine's load.
    const patienceMs = 3_000;
    let pendingSummaries = 0;
    let requestsDuringSummary = 0;
    let agentWentOn: () => void = () => {};
    const server = await startScriptedModelServer({
      script: async (request) => {
        if (!isSummaryRequest(request.body)) {
          if (pendingSummaries > 0) {
            requestsDuringSummary += 1;
            agentWentOn();
          }
          return task.script(request);
        }
        pendingSummaries += 1;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, patienceMs);
          agentWentOn = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        pendingSummaries -= 1;
        return task.script(request);
      },
    });
    try {
      const run = testIO({ ANTHROPIC_API_KEY: secretKey }, workspace);
      const code = await main(
        [
          'run',
          'Read every file, then write the report.',
          '--provider',
          'anthropic',
          '--model',
          'scripted-model',
          '--base-url',
          server.anthropicBaseURL,
          '--yes',
          '--mid',
          String(thresholds.mid),
          '--hard',
          String(thresholds.hard),
          '--window',
          String(thresholds.window),
          '--background',
        ],
        run.io,
      );
      expect(code, run.output.stderr).toBe(0);
      expect(
        server.requests.filter((request) => request.outcome !== 'tool-calls' && request.outcome !== 'text'),
      ).toEqual([]);
      expect(task.summaries).toBeGreaterThanOrEqual(1);
      // The agent went on while a summary was being written…
      expect(requestsDuringSummary).toBeGreaterThan(0);
      // …and a later request carries the summary in place of the history it covers.
      const firstSummary = server.requests.findIndex((request) => isSummaryRequest(request.body));
      expect(
        server.requests
          .slice(firstSummary + 1)
          .some(
            (request) =>
              !isSummaryRequest(request.body) && JSON.stringify(request.body).includes('<context_summary'),
          ),
      ).toBe(true);
    } finally {
      await server.close();
    }
  });
});
