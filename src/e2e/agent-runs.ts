/**
 * One real agent on one task, run three ways in front of a fresh scripted model server: straight
 * at it (the baseline), through `startProxy` (with a recording hop in front, so the client's own
 * requests are seen) and under the built `agent-compact wrap` (its own proxy, with `--json-log`).
 * Each run gets a scratch workspace; the agent's defaults (its model above all) are left alone.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type RecordedRequest,
  type ScriptedModelServerOptions,
  startScriptedModelServer,
} from '@agent-compact/testing';
import { type ProxyRequestRecord, type ProxyStats, startProxy } from '../proxy/index.js';
import type { E2ETraffic } from './e2e-checks.js';
import { startHttpHop } from './http-hop.js';

const AGENT_TIMEOUT_MS = 240_000;
const binPath = fileURLToPath(new URL('../cli/bin.js', import.meta.url));

type Body = Record<string, unknown> | undefined;

/** An agent and its task, as the three runs need them. */
export interface AgentSpec {
  /** The name the report prints, e.g. `Claude Code 2.1.328`. */
  name: string;
  api: E2ETraffic['api'];
  /** The command that starts the agent, then its arguments (no model flag: its defaults). */
  command: string[];
  args: string[];
  thresholds: { mid: number; hard: number };
  /** A fresh script for one run in `workspace`. */
  script(workspace: string): ScriptedModelServerOptions['script'];
  /** The agent's main conversation (not its side calls). */
  isMain(request: { body?: Body }): boolean;
  /** A summary call the proxy made. */
  isSummary(request: { body?: Body }): boolean;
  /** The agent's environment, pointed at `baseUrl`; without it (under `wrap`) `wrap` points it. */
  env(workspace: string, baseUrl: string | undefined): Promise<Record<string, string>>;
  /** Writes the files the task needs. */
  setup?(workspace: string): Promise<void>;
  /** A line the report prints about the proxied run's traffic, beside its checks. */
  note?(traffic: E2ETraffic): string;
}

/** A run's traffic, and what the proxy reported (none for the baseline). */
export interface AgentRun {
  traffic: E2ETraffic;
  /** Every record the proxy made (all sessions), for the fallback count. */
  allRecords: ProxyRequestRecord[];
  /** "Tokens sent" as the proxy reports it: its stats' `tokensIn`, or `wrap`'s savings line. */
  reportedSent?: number;
  /** `wrap`'s savings line. */
  savingsLine?: string;
  stats?: ProxyStats;
}

