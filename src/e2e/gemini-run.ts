/**
 * The real Gemini CLI (`gemini -p … --yolo`) on the e2e task, once through `agent-compact proxy`
 * and once straight at the scripted server, so the proxied run can be held against the same run
 * without the proxy. Gemini CLI needs a trusted workspace (else exit 55), an API key and the
 * `gemini-api-key` auth type in `$HOME/.gemini/settings.json`; a scratch HOME keeps the user's own
 * settings out. Besides the main turn it makes JSON-mode `generateContent` calls (its model
 * router), which the script answers with JSON that fits the requested schema.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ProxyRequestRecord, startProxy } from '../proxy/index.js';
import { type RecordedRequest, type ScriptStep, startScriptedModelServer } from '../testing/index.js';
import type { E2ETraffic } from './e2e-checks.js';
import { startHttpHop } from './http-hop.js';

/** Gemini CLI's shell tool (0.61). */
const SHELL_TOOL = 'run_shell_command';
const summaryMarker = 'Write a dense summary';

type Json = Record<string, unknown>;

/** What a Gemini run needs from the e2e driver. */
export interface GeminiRunOptions {
  /** The command that starts Gemini CLI. */
  command: string[];
  /** Shell calls the scripted model makes before it answers "Done.". */
  steps: number;
  thresholds: { mid: number; hard: number };
  /** Runs the agent in `cwd` with `env` added and returns its exit code. */
  runAgent(
    command: string[],
    args: string[],
    cwd: string,
    env: Record<string, string>,
  ): Promise<number | null>;
}

function declaredTools(body: Json | undefined): string[] {
  const tools = Array.isArray(body?.tools)
    ? (body.tools as { functionDeclarations?: { name?: string }[] }[])
    : [];
  return tools.flatMap((tool) =>
    (tool.functionDeclarations ?? []).map((declaration) => String(declaration.name)),
  );
}

const isMain = (request: { body?: Json }) => declaredTools(request.body).includes(SHELL_TOOL);
const isSummary = (request: { body?: Json }) =>
  JSON.stringify(request.body?.contents ?? '').includes(summaryMarker);

/** A value that satisfies a Gemini response schema (OpenAPI-style `OBJECT` or JSON Schema `object`). */
export function valueForSchema(schema: unknown): unknown {
  const node = (schema ?? {}) as { type?: unknown; enum?: unknown[]; properties?: Record<string, unknown> };
  if (Array.isArray(node.enum) && node.enum.length > 0) return node.enum[0];
  switch (String(node.type ?? 'object').toLowerCase()) {
    case 'object':
      return Object.fromEntries(
        Object.entries(node.properties ?? {}).map(([name, child]) => [name, valueForSchema(child)]),
      );
    case 'array':
      return [];
    case 'integer':
    case 'number':
      return 50;
    case 'boolean':
      return false;
    default:
      return 'scripted';
  }
}

/** The script: JSON answers to JSON-mode calls, `steps` shell calls on the main turn, then "Done.". */
export function geminiScript(steps: number) {
  let step = 0;
  return (request: Omit<RecordedRequest, 'outcome'>): ScriptStep => {
    if (isSummary(request))
      return '## Task and constraints\nCount numbers in files.\n## Current state\nCounting.';
    const config = (request.body.generationConfig ?? {}) as Json;
    const schema = config.responseJsonSchema ?? config.responseSchema;
    if (schema !== undefined || config.responseMimeType === 'application/json')
      return JSON.stringify(valueForSchema(schema));
    if (!isMain(request)) return 'ok';
    step += 1;
    if (step > steps) return 'Done.';
    const command = `seq 1 6000 > part${step}.txt && cat part${step}.txt`;
    return {
      type: 'tool-calls',
      calls: [{ name: SHELL_TOOL, input: { command, description: `write part ${step}` } }],
    };
  };
}

/** A scratch HOME whose settings pick API-key auth, so the CLI neither prompts nor opens a browser. */
export async function geminiHome(workspace: string): Promise<string> {
  const home = join(workspace, '.gemini-home');
  await mkdir(join(home, '.gemini'), { recursive: true });
  const settings = { security: { auth: { selectedType: 'gemini-api-key' } } };
  await writeFile(join(home, '.gemini', 'settings.json'), `${JSON.stringify(settings)}\n`);
  return home;
}

/** One run of Gemini CLI on the task, through the proxy or (`proxied: false`) straight at the server. */
export async function geminiCli(options: GeminiRunOptions, proxied: boolean): Promise<E2ETraffic> {
  const server = await startScriptedModelServer({ script: geminiScript(options.steps) });
  const records: ProxyRequestRecord[] = [];
  const proxy = proxied
    ? await startProxy({
        upstream: server.url,
        thresholds: options.thresholds,
        onRequest: (record) => records.push(record),
      })
    : undefined;
  const client = await startHttpHop(proxy?.url ?? server.url);
  const workspace = await mkdtemp(join(tmpdir(), 'e2e-gemini-'));
  try {
    const exitCode = await options.runAgent(
      options.command,
      [
        '-p',
        `Write ${options.steps} files of numbers with the shell, one per step, then say Done.`,
        '--yolo',
      ],
      workspace,
      {
        HOME: await geminiHome(workspace),
        GEMINI_CLI_TRUST_WORKSPACE: 'true',
        GOOGLE_GEMINI_BASE_URL: client.url,
        GEMINI_API_KEY: 'gemini-e2e-dummy',
      },
    );
    return {
      api: 'gemini',
      exitCode,
      client: client.requests.filter((request) => isMain(request) && !isSummary(request)),
      server: server.requests.filter((request) => isMain(request) && !isSummary(request)),
      allServer: [...server.requests],
      records: mainSession(records.filter((record) => record.api === 'gemini')),
      ...(proxy ? { bodies: (await proxy.stats()).bodies } : {}),
    };
  } finally {
    await client.close();
    await proxy?.close();
    await server.close();
    await rm(workspace, { recursive: true, force: true });
  }
}

/** The proxy's records of the conversation it saw most often (the CLI's main one). */
function mainSession(records: ProxyRequestRecord[]): ProxyRequestRecord[] {
  const counts = new Map<string, number>();
  for (const record of records) counts.set(record.session, (counts.get(record.session) ?? 0) + 1);
  const main = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  return records.filter((record) => record.session === main && record.status === 200);
}
