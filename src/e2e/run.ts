// `npm run e2e`: the real Claude Code (pinned 2.1.328 and the newest), Codex CLI, opencode and Gemini CLI,
// each on its defaults (no model flag), run a multi-step task in a scratch workspace in front of
// the scripted model server scripted to drive tool calls: once straight at it (the baseline), once
// through `startProxy`, once under `agent-compact wrap`. Passes when each run exits 0, every request
// the server receives is valid, at least one compaction went upstream and none fell back to the
// client's bytes, the largest request is at most 85% of the baseline's, and "tokens sent" is within
// 10% of what the server received without the proxy. A fourth run turns on `--recall` and has the
// model call it once: the proxy answers it and the agent never sees it. A fifth run has the pinned Claude
// Code fork two subagents after a hard compaction: no request may restart its session. A sixth run
// refuses its hard-compacted request once with a 429: the retry goes upstream unchanged, with no
// second summary (`fault-run.ts`). The agents are installed once into
// ~/.cache/agent-compact-e2e (AGENT_COMPACT_E2E_DIR); kept out of npm test.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { allowsSystemMessages } from 'agent-compact/wire';
import { type AgentRun, type AgentSpec, directRun, proxiedRun, wrappedRun } from './agent-runs.js';
import {
  checkPeak,
  checkPrefixRewrites,
  checkRecallAnswered,
  checkSummaryReadsCache,
  checkSurvivesHard,
  checkTokensSent,
  checkTraffic,
  checkUpstreamCompactions,
  checkWorkingSetAfterHard,
  declaresRecall,
  E2E_RECALL_CALL_ID,
  type E2ECheck,
  type E2ETraffic,
} from './e2e-checks.js';
import { rateLimitChecks, rateLimitedSpec } from './fault-run.js';
import { forkChecks, forkingSpec } from './fork-run.js';
import { geminiHome, geminiScript } from './gemini-run.js';
import { installAgents } from './install-agents.js';
import { AGENT_FORMATS } from './wire/agent-formats.js';

type Body = Record<string, unknown> | undefined;

/** Shell steps of the Codex and Gemini CLI tasks. */
const STEPS = 10;
const SHELL_TASK = `Write ${STEPS} files of numbers with the shell, one per step, then say Done.`;
/**
 * Gemini CLI: low enough for a hard compaction after the heredoc step (its shell results are ~17k
 * tokens each by the provider's count), so the working set of the file it wrote is checked.
 */
const GEMINI_THRESHOLDS = { mid: 30_000, hard: 45_000 };
/**
 * The Claude Code task of issues #34 and #32: read a small TypeScript file and change one function
 * with `Edit`, then twelve 250-line files read with `Read`, one per step, at mid 24k / hard 40k
 * (its system prompt and tools alone are ~11k), so micro, mid and hard all have work and the hard
 * compaction comes after the edit.
 */
const FILES = 12;
const FILE_LINES = 250;
const CODE_FILE = 'usage.ts';
const CODE_TEXT = [
  'export interface Usage {',
  '  input: number;',
  '  output: number;',
  '  cached?: number;',
  '}',
  '',
  'export function totalTokens(usage: Usage): number {',
  '  return usage.input + usage.output;',
  '}',
  '',
  'export function formatUsage(usage: Usage): string {',
  "  return String(usage.input) + ' in, ' + String(usage.output) + ' out';",
  '}',
  '',
].join('\n');
/** The edit: `totalTokens` counts cached tokens too. */
const CODE_EDIT = {
  definition: 'totalTokens',
  old_string: '  return usage.input + usage.output;',
  new_string: '  return usage.input + usage.output + (usage.cached ?? 0);',
};
/** The code file as the edit leaves it, written by a shell heredoc (Codex's and Gemini CLI's first step). */
const CODE_HEREDOC = `cat > ${CODE_FILE} <<'EOF'\n${CODE_TEXT.replace(CODE_EDIT.old_string, CODE_EDIT.new_string)}EOF`;
const CLAUDE_TASK = `Make totalTokens in ${CODE_FILE} count cached tokens, then read the ${FILES} files file1.txt to file${FILES}.txt one by one, then say Done.`;
const CLAUDE_THRESHOLDS = { mid: 24_000, hard: 40_000 };
/**
 * opencode's system prompt and tools are ~7k (Claude Code's ~11k): lower thresholds, so mid, which
 * keeps the last tool results whole, cannot get under mid and hard has work after the edit.
 */