/** Runs the agent in `cwd` with `env` added; resolves with its exit code and output. */
export async function runAgent(
  command: string[],
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  const [executable, ...prefix] = command;
  const child = spawn(executable!, [...prefix, ...args], {
    cwd,
    // PWD as a shell sets it: opencode takes its project from PWD, and a path outside it asks for permission.
    env: { ...process.env, PWD: cwd, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), AGENT_TIMEOUT_MS);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  clearTimeout(timer);
  if (code !== 0) console.log(output.slice(-3000));
  return { code, output };
}

/**
 * The proxy's records of the conversation it saw most often (the agent's main one), answered 200
 * whole: one per request `serverSide` keeps as `server`, in the same order, so the i-th record
 * is the i-th request's (a request the server failed, a scripted 429, is in neither list).
 */
export function mainRecords(records: ProxyRequestRecord[], api: E2ETraffic['api']): ProxyRequestRecord[] {
  const own = records.filter((record) => record.api === api);
  const counts = new Map<string, number>();
  for (const record of own) counts.set(record.session, (counts.get(record.session) ?? 0) + 1);
  const main = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  return own.filter(
    (record) =>
      record.session === main &&
      record.status === 200 &&
      !record.answerBroken &&
      record.streamError === undefined,
  );
}

/** Outcomes of a request the scripted server answered whole (not a fault its script gave). */
const ANSWERED_OUTCOMES: ReadonlySet<RecordedRequest['outcome']> = new Set([
  'text',
  'tool-calls',
  'empty',
  'oversize',
]);

async function inWorkspace<T>(spec: AgentSpec, run: (workspace: string) => Promise<T>): Promise<T> {
  const workspace = await mkdtemp(join(tmpdir(), 'e2e-agent-'));
  try {
    await spec.setup?.(workspace);
    return await run(workspace);
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}

/**
 * The server's side of a run: the main conversation's answered requests (which {@link mainRecords}
 * pair with by position), every request, and the main ones it refused (a retried 429).
 */
export function serverSide(
  spec: Pick<AgentSpec, 'isMain' | 'isSummary'>,
  requests: readonly RecordedRequest[],
) {
  const main = requests.filter((request) => spec.isMain(request) && !spec.isSummary(request));
  const answered = (request: RecordedRequest) => ANSWERED_OUTCOMES.has(request.outcome);
  return {
    server: main.filter(answered),
    allServer: [...requests],
    refused: main.filter((request) => !answered(request)),
  };
}

/** The agent straight at the scripted server: what it sends without the proxy. */
export async function directRun(spec: AgentSpec): Promise<AgentRun> {
  return inWorkspace(spec, async (workspace) => {
    const server = await startScriptedModelServer({ script: spec.script(workspace) });
    try {
      const { code } = await runAgent(
        spec.command,
        spec.args,
        workspace,
        await spec.env(workspace, server.url),
      );
      const side = serverSide(spec, server.requests);
      return {
        traffic: { api: spec.api, exitCode: code, client: side.server, ...side, records: [] },
        allRecords: [],
      };
    } finally {
      await server.close();
    }
  });
}

/** The agent through `startProxy`, a recording hop between them; `recall` turns on `--recall`. */
export async function proxiedRun(spec: AgentSpec, { recall = false } = {}): Promise<AgentRun> {
  return inWorkspace(spec, async (workspace) => {
    const server = await startScriptedModelServer({ script: spec.script(workspace) });
    const records: ProxyRequestRecord[] = [];
    const proxy = await startProxy({
      upstream: server.url,
      thresholds: spec.thresholds,
      recall,
      onRequest: (record) => records.push(record),
    });
    const hop = await startHttpHop(proxy.url);
    try {
      const { code } = await runAgent(spec.command, spec.args, workspace, await spec.env(workspace, hop.url));
      const stats = await proxy.stats();
      const client = hop.requests.filter((request) => request.method === 'POST' && spec.isMain(request));
      return {
        traffic: {
          api: spec.api,
          exitCode: code,
          client,
          ...serverSide(spec, server.requests),
          records: mainRecords(records, spec.api),
          bodies: stats.bodies,
        },
        allRecords: records,
        reportedSent: stats.tokensIn,
        stats,
      };
    } finally {
      await hop.close();
      await proxy.close();
      await server.close();
    }
  });
}

const savingsPattern = /agent-compact: (\d+) requests?, ([\d,]+) tokens sent → ([\d,]+) forwarded[^\n]*/;

/** The agent under the built `agent-compact wrap --json-log`, which starts its own proxy. */
export async function wrappedRun(spec: AgentSpec): Promise<AgentRun> {
  return inWorkspace(spec, async (workspace) => {
    const server = await startScriptedModelServer({ script: spec.script(workspace) });
    const log = join(workspace, '.agent-compact.jsonl');
    try {
      const wrapArgs = [
        binPath,
        'wrap',
        '--upstream',
        server.url,
        '--mid',
        String(spec.thresholds.mid),
        '--hard',
        String(spec.thresholds.hard),
        '--json-log',
        log,
        '--',
        ...spec.command,
        ...spec.args,
      ];
      const { code, output } = await runAgent(
        [process.execPath],
        wrapArgs,
        workspace,
        await spec.env(workspace, undefined),
      );
      const savings = savingsPattern.exec(output);
      if (!savings) console.log(output.slice(-3000));
      const lines = await readFile(log, 'utf8').catch(() => '');
      const records = lines
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as ProxyRequestRecord);
      const side = serverSide(spec, server.requests);
      return {
        traffic: {
          api: spec.api,
          exitCode: code,
          client: [],
          ...side,
          records: mainRecords(records, spec.api),
        },
        allRecords: records,
        ...(savings
          ? { reportedSent: Number(savings[2]!.replaceAll(',', '')), savingsLine: savings[0] }
          : {}),
      };
    } finally {
      await server.close();
    }
  });
}
