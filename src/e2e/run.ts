// `npm run e2e`: the real Claude Code, Codex CLI and Gemini CLI run a multi-step task in a scratch
// workspace through `agent-compact proxy`, in front of the scripted model server scripted to drive
// tool calls. Passes when each agent exits 0, every request the server receives is valid,
// compaction fired and the upstream prefix stays byte-stable between compactions. The agents are
// installed once into ~/.cache/agent-compact-e2e (AGENT_COMPACT_E2E_DIR); kept out of npm test.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allowsSystemMessages, MID_CONVERSATION_SYSTEM_BETA } from '../core/conversation/validate.js';
import { type ProxyRequestRecord, startProxy } from '../proxy/index.js';
import { type RecordedRequest, type ScriptStep, startScriptedModelServer } from '../testing/index.js';
import {
  checkAgainstBaseline,
  checkSurvivesHard,
  checkTraffic,
  type E2ECheck,
  type E2ETraffic,
} from './e2e-checks.js';
import { geminiCli, geminiHome, geminiScript } from './gemini-run.js';
import { type HopRequest, startHttpHop } from './http-hop.js';
import { installAgents } from './install-agents.js';
import { codexHome, wrappedRun } from './wrap-runs.js';

/** Tool calls the scripted model makes before it answers "Done." */
const STEPS = 10;
/** The task every agent is given. */
const TASK = `Write ${STEPS} files of numbers with the shell, one per step, then say Done.`;
/** Low thresholds so a short task compacts (Claude Code's system prompt and tools alone are ~19k). */
const THRESHOLDS = { mid: 40_000, hard: 70_000 };
const AGENT_TIMEOUT_MS = 240_000;

const summaryMarker = 'Write a dense summary';

function isSummary(request: { body: Record<string, unknown> }): boolean {
  return JSON.stringify(request.body.messages ?? request.body.input ?? '').includes(summaryMarker);
}

function toolNames(body: Record<string, unknown> | undefined): string[] {
  const tools = Array.isArray(body?.tools) ? (body.tools as { name?: unknown; type?: unknown }[]) : [];
  return tools.map((tool) => String(tool.name ?? tool.type));
}

/** A script that answers the agent's main conversation with `STEPS` shell calls, then "Done.". */
function agentScript(shellCall: (step: number) => ScriptStep, isMain: (request: RecordedRequest) => boolean) {
  let step = 0;
  return (request: Omit<RecordedRequest, 'outcome'>): ScriptStep => {
    if (isSummary(request))
      return '## Task and constraints\nCount numbers in files.\n## Current state\nCounting.';
    if (!isMain(request as RecordedRequest)) return 'ok';
    step += 1;
    return step <= STEPS ? shellCall(step) : 'Done.';
  };
}