const OPENCODE_THRESHOLDS = { mid: 20_000, hard: 30_000 };
/** Codex: thresholds low enough for a hard compaction, whose ledger must name the commands its `exec` scripts ran. */
const CODEX_THRESHOLDS = { mid: 30_000, hard: 45_000 };
/** What a hard compaction must keep: the user's task, and the harness's environment system message. */
const CLAUDE_FACTS = [CLAUDE_TASK, 'Primary working directory'];

const summaryMarker = 'Write a dense summary';
/** A line of the scripted summary: a request that holds it went out compacted by hard. */
const SUMMARY_TASK = 'Work through the files.';
const SUMMARY = `## Task and constraints\n${SUMMARY_TASK}\n## Current state\nWorking.`;

function toolNames(body: Body): string[] {
  const tools = Array.isArray(body?.tools) ? (body.tools as { name?: unknown; type?: unknown }[]) : [];
  return tools.map((tool) => String(tool.name ?? tool.type));
}

const isSummary = (request: { body?: Body }) =>
  JSON.stringify(request.body?.messages ?? request.body?.input ?? request.body?.contents ?? '').includes(
    summaryMarker,
  );

/** A script: summaries get a summary, side calls "ok", the main turn `call(step)` until `steps`, then "Done.". */
function stepScript(isMain: (body: Body) => boolean, steps: number, call: (step: number) => unknown) {
  let step = 0;
  return (request: { body: Record<string, unknown> }) => {
    if (isSummary(request)) return SUMMARY;
    if (!isMain(request.body)) return 'ok';
    step += 1;
    return (step <= steps ? call(step) : 'Done.') as never;
  };
}

/** A file tool set: its read and edit tools, and the names of their arguments. */
interface FileTools {
  read: string;
  edit: string;
  path: string;
  oldText: string;
  newText: string;
}
const CLAUDE_TOOLS: FileTools = {
  read: 'Read',
  edit: 'Edit',
  path: 'file_path',
  oldText: 'old_string',
  newText: 'new_string',
};
const OPENCODE_TOOLS: FileTools = {
  read: 'read',
  edit: 'edit',
  path: 'filePath',
  oldText: 'oldString',
  newText: 'newString',
};

/** The call at `step`: read the code file, edit it (the edit tools want it read first), then the text files. */
function codeTaskStep(tools: FileTools, workspace: string, step: number) {
  const code = join(workspace, CODE_FILE);
  const call =
    step === 1
      ? { name: tools.read, input: { [tools.path]: code } }
      : step === 2
        ? {
            name: tools.edit,
            input: {
              [tools.path]: code,
              [tools.oldText]: CODE_EDIT.old_string,
              [tools.newText]: CODE_EDIT.new_string,
            },
          }
        : { name: tools.read, input: { [tools.path]: join(workspace, `file${step - 2}.txt`) } };
  return { type: 'tool-calls', calls: [call] };
}

/** The files of the Claude Code and opencode task: the code file and the text files. */
async function writeCodeTask(workspace: string): Promise<void> {
  const line = (file: number, index: number) =>
    `file ${file} line ${index + 1}: const value${index} = compute(input, ${index}); // lorem ipsum dolor`;
  for (let file = 1; file <= FILES; file += 1) {
    const text = Array.from({ length: FILE_LINES }, (_, index) => line(file, index)).join('\n');
    await writeFile(join(workspace, `file${file}.txt`), `${text}\n`);
  }
  await writeFile(join(workspace, CODE_FILE), CODE_TEXT);
}

function claudeSpec(name: string, command: string[]): AgentSpec {
  const isMain = (body: Body) => toolNames(body).includes('Read');
  return {
    name,
    api: AGENT_FORMATS.claudeCode,
    note: (traffic) => `system messages: ${systemMessageRequests(traffic)}`,
    command,
    args: ['-p', CLAUDE_TASK, '--dangerously-skip-permissions'],
    thresholds: CLAUDE_THRESHOLDS,
    isMain: (request) => isMain(request.body),
    isSummary,
    setup: writeCodeTask,
    script: (workspace) =>
      stepScript(isMain, FILES + 2, (step) => codeTaskStep(CLAUDE_TOOLS, workspace, step)),
    env: async (workspace, baseUrl) => ({
      ...(baseUrl ? { ANTHROPIC_BASE_URL: baseUrl } : {}),
      ANTHROPIC_API_KEY: 'sk-ant-e2e-dummy',
      IS_SANDBOX: '1',
      CLAUDE_CONFIG_DIR: join(workspace, '.claude-config'),
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    }),
  };
}

