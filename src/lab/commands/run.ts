import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { parseArgs } from 'node:util';
import type { CompactionEvent } from 'agent-compact';
import { type AgentSession, startAgentSession } from '../../agent/agent-session.js';
import { type AgentStatusEvent, formatAgentStatus } from '../../agent/agent-status.js';
import type { ChatModel } from '../../agent/chat-model.js';
import { createArchive } from '../../agent/session-archive.js';
import { openSession } from '../../agent/session-store.js';
import type { BashApproval } from '../../agent/tool-runner.js';
import { type CliCommand, CliError, type CliIO, UsageError } from '../../cli/cli-io.js';
import { asUsageError, withNegativeValues } from '../../cli/command-args.js';
import { type OpenedStore, openStoreFromSpec } from '../../cli/store-from-spec.js';
import { type AgentProvider, agentProviders, defaultAgentProvider } from '../wire/agent-providers.js';

/** A {@link CliIO} with what the agent commands also need; tests pass their own. */
export type AgentCliIO = CliIO & {
  /** The input stream. @default process.stdin */
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
  /** Subscribes to Ctrl-C; returns the unsubscribe function. @default process SIGINT */
  onInterrupt?: (handler: () => void) => () => void;
};

/** Subscribes to Ctrl-C through the IO, or to the process's SIGINT. */
export function subscribeInterrupt(io: AgentCliIO, handler: () => void): () => void {
  if (io.onInterrupt) return io.onInterrupt(handler);
  process.on('SIGINT', handler);
  return () => process.off('SIGINT', handler);
}