async function runAgent(
  command: string[],
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<number | null> {
  const [executable, ...prefix] = command;
  const child = spawn(executable!, [...prefix, ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), AGENT_TIMEOUT_MS);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  clearTimeout(timer);
  if (code !== 0) console.log(output.slice(-3000));
  return code;
}

/** The proxy's records of the conversation it saw most often (the agent's main one). */
function mainRecords(records: ProxyRequestRecord[]): ProxyRequestRecord[] {
  const counts = new Map<string, number>();
  for (const record of records) counts.set(record.session, (counts.get(record.session) ?? 0) + 1);
  const main = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  return records.filter((record) => record.session === main && record.status === 200);
}

/** Claude Code's own plan for the task, made with its task tools (TaskCreate since 2.1). */
const CLAUDE_TASKS = ['Write the part files', 'Say Done'];
/** The plan as the task list prints it once the first task is under way. */
const claudePlan = [`#1 [in_progress] ${CLAUDE_TASKS[0]}`, `#2 [pending] ${CLAUDE_TASKS[1]}`];
/**
 * Thresholds for the Claude Code run: low enough that a hard compaction replaces the history,
 * so the run shows what survives it (the plan, the user's task) with the real client.
 */
const CLAUDE_THRESHOLDS = { mid: 30_000, hard: 50_000 };

/** Claude Code: `claude -p` with ANTHROPIC_BASE_URL at the proxy. */
async function claudeCode(command: string[]): Promise<E2ETraffic> {
  const isMain = (request: { body?: Record<string, unknown> }) => toolNames(request.body).includes('Bash');
  const bash = (step: number) => ({
    name: 'Bash',
    input: {
      command: `seq 1 6000 > part${step}.txt && cat part${step}.txt`,
      description: `write part ${step}`,
    },
  });
  const plan = [
    ...CLAUDE_TASKS.map((subject) => ({ name: 'TaskCreate', input: { subject, description: subject } })),
  ];
  const server = await startScriptedModelServer({
    script: agentScript(
      (step) => ({
        type: 'tool-calls',
        calls:
          step === 1
            ? plan
            : step === 2
              ? [{ name: 'TaskUpdate', input: { taskId: '1', status: 'in_progress' } }, bash(step)]
              : [bash(step)],
      }),
      (request) => isMain(request),
    ),
  });
  const records: ProxyRequestRecord[] = [];
  const proxy = await startProxy({
    upstream: server.url,
    thresholds: CLAUDE_THRESHOLDS,
    onRequest: (record) => records.push(record),
  });
  const client = await startHttpHop(proxy.url);
  const workspace = await mkdtemp(join(tmpdir(), 'e2e-claude-'));
  try {
    const exitCode = await runAgent(command, ['-p', TASK, '--dangerously-skip-permissions'], workspace, {
      ANTHROPIC_BASE_URL: client.url,
      ANTHROPIC_API_KEY: 'sk-ant-e2e-dummy',
      IS_SANDBOX: '1',
      CLAUDE_CONFIG_DIR: join(workspace, '.claude-config'),
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    });
    return {
      api: 'anthropic',
      exitCode,
      client: client.requests.filter(
        (request: HopRequest) => request.path.startsWith('/v1/messages') && isMain(request),
      ),
      server: server.requests.filter((request) => isMain(request) && !isSummary(request)),
      allServer: [...server.requests],
      records: mainRecords(records.filter((record) => record.api === 'anthropic')),
      bodies: (await proxy.stats()).bodies,
    };
  } finally {
    await client.close();
    await proxy.close();
    await server.close();
    await rm(workspace, { recursive: true, force: true });
  }
}

/** Codex: `codex exec` with a model provider whose base_url is the proxy and wire_api "responses". */
async function codex(command: string[]): Promise<E2ETraffic | string> {
  const isMain = (request: { body?: Record<string, unknown> }) => toolNames(request.body).length > 0;
  const server = await startScriptedModelServer({
    script: agentScript(
      (step) => ({
        type: 'tool-calls',
        calls: [
          {
            // Codex's shell tool (0.17x): one command line, output capped by max_output_tokens.
            name: 'exec_command',
            input: { cmd: `seq 1 6000 > part${step}.txt && cat part${step}.txt`, max_output_tokens: 10_000 },
          },
        ],
      }),
      (request) => isMain(request),
    ),
  });
  const probe = await fetch(`${server.url}/v1/responses`, {
    method: 'POST',
    headers: { authorization: 'Bearer probe', 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'probe', input: 'hi' }),
  });
  if (probe.status === 404) {
    await server.close();
    return 'the scripted model server does not speak POST /v1/responses yet (the responses branch adds it)';
  }
  (server.requests as RecordedRequest[]).length = 0;
  const records: ProxyRequestRecord[] = [];
  const proxy = await startProxy({
    upstream: server.url,
    thresholds: THRESHOLDS,
    onRequest: (record) => records.push(record),
  });
  const client = await startHttpHop(proxy.url);
  const workspace = await mkdtemp(join(tmpdir(), 'e2e-codex-'));
  const codexHome = join(workspace, '.codex-home');
  try {
    await mkdtempDir(codexHome);
    await writeFile(
      join(codexHome, 'config.toml'),
      [
        'model = "gpt-e2e"',
        'model_provider = "agent-compact"',
        '',
        '[model_providers.agent-compact]',
        'name = "agent-compact proxy"',
        `base_url = "${client.url}/v1"`,
        'wire_api = "responses"',
        'env_key = "OPENAI_API_KEY"',
        '',
      ].join('\n'),
    );
    const exitCode = await runAgent(
      command,
      ['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', TASK],
      workspace,
      { CODEX_HOME: codexHome, OPENAI_API_KEY: 'sk-e2e-dummy' },
    );
    return {
      api: 'responses',
      exitCode,
      client: client.requests.filter(
        (request) => request.path.startsWith('/v1/responses') && isMain(request),
      ),
      server: server.requests.filter((request) => isMain(request) && !isSummary(request)),
      allServer: [...server.requests],
      records: mainRecords(records.filter((record) => record.api === 'responses')),
      bodies: (await proxy.stats()).bodies,
    };
  } finally {
    await client.close();
    await proxy.close();
    await server.close();
    await rm(workspace, { recursive: true, force: true });
  }
}

async function mkdtempDir(path: string): Promise<void> {
  const { mkdir } = await import('node:fs/promises');
  await mkdir(path, { recursive: true });
}