/**
 * opencode on its default model (an Anthropic key: Claude Sonnet), run with `opencode run`. Its
 * title call has no tools; the main conversation declares `read` and `edit`. Downloads it would
 * start (models list, language servers, updates) are turned off: the tests never reach the internet.
 */
function opencodeSpec(version: string, command: string[]): AgentSpec {
  const isMain = (body: Body) => ['read', 'edit'].every((name) => toolNames(body).includes(name));
  return {
    name: `opencode ${version}`,
    api: AGENT_FORMATS.opencode,
    command,
    args: ['run', CLAUDE_TASK],
    thresholds: OPENCODE_THRESHOLDS,
    isMain: (request) => isMain(request.body),
    isSummary,
    setup: writeCodeTask,
    script: (workspace) =>
      stepScript(isMain, FILES + 2, (step) => codeTaskStep(OPENCODE_TOOLS, workspace, step)),
    env: async (workspace, baseUrl) => ({
      // Its AI SDK Anthropic provider wants the base URL with `/v1` (wrap sets it so).
      ...(baseUrl ? { ANTHROPIC_BASE_URL: `${baseUrl}/v1` } : {}),
      ANTHROPIC_API_KEY: 'sk-ant-e2e-dummy',
      HOME: join(workspace, '.opencode-home'),
      XDG_CONFIG_HOME: join(workspace, '.opencode-home', 'config'),
      XDG_DATA_HOME: join(workspace, '.opencode-home', 'data'),
      XDG_CACHE_HOME: join(workspace, '.opencode-home', 'cache'),
      XDG_STATE_HOME: join(workspace, '.opencode-home', 'state'),
      OPENCODE_DISABLE_AUTOUPDATE: '1',
      OPENCODE_DISABLE_MODELS_FETCH: '1',
      OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    }),
  };
}

/**
 * Codex's tools: `tools`, or on its default model an `additional_tools` input item whose
 * `functions` namespace holds `exec`, a custom tool that runs JavaScript calling the nested tools.
 */
function codexTools(body: Body): string[] {
  const input = Array.isArray(body?.input) ? (body.input as Record<string, unknown>[]) : [];
  const additional = input.filter((item) => item?.type === 'additional_tools');
  return [...toolNames(body), ...additional.flatMap((item) => toolNames({ tools: item.tools }))];
}

function codexSpec(command: string[]): AgentSpec {
  const isMain = (body: Body) => codexTools(body).length > 0;
  return {
    name: 'Codex',
    api: AGENT_FORMATS.codex,
    command,
    args: ['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', SHELL_TASK],
    thresholds: CODEX_THRESHOLDS,
    isMain: (request) => isMain(request.body),
    isSummary,
    script: () => {
      let usesExec = false;
      // The first step writes the code file with a heredoc, as Codex writes a new file from its shell.
      const shell = (step: number) => ({
        cmd: step === 1 ? CODE_HEREDOC : `seq 1 6000 > part${step}.txt && cat part${step}.txt`,
        max_output_tokens: 10_000,
      });
      const steps = stepScript(isMain, STEPS, (step) => ({
        type: 'tool-calls',
        calls: [
          usesExec
            ? // The default model's way: JavaScript in `exec` calling the nested shell tool.
              {
                name: 'exec',
                input: { input: `text(await tools.exec_command(${JSON.stringify(shell(step))}));` },
              }
            : // Codex's shell tool (0.17x) on models given plain function tools.
              { name: 'exec_command', input: shell(step) },
        ],
      }));
      return (request: { body: Record<string, unknown> }) => {
        usesExec = codexTools(request.body).includes('functions');
        return steps(request);
      };
    },
    // No model in its config: Codex picks its default. Pointed at the server by a provider entry.
    env: async (workspace, baseUrl) => {
      const home = join(workspace, '.codex-home');
      await mkdir(home, { recursive: true });
      // Under wrap the config is empty: wrap adds the provider with -c overrides.
      await writeFile(
        join(home, 'config.toml'),
        baseUrl === undefined
          ? ''
          : [
              'model_provider = "agent-compact"',
              '[model_providers.agent-compact]',
              'name = "agent-compact e2e"',
              `base_url = "${baseUrl}/v1"`,
              'wire_api = "responses"',
              'env_key = "OPENAI_API_KEY"',
              '',
            ].join('\n'),
      );
      return { CODEX_HOME: home, OPENAI_API_KEY: 'sk-e2e-dummy' };
    },
  };
}