/** The options `run` and `chat` share. */
export const agentOptionSpec = {
  provider: { type: 'string' },
  model: { type: 'string' },
  'base-url': { type: 'string' },
  yes: { type: 'boolean', short: 'y' },
  resume: { type: 'string' },
  workspace: { type: 'string' },
  mid: { type: 'string' },
  hard: { type: 'string' },
  window: { type: 'string' },
  'max-steps': { type: 'string' },
  summarizer: { type: 'string' },
  background: { type: 'boolean' },
  store: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** One line per `--provider`: its default model and window, and the variable its key comes from. */
const providerDefaultsHelp = Object.values(agentProviders)
  .map(({ name, model, window, keyVariable }) =>
    `  ${name.padEnd(18)}${model.padEnd(20)}${String(window).padEnd(9)}${keyVariable}`.trimEnd(),
  )
  .join('\n');

const agentOptionsHelp = `Options:
  --provider anthropic|openai|openai-responses|gemini
                               the model API (default: anthropic; openai works with any compatible
                               server; openai-responses is the Responses API, stateless like Codex)
  --model M                    the model id (default: the provider's, below)
  --base-url URL               another server speaking the API (e.g. http://localhost:11434/v1)
  --yes, -y                    run bash commands without asking
  --resume ID                  continue the session ID (in .agent-compact/sessions/)
  --workspace DIR              the directory the agent works in (default: the current directory)
  --mid N, --hard N            compaction thresholds in tokens (default: fractions of the window)
  --window N                   the model's context window (default: the provider's, below)
  --max-steps N                model calls per task before stopping (default: 100)
  --summarizer model|extractive  who writes hard summaries (default: model)
  --background                 write hard summaries in the background while the agent keeps working
  --store redis://HOST:PORT    keep the archive and compactor state in Redis (default: the session folder)
  -h, --help                   show this help

Each provider's default model and window, and the variable its key comes from (never written to
the session):
${providerDefaultsHelp}`;

/** Help text of `run`. */
export const runHelp = `Usage: agent-compact run "TASK" [options]

Runs the reference coding agent on one task, then exits. Status lines go to stderr, the answer to
stdout. Ctrl-C stops the current step; the session stays resumable with --resume.

${agentOptionsHelp}

Exit codes: 0 answered, 1 stopped at --max-steps, 2 bad arguments or a failed step, 130 interrupted.
`;

/** Everything `run` and `chat` set up before the first step. */
export interface PreparedAgent extends AgentSession {
  provider: string;
  model: ChatModel;
  /** Writes a status event to stderr. */
  printStatus: (event: AgentStatusEvent) => void;
  /** Closes the approval prompt, if one was opened. */
  close: () => void;
}

/** Parses the shared options, checks the key and starts or resumes the session. Throws {@link CliError}. */
export async function prepareAgent(
  values: AgentOptionValues,
  io: AgentCliIO,
  { prompt }: { prompt?: Interface } = {},
): Promise<PreparedAgent> {
  const workspace = await resolveWorkspace(io.cwd, values.workspace as string | undefined);
  const resumeId = values.resume as string | undefined;
  const resumedInfo = resumeId === undefined ? undefined : await resumedSessionInfo(workspace, resumeId);
  const settings = agentSettings(values, io.env, resumedInfo);
  const { providerSettings, provider, modelId, apiKey, baseURL, contextWindow, mid, hard, maxSteps } =
    settings;

  const model = await providerSettings.create({ model: modelId, apiKey, ...(baseURL ? { baseURL } : {}) });
  const store = await openStoreFromSpec(values.store as string | undefined, { env: io.env });
  const bash = bashApprovalFor(values.yes === true, io, prompt);
  const { approval } = bash;
  const close = () => {
    bash.close();
    // An open Redis connection would keep the process alive after the answer.
    store.close().catch(() => {});
  };
  const printStatus = (event: AgentStatusEvent) => {
    if (event.type === 'assistant-text' && event.final) return;
    io.stderr(`${formatAgentStatus(event)}\n`);
  };
  try {
    const prepared = await startAgentSession({
      workspace,
      model,
      ...(resumeId !== undefined ? { resumeId } : {}),
      contextWindow,
      ...(mid !== undefined || hard !== undefined ? { thresholds: { mid, hard } } : {}),
      summarizer: settings.summarizer,
      ...(values.background === true ? { backgroundSummaries: true } : {}),
      bashApproval: approval,
      ...(maxSteps !== undefined ? { maxSteps } : {}),
      secrets: [apiKey],
      createArchive: store.archive ? () => store.archive! : createArchive,
      ...(store.stateStore ? { stateStore: store.stateStore } : {}),
      onStatus: printStatus,
      onCompactionEvent: (event) => printCompactionEvent(io, event),
    });
    io.stderr(sessionBanner(prepared, settings, store));
    return { ...prepared, provider, model, printStatus, close };
  } catch (error) {
    close();
    if (error instanceof CliError) throw error;
    throw new CliError(error instanceof Error ? error.message : String(error), 2);
  }
}

/** The values {@link parseAgentArgs} returns for {@link agentOptionSpec}. */
type AgentOptionValues = { [K in keyof typeof agentOptionSpec]?: string | boolean };

/** What `--resume ID` names: the provider and model the session was started with. */
async function resumedSessionInfo(
  workspace: string,
  resumeId: string,
): Promise<{ provider: string; model: string }> {
  try {
    return (await openSession({ workspace, id: resumeId })).info;
  } catch (error) {
    throw new CliError(error instanceof Error ? error.message : String(error), 2);
  }
}

/** The provider, model, key and limits a session runs with, from its options and environment. */
interface AgentSettings {
  providerSettings: AgentProvider;
  /** The provider's `--provider` name. */
  provider: string;
  modelId: string;
  apiKey: string;
  baseURL: string | undefined;
  contextWindow: number;
  mid: number | undefined;
  hard: number | undefined;
  maxSteps: number | undefined;
  summarizer: 'model' | 'extractive';
}

/**
 * The options read and checked, in the order their errors are reported. A resumed session keeps
 * its provider, and its model too unless `--provider` names another one.
 */
function agentSettings(
  values: AgentOptionValues,
  env: CliIO['env'],
  resumedInfo: { provider: string; model: string } | undefined,
): AgentSettings {
  const providerSettings = parseProvider(
    (values.provider as string | undefined) ?? resumedInfo?.provider ?? defaultAgentProvider.name,
  );
  const provider = providerSettings.name;
  const apiKey = env[providerSettings.keyVariable];
  if (!apiKey) {
    throw new CliError(
      `${providerSettings.keyVariable} is not set; export it to use --provider ${provider}`,
      2,
    );
  }
  const modelId =
    (values.model as string | undefined) ??
    (resumedInfo?.provider === provider ? resumedInfo.model : undefined) ??
    providerSettings.model;
  return {
    providerSettings,
    provider,
    modelId,
    apiKey,
    baseURL: (values['base-url'] as string | undefined) ?? env[providerSettings.baseUrlVariable],
    contextWindow: parseCount(values.window, '--window') ?? providerSettings.window,
    mid: parseCount(values.mid, '--mid'),
    hard: parseCount(values.hard, '--hard'),
    maxSteps: parseCount(values['max-steps'], '--max-steps'),
    summarizer: parseSummarizer(values.summarizer as string | undefined),
  };
}

/** Prints the compaction events the user should see while waiting: a hard summary, a fallback, a breaker. */
function printCompactionEvent(io: AgentCliIO, event: CompactionEvent): void {
  switch (event.type) {
    case 'compaction-start':
      if (event.layer === 'hard') io.stderr(`[compaction] hard: summarizing ${event.tokensBefore} tokens…\n`);
      break;
    case 'fallback-used':
      io.stderr(`[compaction] summary model failed; used the extractive summary (${event.reason})\n`);
      break;
    case 'circuit-breaker-open':
      io.stderr(
        event.reason === 'previous-hard'
          ? `[compaction] circuit breaker: the last hard compaction left ${event.previousTokensAfter} tokens, over mid ${event.mid}\n`
          : `[compaction] circuit breaker: even a perfect summary would leave ${event.floorTokens} tokens, over mid ${event.mid}\n`,
      );
      break;
    case 'summary-error':
    case 'summary-usage':
    case 'compaction-end':
      break;
    default: {
      const unreachable: never = event;
      throw new Error(`unknown compaction event ${JSON.stringify(unreachable)}`);
    }
  }
}

/** The status line a session starts with: its id, model, workspace, thresholds and store. */
function sessionBanner(prepared: AgentSession, settings: AgentSettings, store: OpenedStore): string {
  const { mid: midLimit, hard: hardLimit } = prepared.compactor.thresholds;
  return `agent-compact: session ${prepared.session.id}${prepared.resumed ? ' (resumed)' : ''} · ${settings.provider} ${settings.modelId} · ${prepared.workspace} · compaction at ${midLimit} / ${hardLimit} of ${settings.contextWindow} tokens${store.archive ? ` · store ${store.description}` : ''}\n`;
}

/** `--yes` runs everything; a terminal asks; otherwise bash is refused with a reason the model reads. */
function bashApprovalFor(
  yes: boolean,
  io: AgentCliIO,
  shared: Interface | undefined,
): { approval: BashApproval; close: () => void } {
  if (yes) return { approval: { mode: 'allow' }, close: () => {} };
  const input = io.stdin ?? process.stdin;
  const interactive = io.isTTY && (input as { isTTY?: boolean }).isTTY === true;
  if (!interactive && shared === undefined) {
    return {
      approval: {
        mode: 'refuse',
        reason:
          "not run: bash commands need the user's approval, and there is no terminal to ask on. The user can rerun with --yes to allow them; use the file tools meanwhile.",
      },
      close: () => {},
    };
  }
  const question = (prompt: Interface, text: string, signal: AbortSignal | undefined) =>
    new Promise<boolean>((resolve) => {
      if (signal?.aborted) return resolve(false);
      prompt.question(text, signal ? { signal } : {}, (answer) => resolve(/^y(es)?$/i.test(answer.trim())));
      signal?.addEventListener('abort', () => resolve(false), { once: true });
    });
  return {
    approval: {
      mode: 'ask',
      ask: async (command, signal) => {
        const text = `\nRun this command?\n  $ ${command}\n[y/N] `;
        if (shared) return await question(shared, text, signal);
        // A terminal-mode readline takes Ctrl-C for itself, so `run` opens one only while it asks,
        // and passes a Ctrl-C at the prompt on as the interrupt it is.
        const prompt = createInterface({ input, output: process.stderr, terminal: true });
        const onPromptInterrupt = () => {
          prompt.close();
          process.kill(process.pid, 'SIGINT');
        };
        prompt.once('SIGINT', onPromptInterrupt);
        try {
          return await Promise.race([
            question(prompt, text, signal),
            new Promise<boolean>((resolve) => prompt.once('close', () => resolve(false))),
          ]);
        } finally {
          prompt.off('SIGINT', onPromptInterrupt);
          prompt.close();
        }
      },
    },
    close: () => {},
  };
}

async function resolveWorkspace(cwd: string, option: string | undefined): Promise<string> {
  const directory = path.resolve(cwd, option ?? '.');
  try {
    if (!(await stat(directory)).isDirectory()) throw new Error('not a directory');
    return await realpath(directory);
  } catch {
    throw new CliError(`workspace ${directory} is not a directory`, 2);
  }
}

function parseProvider(value: string): AgentProvider {
  const providers = Object.values(agentProviders);
  const found = providers.find((provider) => provider.name === value);
  if (found) return found;
  const names = providers.map((provider) => provider.name);
  throw new UsageError(
    `--provider must be ${names.slice(0, -1).join(', ')} or ${names.at(-1)}, got "${value}"`,
  );
}

function parseSummarizer(value: string | undefined): 'model' | 'extractive' {
  if (value === undefined || value === 'model' || value === 'extractive') return value ?? 'model';
  throw new UsageError(`--summarizer must be model or extractive, got "${value}"`);
}

function parseCount(value: string | boolean | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(String(value).replace(/_/g, ''));
  if (!Number.isInteger(number) || number <= 0)
    throw new UsageError(`${name} must be a positive integer, got "${value}"`);
  return number;
}

/** Parses argv with the shared options; `--help` and bad options become help text or a {@link CliError}. */
export function parseAgentArgs(args: string[]) {
  try {
    return parseArgs({
      args: withNegativeValues(args, agentOptionSpec),
      options: agentOptionSpec,
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw asUsageError(error);
  }
}

/** Runs one step loop under Ctrl-C handling: the first SIGINT aborts the step, a second one exits. */
export async function withInterrupt<T>(io: AgentCliIO, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let presses = 0;
  const unsubscribe = subscribeInterrupt(io, () => {
    presses += 1;
    if (presses > 1) process.exit(130);
    controller.abort();
  });
  try {
    return await run(controller.signal);
  } finally {
    unsubscribe();
  }
}

/**
 * `agent-compact run "TASK"`: runs the reference agent on one task, then exits.
 *
 * @example
 * // agent-compact run "Add a --verbose flag and a test for it" --yes
 */
export const runCommand: CliCommand = async (args, io: AgentCliIO) => {
  const { values, positionals } = parseAgentArgs(args);
  if (values.help) {
    io.stdout(runHelp);
    return 0;
  }
  const task = positionals.join(' ').trim();
  if (task === '' && values.resume === undefined) {
    throw new CliError(
      'run needs a task: agent-compact run "TASK" (or --resume ID to continue a session)',
      2,
    );
  }
  const prepared = await prepareAgent(values, io);
  const { agent, session } = prepared;
  const resumeHint = `agent-compact run --resume ${session.id}${values.workspace ? ` --workspace ${values.workspace}` : ''}`;
  try {
    await session.setState('running');
    const result = await withInterrupt(io, (signal) =>
      agent.send(task === '' ? undefined : task, { signal }),
    );
    switch (result.outcome) {
      case 'answered':
        await session.setState('answered');
        io.stdout(`${result.text}\n`);
        return 0;
      case 'max-steps':
        await session.setState('interrupted');
        io.stderr(
          `agent-compact: stopped after ${result.steps} steps (--max-steps); continue with: ${resumeHint}\n`,
        );
        return 1;
      case 'interrupted':
        await session.setState('interrupted');
        io.stderr(`agent-compact: interrupted; the session is saved. Continue with: ${resumeHint}\n`);
        return 130;
      default: {
        const unreachable: never = result.outcome;
        throw new Error(`unknown outcome ${String(unreachable)}`);
      }
    }
  } catch (error) {
    await session.setState('failed').catch(() => {});
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new CliError(`${message} (session ${session.id} is saved; continue with: ${resumeHint})`, 2);
  } finally {
    prepared.close();
  }
};