/** How many requests reached the server with `role: "system"` messages, and under which beta. */
function systemMessageRequests(traffic: E2ETraffic): string {
  const posts = traffic.allServer.filter((request) => request.method === 'POST');
  const carrying = posts.filter(
    (request) =>
      Array.isArray(request.body.messages) &&
      (request.body.messages as { role?: unknown }[]).some((message) => message.role === 'system'),
  );
  const underBeta = carrying.filter((request) => allowsSystemMessages(request.headers['anthropic-beta']));
  return `${carrying.length} of ${posts.length} POST requests to the server carried them, ${underBeta.length} under ${MID_CONVERSATION_SYSTEM_BETA}`;
}

function report(name: string, checks: E2ECheck[], traffic?: E2ETraffic): boolean {
  console.log(`\n${name}`);
  for (const check of checks)
    console.log(`  ${check.passed ? 'ok  ' : 'FAIL'} ${check.name}: ${check.detail}`);
  const bodies = traffic?.bodies;
  if (bodies) {
    console.log(
      `  note request bodies of 16 KiB or more read from their new bytes: ${bodies.incremental} of ${bodies.incremental + bodies.whole}`,
    );
  }
  return checks.every((check) => check.passed);
}

const agents = installAgents();
const claudeTraffic = await claudeCode(agents.claude);
let passed = report(
  'Claude Code',
  [...checkTraffic(claudeTraffic), checkSurvivesHard(claudeTraffic, [...claudePlan, TASK])],
  claudeTraffic,
);
console.log(`  note mid-conversation system messages: ${systemMessageRequests(claudeTraffic)}`);
const codexTraffic = await codex(agents.codex);
if (typeof codexTraffic === 'string') console.log(`\nCodex: skipped — ${codexTraffic}`);
else passed = report('Codex', checkTraffic(codexTraffic), codexTraffic) && passed;
// Gemini CLI twice: without the proxy (the baseline its peak request is held against), then through it.
const geminiOptions = { command: agents.gemini, steps: STEPS, thresholds: THRESHOLDS, runAgent };
const geminiDirect = await geminiCli(geminiOptions, false);
const geminiTraffic = await geminiCli(geminiOptions, true);
passed =
  report(
    'Gemini CLI',
    [...checkTraffic(geminiTraffic), ...checkAgainstBaseline(geminiTraffic, geminiDirect)],
    geminiTraffic,
  ) && passed;

// The same tasks under `agent-compact wrap`, which starts its own proxy and points each agent at it.
const shellStep = (name: string, input: (step: number) => Record<string, unknown>) =>
  agentScript(
    (step) => ({ type: 'tool-calls', calls: [{ name, input: input(step) }] }),
    (request) => toolNames(request.body).length > 0,
  );
const wrappedClaude = await wrappedRun({
  agent: agents.claude,
  args: ['-p', TASK, '--dangerously-skip-permissions'],
  env: {
    ANTHROPIC_API_KEY: 'sk-ant-e2e-dummy',
    IS_SANDBOX: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  },
  prepare: async (workspace) => ({ CLAUDE_CONFIG_DIR: join(workspace, '.claude-config') }),
  script: shellStep('Bash', (step) => ({
    command: `seq 1 6000 > part${step}.txt && cat part${step}.txt`,
    description: `write part ${step}`,
  })),
  thresholds: THRESHOLDS,
});
passed = report('agent-compact wrap -- claude -p', wrappedClaude) && passed;
if (typeof codexTraffic !== 'string') {
  const wrappedCodex = await wrappedRun({
    agent: agents.codex,
    args: ['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', TASK],
    env: { OPENAI_API_KEY: 'sk-e2e-dummy' },
    prepare: codexHome,
    script: shellStep('exec_command', (step) => ({
      cmd: `seq 1 6000 > part${step}.txt && cat part${step}.txt`,
      max_output_tokens: 10_000,
    })),
    thresholds: THRESHOLDS,
  });
  passed = report('agent-compact wrap -- codex exec', wrappedCodex) && passed;
}
const wrappedGemini = await wrappedRun({
  agent: agents.gemini,
  args: ['-p', TASK, '--yolo'],
  env: { GEMINI_API_KEY: 'gemini-e2e-dummy', GEMINI_CLI_TRUST_WORKSPACE: 'true' },
  prepare: async (workspace) => ({ HOME: await geminiHome(workspace) }),
  script: geminiScript(STEPS),
  thresholds: THRESHOLDS,
});
passed = report('agent-compact wrap -- gemini -p', wrappedGemini) && passed;
process.exitCode = passed ? 0 : 1;