function geminiSpec(command: string[]): AgentSpec {
  const declared = (body: Body) =>
    (Array.isArray(body?.tools)
      ? (body.tools as { functionDeclarations?: { name?: string }[] }[])
      : []
    ).flatMap((tool) => (tool.functionDeclarations ?? []).map((declaration) => String(declaration.name)));
  return {
    name: 'Gemini CLI',
    api: AGENT_FORMATS.geminiCli,
    command,
    args: ['-p', SHELL_TASK, '--yolo'],
    thresholds: GEMINI_THRESHOLDS,
    isMain: (request) => declared(request.body).includes('run_shell_command'),
    isSummary,
    script: () => geminiScript(STEPS, CODE_HEREDOC),
    env: async (workspace, baseUrl) => ({
      HOME: await geminiHome(workspace),
      GEMINI_CLI_TRUST_WORKSPACE: 'true',
      GEMINI_API_KEY: 'gemini-e2e-dummy',
      ...(baseUrl ? { GOOGLE_GEMINI_BASE_URL: baseUrl } : {}),
    }),
  };
}

/** How many requests reached the server with `role: "system"` messages, and how many under a beta allowing them. */
function systemMessageRequests(traffic: E2ETraffic): string {
  const posts = traffic.allServer.filter((request) => request.method === 'POST');
  const carrying = posts.filter(
    (request) =>
      Array.isArray(request.body.messages) &&
      (request.body.messages as { role?: unknown }[]).some((message) => message.role === 'system'),
  );
  const underBeta = carrying.filter((request) => allowsSystemMessages(request.headers['anthropic-beta']));
  return `${carrying.length} of ${posts.length} POST requests to the server carried them, ${underBeta.length} under a beta allowing them`;
}

type Script = (request: { body: Record<string, unknown> }) => unknown;

/**
 * The agent's script with one `recall` call: the first time a request the proxy offered `recall`
 * to shows a recall id (a placeholder's or a summary's), the model calls `recall` with it; then the script goes on.
 */
function withOneRecall(script: Script): Script {
  let called = false;
  return (request) => {
    // A placeholder's `recall r3]`, or a summary's `recall="r1"` (escaped in the JSON).
    const id = /recall(?: |=\\")(r\d+)/.exec(JSON.stringify(request.body))?.[1];
    if (called || id === undefined || !declaresRecall(request.body)) return script(request);
    called = true;
    return { type: 'tool-calls', calls: [{ id: E2E_RECALL_CALL_ID, name: 'recall', input: { id } }] };
  };
}

/** The agent through the proxy with `--recall`, its model calling `recall` once. */
async function recallRun(spec: AgentSpec): Promise<boolean> {
  const recalling: AgentSpec = {
    ...spec,
    script: (workspace) => withOneRecall(spec.script(workspace) as Script) as never,
  };
  const run = await proxiedRun(recalling, { recall: true });
  return report(
    `${spec.name} through the proxy with --recall`,
    [...checkTraffic(run.traffic).slice(0, 2), ...checkRecallAnswered(run.traffic)],
    run,
  );
}

function report(name: string, checks: E2ECheck[], run?: AgentRun): boolean {
  console.log(`\n${name}`);
  for (const check of checks)
    console.log(`  ${check.passed ? 'ok  ' : 'FAIL'} ${check.name}: ${check.detail}`);
  if (run?.savingsLine) console.log(`  note ${run.savingsLine}`);
  const bodies = run?.traffic.bodies;
  if (bodies) {
    console.log(
      `  note request bodies of 16 KiB or more read from their new bytes: ${bodies.incremental} of ${bodies.incremental + bodies.whole}`,
    );
  }
  return checks.every((check) => check.passed);
}

/** The pinned Claude Code forking two subagents after a hard compaction (`fork-run.ts`). */
async function forkRun(spec: AgentSpec): Promise<boolean> {
  const run = await proxiedRun(forkingSpec(spec));
  const checks = [...checkTraffic(run.traffic).slice(0, 2), ...forkChecks(run)];
  return report(`${spec.name} through the proxy, forking two subagents after a hard compaction`, checks, run);
}

/** The pinned Claude Code with a 429 on the request its hard compaction wrote (`fault-run.ts`). */
async function rateLimitRun(spec: AgentSpec): Promise<boolean> {
  const refusing = rateLimitedSpec(spec, SUMMARY_TASK);
  const run = await proxiedRun(refusing);
  const checks = [...checkTraffic(run.traffic), ...rateLimitChecks(run, refusing)];
  return report(`${spec.name} through the proxy, a 429 on the request after a hard compaction`, checks, run);
}

/** The three runs of one agent and their checks; true when all passed. */
async function runAll(spec: AgentSpec, extra: (run: AgentRun) => E2ECheck[] = () => []): Promise<boolean> {
  const direct = await directRun(spec);
  const baseline = direct.traffic;
  let passed = report(`${spec.name} without the proxy`, [
    { name: 'agent exited 0', passed: baseline.exitCode === 0, detail: `exit code ${baseline.exitCode}` },
    ...checkTraffic(baseline).slice(1, 2),
  ]);
  const proxied = await proxiedRun(spec);
  passed =
    report(
      `${spec.name} through the proxy`,
      [
        ...checkTraffic(proxied.traffic),
        ...checkUpstreamCompactions(proxied.allRecords),
        checkPeak(proxied.traffic, baseline),
        checkTokensSent(proxied.reportedSent, baseline),
        ...extra(proxied),
      ],
      proxied,
    ) && passed;
  if (spec.note) console.log(`  note ${spec.note(proxied.traffic)}`);
  const wrapped = await wrappedRun(spec);
  const wrapChecks: E2ECheck[] = [
    ...checkTraffic(wrapped.traffic).slice(0, 2),
    {
      name: 'savings line printed',
      passed: wrapped.savingsLine !== undefined,
      detail: wrapped.savingsLine ?? 'missing',
    },
    ...checkUpstreamCompactions(wrapped.allRecords),
    checkPeak(wrapped.traffic, baseline),
    checkTokensSent(wrapped.reportedSent, baseline),
  ];
  passed = report(`agent-compact wrap -- ${spec.name}`, wrapChecks, wrapped) && passed;
  return (await recallRun(spec)) && passed;
}

const started = performance.now();
const agents = installAgents();
/**
 * `AGENT_COMPACT_E2E_ONLY=codex npm run e2e` runs the agents whose name holds it (case-insensitive,
 * a hyphen for a space: `claude-code` runs both Claude Codes).
 */
const only = process.env.AGENT_COMPACT_E2E_ONLY?.toLowerCase().replaceAll('-', ' ');
const specs: Array<[AgentSpec, (run: AgentRun) => E2ECheck[]]> = [
  ...[
    [agents.claudeVersion, agents.claude],
    [agents.claudeNewestVersion, agents.claudeNewest],
  ].map(([version, command]): [AgentSpec, (run: AgentRun) => E2ECheck[]] => [
    claudeSpec(`Claude Code ${version as string}`, command as string[]),
    (run) => [
      checkSurvivesHard(run.traffic, CLAUDE_FACTS),
      checkWorkingSetAfterHard(run.traffic, { file: CODE_FILE, definition: CODE_EDIT.definition }),
      checkSummaryReadsCache(run.traffic, isSummary),
    ],
  ]),
  [
    codexSpec(agents.codex),
    // A seq step's command, run inside an `exec` script on Codex's default model; the file its heredoc wrote.
    (run) => [
      checkSurvivesHard(run.traffic, [SHELL_TASK, 'seq 1 6000 > part2.txt && cat part2.txt']),
      checkWorkingSetAfterHard(run.traffic, { file: CODE_FILE, definition: CODE_EDIT.definition }),
    ],
  ],
  [
    opencodeSpec(agents.opencodeVersion, agents.opencode),
    (run) => [
      checkSurvivesHard(run.traffic, [CLAUDE_TASK]),
      checkWorkingSetAfterHard(run.traffic, { file: CODE_FILE, definition: CODE_EDIT.definition }),
    ],
  ],
  [
    geminiSpec(agents.gemini),
    (run) => [
      checkPrefixRewrites(run.traffic),
      checkWorkingSetAfterHard(run.traffic, { file: CODE_FILE, definition: CODE_EDIT.definition }),
    ],
  ],
];
let passed = true;
for (const [spec, extra] of specs) {
  if (only !== undefined && !spec.name.toLowerCase().includes(only)) continue;
  passed = (await runAll(spec, extra)) && passed;
  if (spec.name === `Claude Code ${agents.claudeVersion}`) {
    passed = (await forkRun(spec)) && passed;
    passed = (await rateLimitRun(spec)) && passed;
  }
}
console.log(
  `\nnpm run e2e: ${passed ? 'passed' : 'FAILED'} in ${((performance.now() - started) / 1000).toFixed(0)} s`,
);
process.exitCode = passed ? 0 : 1;
